"""Benchmark of toolplug-file-editor against plain Python doing the same work in the same run.

Run: python bench/bench_file_editor.py   (with toolplug-file-editor installed)

Targets (issue 5):
- `view` of lines 5000-5100 of a 100,000-line file: within 3x of reading them with plain Python.
- `str_replace` of a unique line in a 1 MB file: within 3x of a plain read/replace/write.
- `view` of a 100-line range near the start of a 500 MB file: within 5x of reading those
  lines with plain Python, and under 50 MB of peak memory (measured in a fresh process).
Every figure is the median of repeated runs; the temporary files are removed at the end.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPEATS = 31
HUGE_BYTES = 500 * 1024 * 1024


def paired_ms(
    ours: Callable[[], object], floor: Callable[[], object], repeats: int = REPEATS
) -> tuple[float, float]:
    """Median wall times in milliseconds of ``ours`` and ``floor``, run alternately.

    Alternating spreads the machine's noise (other processes, disk write-back) evenly
    over both; one warm-up run of each comes first.
    """
    ours()
    floor()
    ours_times, floor_times = [], []
    for _ in range(repeats):
        for fn, times in ((ours, ours_times), (floor, floor_times)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return statistics.median(ours_times) * 1000, statistics.median(floor_times) * 1000


def report(what: str, ours: float, floor: float, target: float) -> bool:
    ratio = ours / floor
    verdict = "PASS" if ratio <= target else "MISS"
    print(
        f"{what:<44} ours {ours:8.3f} ms  floor {floor:8.3f} ms  "
        f"ratio {ratio:5.2f}x  target <= {target:g}x  {verdict}"
    )
    return ratio <= target


def make_editor(workspace: Path):
    from toolplug import Tool, ToolContext, ToolRegistry

    registry = ToolRegistry.from_plugins(["file_editor"])
    [tool] = registry.resolve(Tool("file_editor"), ToolContext(workspace=workspace))
    return tool


def bench_view_range(workspace: Path, tool) -> bool:
    path = workspace / "lines.txt"
    path.write_text(
        "".join(f"line {i:06d}: some ordinary source text here\n" for i in range(100_000))
    )
    arguments = {"command": "view", "path": "lines.txt", "view_range": [5000, 5100]}
    observation = tool.call(arguments)
    assert not observation.is_error and "  5000\tline 004999" in observation.text

    def floor() -> object:
        with open(path, encoding="utf-8") as handle:
            return list(itertools.islice(handle, 4999, 5100))

    ours_ms, floor_ms = paired_ms(lambda: tool.call(arguments), floor)
    return report("view 5000-5100 of a 100,000-line file", ours_ms, floor_ms, 3)


def bench_str_replace(workspace: Path, tool) -> bool:
    path = workspace / "mb.txt"
    lines = [f"{i:07d} lorem ipsum dolor sit amet, consectetur adipiscing\n" for i in range(17_000)]
    path.write_text("".join(lines))
    assert 0.9e6 < path.stat().st_size < 1.1e6
    # Each call flips one unique line, so every run is a real edit of the same size.
    state = {"flip": False}

    def ours() -> object:
        old, new = (
            ("0008500 lorem", "0008500 LOREM")
            if not state["flip"]
            else ("0008500 LOREM", "0008500 lorem")
        )
        state["flip"] = not state["flip"]
        observation = tool.call(
            {"command": "str_replace", "path": "mb.txt", "old_str": old, "new_str": new}
        )
        assert not observation.is_error, observation.text
        return observation

    floor_path = workspace / "mb-floor.txt"
    shutil.copyfile(path, floor_path)

    def floor() -> object:
        text = floor_path.read_text(encoding="utf-8")
        text = text.replace("0008500 lorem", "0008500 LOREM", 1)
        floor_path.write_text(text, encoding="utf-8")
        text = floor_path.read_text(encoding="utf-8")  # and back, to keep the file the same
        text = text.replace("0008500 LOREM", "0008500 lorem", 1)
        return floor_path.write_text(text, encoding="utf-8")

    ours_ms, floor_ms = paired_ms(ours, floor)
    # The floor makes two edits per run (there and back); ours makes one.
    passed = report("str_replace of a unique line in a 1 MB file", ours_ms, floor_ms / 2, 3)

    def atomic_floor() -> object:
        """For context: plain Python with the same durable write (temp file, fsync,
        rename, fsync of the directory)."""
        text = floor_path.read_text(encoding="utf-8").replace("0008500", "0008500", 1)
        with tempfile.NamedTemporaryFile(dir=workspace, delete=False) as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, floor_path)
        directory = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY)
        try:
            return os.fsync(directory)
        finally:
            os.close(directory)

    ours_ms, atomic_ms = paired_ms(ours, atomic_floor)
    print(
        f"{'  (info) the same, floor with a durable write':<44} ours {ours_ms:8.3f} ms  "
        f"floor {atomic_ms:8.3f} ms  ratio {ours_ms / atomic_ms:5.2f}x  (no target)"
    )
    return passed


# Runs in a fresh process, so the memory figure is this view's alone.
_HUGE_CHILD = r"""
import itertools, json, statistics, sys, time
from pathlib import Path
from toolplug import Tool, ToolContext, ToolRegistry

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
    return 0

