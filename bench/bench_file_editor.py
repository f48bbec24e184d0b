"""Benchmark of toolplug-file-editor against plain Python doing the same work in the same run.

Run: python bench/bench_file_editor.py   (with toolplug-file-editor installed)
or:  python bench/bench_file_editor.py --file PATH   (views and an edit of a copy of PATH)

Every target is measured on every shape: small and large files, LF and CRLF line
endings, ASCII and multi-byte (UTF-8) text. Targets (issue 5, issue 19):
- `view` of 100 lines (5000-5100 of 100,000; 50-150 of 200): within 3x of reading them
  with plain Python.
- `str_replace` of a unique line in a 1 MB file: within 3x of a plain read/replace/write.
  In a small file the tool's durable write (temp file, two fsyncs, rename) is nearly all
  the time and a plain write has none, so there the target is 3x of plain Python with
  the same durable write (both floors are printed for both sizes).
- `view` of a 100-line range near the start of a 500 MB file: within 5x of reading those
  lines with plain Python, and under 50 MB of peak memory (measured in a fresh process).
Every figure is the median of alternated runs; the temporary files are removed at the end.

One (info) line follows the small views: the safety steps of a view alone (the walk
to the file's folder without following links, the lstat, the O_NOFOLLOW open and the
fstat, with the editor's own syscalls) done by plain Python, against the same floor:
the least any safe view can cost, and so how much of the 3x budget it takes by itself.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import timing
from timing import interleaved

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
    times = interleaved({"ours": ours, "floor": floor}, repeats)
    return times["ours"] * 1000, times["floor"] * 1000


def report(what: str, ours: float, floor: float, target: float) -> bool:
    """Report one figure given in milliseconds; ``target`` inf means it is for scale only."""
    return timing.report(
        "file_editor", what, ours / 1000, floor / 1000, None if target == float("inf") else target
    )


def make_editor(workspace: Path):
    from toolplug import Tool, ToolContext, ToolRegistry

    registry = ToolRegistry.from_plugins(["file_editor"])
    [tool] = registry.resolve(Tool("file_editor"), ToolContext(workspace=workspace))
    return tool


#: The text shapes: line endings and characters.
ENDINGS = {"LF": "\n", "CRLF": "\r\n"}
WORDS = {
    "ASCII": "some ordinary source text here",
    "multi-byte": "données 変数 ошибка ✓ naïve text",
}
#: The file sizes: view range and line count, and the bytes a str_replace file has.
VIEW_SIZES = {"small": (200, (50, 150)), "large": (100_000, (5000, 5100))}
REPLACE_SIZES = {"small": 2_000, "large": 1_000_000}


def shapes() -> list[tuple[str, str, str]]:
    """Every (ending, characters) pair, named for the output."""
    return [(e, w, f"{e} {w}") for e in ENDINGS for w in WORDS]


def bench_view_range(workspace: Path, tool, size: str, ending: str, words: str, label: str) -> bool:
    count, (first, last) = VIEW_SIZES[size]
    name = f"view-{size}-{ending}-{words}.txt"
    path = workspace / name
    eol, text = ENDINGS[ending], WORDS[words]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("".join(f"line {i:06d}: {text}{eol}" for i in range(count)))
    arguments = {"command": "view", "path": name, "view_range": [first, last]}
    observation = tool.call(arguments)
    assert not observation.is_error, observation.text
    assert f"{first:6d}\tline {first - 1:06d}" in observation.text, observation.text[:200]

    def floor() -> object:
        with open(path, encoding="utf-8") as handle:
            return list(itertools.islice(handle, first - 1, last))

    ours_ms, floor_ms = paired_ms(lambda: tool.call(arguments), floor)
    passed = report(f"view {first}-{last} of {count:,} lines, {label}", ours_ms, floor_ms, 3)
    if size == "small" and (ending, words) == ("LF", "ASCII"):  # the smallest floor
        bench_safety_floor(workspace, name, floor)
    return passed


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def safety_steps(workspace: Path, name: str) -> Callable[[], object]:
    """The safety steps of the editor's `view` of ``name``, in plain Python with the same
    syscalls: open the workspace and check it (fstat), open each folder on the way
    relative to the last one with O_NOFOLLOW, lstat the file, open it with O_NOFOLLOW
    and O_NONBLOCK, fstat it, close both. No reading, checking of results or rendering."""
    *folders, last = name.split("/")
    root = str(workspace)

    def steps() -> object:
        fd = os.open(root, _DIRECTORY)
        try:
            os.fstat(fd)
            for folder in folders:
                child = os.open(folder, _DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = child
            os.stat(last, dir_fd=fd, follow_symlinks=False)
            file = os.open(last, _FILE, dir_fd=fd)
            try:
                return os.fstat(file)
            finally:
                os.close(file)
        finally:
            os.close(fd)

    return steps


def bench_safety_floor(workspace: Path, name: str, floor: Callable[[], object]) -> None:
    """The (info) line: the safety steps alone against the view's own floor."""
    steps_ms, floor_ms = paired_ms(safety_steps(workspace, name), floor)
    what = "safety steps alone, plain Python, vs the view's floor"
    report(what, steps_ms, floor_ms, float("inf"))


