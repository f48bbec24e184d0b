"""Benchmark of toolplug-glob against ripgrep and pathlib on a generated tree.

The tree: 100,000 files in 5,000 directories, a git repository whose .gitignore (a
Python project's usual one, with rules for files as well as directories) excludes a
fifth of it (``build/``), with spread-out modification times. It is made
once in a temporary directory, used by every measurement, and removed at the end.

For each pattern it prints one line per target: our time (a full ``tool.call``,
newest-first sort included), the floor measured in the same run (``rg --files -g
PATTERN`` from the tree's root, and ``pathlib.Path.glob``), the ratio, the target, and
PASS or MISS. Times are medians over interleaved repeats, so that machine noise hits
every contender alike. Run: ``python bench/bench_glob.py``.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import toolplug_glob
from timing import interleaved, median_time
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from
from toolplug_glob.ripgrep import find_ripgrep

TOP_DIRS = ("src", "lib", "tests", "docs", "build")  # build/ is git-ignored: a fifth
PACKAGES, MODULES = 10, 100  # 5 top dirs x 10 x 100 = 5,000 directories
FILES_PER_DIR = (  # 20 files per directory = 100,000 files
    ["test_a.py", "test_b.py"]
    + [f"mod_{i}.py" for i in range(5)]
    + [f"comp_{i}.ts" for i in range(5)]
    + ["README.md", "notes.md", "data.json", "conf.json", "a.txt", "b.txt", "run.log", "x.cfg"]
)
PATTERNS = ("**/*.py", "src/**/test_*.py")
#: A Python project's usual ignore file; of this tree, it excludes build/ (a fifth).
GITIGNORE = """\
# build and packaging output
build/
dist/
*.egg-info/
__pycache__/
*.py[cod]
*.so
# local state
.env
.venv/
*.log
.coverage
htmlcov/
"""
REPEATS = 15


def make_tree(root: Path) -> int:
    """Write the benchmark tree; return how many files it has."""
    rng = random.Random(6)
    now = time.time()
    count = 0
    for top in TOP_DIRS:
        for p in range(PACKAGES):
            for m in range(MODULES):
                directory = root / top / f"pkg{p}" / f"mod{m}"
                directory.mkdir(parents=True)
                for name in FILES_PER_DIR:
                    path = directory / name
                    path.write_bytes(b"")
                    stamp = now - rng.uniform(0, 365 * 86400)
                    os.utime(path, (stamp, stamp))
                    count += 1
    (root / ".gitignore").write_text(GITIGNORE)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    else:
        (root / ".git").mkdir()  # ripgrep only looks for the directory
    return count


def line(what: str, ours: float, floor: float, target: float, floor_name: str) -> str:
    """One result line: what, our time, the floor, the ratio, the target, PASS/MISS."""
    ratio = ours / floor
    verdict = "PASS" if ratio <= target else "MISS"
    return (
        f"{what:<44} ours {ours * 1000:8.1f} ms  {floor_name} {floor * 1000:8.1f} ms  "
        f"ratio {ratio:5.2f}  target <= {target:g}  {verdict}"
    )


def main() -> None:
    """Build the tree, measure every target, print the lines, remove the tree."""
    rg = find_ripgrep()
    if rg is None:
        raise SystemExit("no rg binary found: pip install ripgrep (or toolplug-glob)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-glob-"))
    try:
        started = time.perf_counter()
        count = make_tree(tmp)
        print(f"tree: {count:,} files in {tmp} ({time.perf_counter() - started:.1f} s to make)")
        os.sync()  # flush the new tree now, so disk writeback does not run during timing
        registry = registry_from(toolplug_glob)
        context = ToolContext(workspace=tmp)
        [tool] = registry.resolve(Tool("glob", {"engine": "ripgrep"}), context)
        [portable] = registry.resolve(Tool("glob", {"engine": "python"}), context)
        for pattern in PATTERNS:
            arguments = {"pattern": pattern}
            first = tool.call(arguments)
            assert not first.is_error, first.text
            floor_out = subprocess.run(
                [rg, "--files", "-g", pattern], cwd=tmp, capture_output=True, check=True
            ).stdout.splitlines()
            print(f"{pattern}: {first.total:,} matches (rg -g lists {len(floor_out):,})")

            def ours(arguments: dict[str, str] = arguments) -> object:
                return tool.call(arguments)

            def floor(pattern: str = pattern) -> object:
                return subprocess.run(
                    [rg, "--files", "-g", pattern], cwd=tmp, capture_output=True, check=True
                )

            def pathlib_glob(pattern: str = pattern) -> object:
                return list(tmp.glob(pattern))

            medians = interleaved({"ours": ours, "rg": floor, "pathlib": pathlib_glob}, REPEATS)
            print(
                line(
                    f"glob {pattern!r} vs rg --files -g", medians["ours"], medians["rg"], 1.5, "rg"
                )
            )
            print(
                line(
                    f"glob {pattern!r} vs pathlib.Path.glob",
                    medians["ours"],
                    medians["pathlib"],
                    1.0,
                    "pathlib",
                )
            )
            python_time = median_time(lambda a=arguments: portable.call(a), 1)
            print(
                f"{'(info) python engine ' + repr(pattern):<44} {python_time * 1000:8.1f} ms, "
                f"{python_time / medians['rg']:.2f}x rg"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