path = Path(sys.argv[1])
[tool] = ToolRegistry.from_plugins(["file_editor"]).resolve(
    Tool("file_editor"), ToolContext(workspace=path.parent)
)
arguments = {"command": "view", "path": path.name, "view_range": [1001, 1100]}
tool.call({"command": "view", "path": path.name, "view_range": [1, 2]})  # warm imports
before = status("VmRSS:")
try:
    open("/proc/self/clear_refs", "w").write("5")  # reset the peak (VmHWM) to now
except OSError:
    pass
observation = tool.call(arguments)
peak_growth = status("VmHWM:") - before
assert not observation.is_error and "  1001\t" in observation.text, observation.text[:200]

def floor():
    with open(path, encoding="utf-8") as handle:
        return list(itertools.islice(handle, 1000, 1100))

ours_times, floor_times = [], []
for _ in range(31):  # alternate, so both share the machine's noise
    for fn, times in ((lambda: tool.call(arguments), ours_times), (floor, floor_times)):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
ours = statistics.median(ours_times) * 1000
floor_ms = statistics.median(floor_times) * 1000
print(json.dumps({"ours": ours, "floor": floor_ms, "growth": peak_growth, "hwm": status("VmHWM:")}))
"""


def bench_huge_view(workspace: Path) -> bool:
    path = workspace / "huge.log"
    block = "".join(
        f"{i:08d} 2026-01-01T00:00:00Z INFO request served in 3 ms\n" for i in range(20_000)
    )
    data = block.encode()
    with open(path, "wb") as handle:
        for _ in range(HUGE_BYTES // len(data) + 1):
            handle.write(data)
    result = subprocess.run(
        [sys.executable, "-c", _HUGE_CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if result.returncode != 0:
        print(f"view of a 500 MB file: the measuring process failed:\n{result.stderr}")
        return False
    figures = json.loads(result.stdout)
    size_mb = path.stat().st_size / 1e6
    passed = report(
        f"view 100 lines near the start of {size_mb:.0f} MB", figures["ours"], figures["floor"], 5
    )
    growth_mb = figures["growth"] / 1e6
    verdict = "PASS" if growth_mb < 50 else "MISS"
    print(
        f"{'peak memory of that view':<44} ours {growth_mb:8.1f} MB  (whole process peak "
        f"{figures['hwm'] / 1e6:.1f} MB)  target < 50 MB  {verdict}"
    )
    return passed and growth_mb < 50


def main() -> int:
    workspace = Path(tempfile.mkdtemp(prefix="bench-file-editor-"))
    tool = make_editor(workspace)
    try:
        results = [
            bench_view_range(workspace, tool),
            bench_str_replace(workspace, tool),
            bench_huge_view(workspace),
        ]
    finally:
        tool.close()
        shutil.rmtree(workspace, ignore_errors=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