def bench_str_replace(
    workspace: Path, tool, size: str, ending: str, words: str, label: str
) -> bool:
    """``str_replace`` of a unique line, against a plain read/replace/write (target 3x on
    the 1 MB file) and against the same with the tool's durable write (target 3x on the
    small file, where the fsyncs are most of the time and a plain write has none)."""
    name = f"replace-{size}-{ending}-{words}.txt"
    path = workspace / name
    eol, text = ENDINGS[ending], WORDS[words]
    line_bytes = len(f"0000000 {text}{eol}".encode())
    count = max(REPLACE_SIZES[size] // line_bytes, 10)
    middle = f"{count // 2:07d}"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("".join(f"{i:07d} {text}{eol}" for i in range(count)))
    size_text = f"{path.stat().st_size / 1e6:.1f} MB" if size == "large" else f"{count} lines"
    head = text.split()[0]
    # Each call flips one unique line, so every run is a real edit of the same size.
    state = {"flip": False}

    def ours() -> object:
        old, new = (f"{middle} {head}", f"{middle} {head.upper()}")
        if state["flip"]:
            old, new = new, old
        state["flip"] = not state["flip"]
        observation = tool.call(
            {"command": "str_replace", "path": name, "old_str": old, "new_str": new}
        )
        assert not observation.is_error, observation.text
        return observation

    floor_path = workspace / f"floor-{name}"
    shutil.copyfile(path, floor_path)

    def edit(old: str, new: str) -> None:
        with open(floor_path, encoding="utf-8", newline="") as handle:
            content = handle.read()
        with open(floor_path, "w", encoding="utf-8", newline="") as handle:
            handle.write(content.replace(old, new, 1))

    def floor() -> object:  # there and back, to keep the file the same: two edits
        edit(f"{middle} {head}", f"{middle} {head.upper()}")
        return edit(f"{middle} {head.upper()}", f"{middle} {head}")

    def durable_floor() -> object:
        """Plain Python with the tool's durable write."""
        with open(floor_path, encoding="utf-8", newline="") as handle:
            content = handle.read().replace(middle, middle, 1)
        return durable_write(workspace, floor_path, content.encode("utf-8"))

    ours_ms, floor_ms = paired_ms(ours, floor)
    what = f"str_replace in {size_text}, {label}"
    if size == "large":
        passed = report(what, ours_ms, floor_ms / 2, 3)
    else:
        report(what, ours_ms, floor_ms / 2, float("inf"))
    ours_ms, durable_ms = paired_ms(ours, durable_floor)
    durable = f"{what}, floor with a durable write"
    if size == "large":
        report(durable, ours_ms, durable_ms, float("inf"))
    else:
        passed = report(durable, ours_ms, durable_ms, 3)
    return passed


# Runs in a fresh process, so the memory figure is this view's alone.
_HUGE_CHILD = r"""
import itertools, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from timing import interleaved
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

times = interleaved({"ours": lambda: tool.call(arguments), "floor": floor}, 31)
ours, floor_ms = times["ours"] * 1000, times["floor"] * 1000
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
        [sys.executable, "-c", _HUGE_CHILD, str(path), str(Path(__file__).parent)],
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
    # The floor for scale: the whole measuring process's peak.
    small = timing.report(
        "file_editor",
        "peak memory growth of that view (floor: the process's peak)",
        growth_mb,
        figures["hwm"] / 1e6,
        unit="MB",
        limit=50,
    )
    return passed and small


def bench_own_file(workspace: Path, tool, source: Path) -> bool:
    """``view`` of 100 lines in the middle of a copy of ``source``, and ``str_replace``
    of its most central unique line (there and back), against the same floors."""
    name = f"own-{source.name}"
    path = workspace / name
    shutil.copyfile(source, path)
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        lines = handle.read().splitlines(keepends=True)
    middle = max(len(lines) // 2 - 50, 1)
    arguments = {"command": "view", "path": name, "view_range": [middle, middle + 99]}
    observation = tool.call(arguments)
    if observation.is_error:
        print(f"view of {source}: {observation.text}")
        return False

    def view_floor() -> object:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return list(itertools.islice(handle, middle - 1, middle + 99))

    ours_ms, floor_ms = paired_ms(lambda: tool.call(arguments), view_floor)
    passed = report(f"view {middle}-{middle + 99} of {len(lines):,} lines", ours_ms, floor_ms, 3)
    bench_safety_floor(workspace, name, view_floor)
    text = "".join(lines)
    order = sorted(range(len(lines)), key=lambda i: abs(i - len(lines) // 2))
    unique = [lines[i].rstrip("\r\n") for i in order[:2_000] if lines[i].strip()]
    unique = [line for line in unique if text.count(line) == 1]
    if not unique:
        print("str_replace: no unique line near the middle of the file; not measured")
        return passed
    old, new = unique[0], unique[0] + " #"
    state = {"flip": False}

    def ours() -> object:
        a, b = (new, old) if state["flip"] else (old, new)
        state["flip"] = not state["flip"]
        return tool.call({"command": "str_replace", "path": name, "old_str": a, "new_str": b})

    def floor() -> object:
        for a, b in ((old, new), (new, old)):
            with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
                content = handle.read()
            with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as h:
                h.write(content.replace(a, b, 1))
        return None

    def durable_floor() -> object:
        content = path.read_bytes()
        return durable_write(workspace, workspace / "floor-copy", content)

    large = path.stat().st_size >= 1_000_000  # as in the shapes: see bench_str_replace
    ours_ms, floor_ms = paired_ms(ours, floor)
    what = f"str_replace in {path.stat().st_size / 1e6:.2f} MB"
    plain = report(what, ours_ms, floor_ms / 2, 3 if large else float("inf"))
    ours_ms, durable_ms = paired_ms(ours, durable_floor)
    durable_what = f"{what}, floor with a durable write"
    durable = report(durable_what, ours_ms, durable_ms, float("inf") if large else 3)
    return passed and (plain if large else durable)


def durable_write(workspace: Path, target: Path, content: bytes) -> None:
    """Write ``content`` as the tool does: a temporary file, fsync, rename, fsync of the
    directory."""
    with tempfile.NamedTemporaryFile(dir=workspace, delete=False) as handle:
        handle.write(content)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(handle.name, target)
    directory = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def main() -> int:
    parser = argparse.ArgumentParser(description="Benchmark of the file_editor tool.")
    parser.add_argument("--file", type=Path, help="measure on a copy of this file instead")
    args = parser.parse_args()
    workspace = Path(tempfile.mkdtemp(prefix="bench-file-editor-"))
    tool = make_editor(workspace)
    try:
        if args.file is not None:
            return 0 if bench_own_file(workspace, tool, args.file) else 1
        results = []
        for size in VIEW_SIZES:
            for ending, words, label in shapes():
                results.append(bench_view_range(workspace, tool, size, ending, words, label))
        for size in REPLACE_SIZES:
            for ending, words, label in shapes():
                results.append(bench_str_replace(workspace, tool, size, ending, words, label))
        results.append(bench_huge_view(workspace))
        missed = results.count(False)
        print(f"{missed} of {len(results)} targets missed" if missed else "every target met")
        timing.save("bench_file_editor")
    finally:
        tool.close()
        shutil.rmtree(workspace, ignore_errors=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
