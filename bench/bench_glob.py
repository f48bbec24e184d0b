"""Benchmark of toolplug-glob against ripgrep on trees of several shapes.

Each shape is generated from a seed (``--seed``) in a temporary git repository with a
Python project's usual ``.gitignore``, spread-out modification times, and a ``src/``
directory, then removed before the next is made:

- ``issue``: the tree of issue #19: 100,000 files in 5,000 directories three levels
  deep under ``src/``, ``tests/``, ``build/``, ``docs/`` and ``lib/``, a fifth of it
  ignored through ``build/``, about a third of the rest ``.py`` files;
- ``deep``: chains of directories twelve to twenty levels deep, few files in each;
- ``flat``: a few very wide directories (thousands of files each);
- ``ignored``: most files ignored (a ``venv/``, ``build/``, ``dist/``,
  ``node_modules/``, ``__pycache__/`` and ``*.log`` files), a small tracked project;
- ``sparse``: a large TypeScript project with a few dozen Python files in it.

``--tree PATH`` measures one's own tree instead (it is only read).

For each tree and pattern (``**/*.py`` and ``src/**/test_*.py``) it prints our time (a
full ``tool.call``, the newest-first sort included), the floor measured in the same
run (``rg --files -g PATTERN`` from the tree's root, its output then dated with a
``stat`` per file and sorted newest first, in Python), their ratio against the target
(1.2x) and PASS or MISS, and for scale ripgrep's time alone. The contenders run
alternately in rounds; times are medians. It exits with status 1 if any shape misses.

Run: ``python bench/bench_glob.py [--seed N] [--rounds N] [--shape NAME ...]`` or
``python bench/bench_glob.py --tree PATH``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import toolplug_glob
from timing import interleaved, report, save
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from
from toolplug_glob.ripgrep import find_ripgrep

PATTERNS = ("**/*.py", "src/**/test_*.py")
TARGET = 1.2
ROUNDS = 11
YEAR = 365 * 86400
#: A Python project's usual ignore file.
GITIGNORE = """\
# build and packaging output
build/
dist/
*.egg-info/
__pycache__/
*.py[cod]
*.so
node_modules/
# local state
.env
.venv/
venv/
*.log
.coverage
htmlcov/
.tox/
"""

# The uniform tree that bench_grep.py uses (make_tree): 5 top dirs x 10 x 100 = 5,000
# directories, 20 files in each = 100,000 files, build/ (a fifth) ignored.
TOP_DIRS = ("src", "lib", "tests", "docs", "build")
PACKAGES, MODULES = 10, 100
FILES_PER_DIR = (
    ["test_a.py", "test_b.py"]
    + [f"mod_{i}.py" for i in range(5)]
    + [f"comp_{i}.ts" for i in range(5)]
    + ["README.md", "notes.md", "data.json", "conf.json", "a.txt", "b.txt", "run.log", "x.cfg"]
)


class _Writer:
    """Writes empty files with random modification times into a tree."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root = root
        self.rng = rng
        self.now = time.time()
        self.count = 0

    def files(self, directory: str, names: list[str]) -> None:
        """Make ``directory`` (relative to the root) and the empty files ``names`` in it."""
        folder = self.root / directory
        folder.mkdir(parents=True, exist_ok=True)
        uniform = self.rng.uniform
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "wb"):
                pass
            stamp = self.now - uniform(0, YEAR)
            os.utime(path, (stamp, stamp))
        self.count += len(names)

    def finish(self, gitignore: str = GITIGNORE) -> int:
        """Write the ignore file, make the tree a git repository; return the file count."""
        (self.root / ".gitignore").write_text(gitignore)
        if shutil.which("git"):
            subprocess.run(["git", "init", "-q", str(self.root)], check=True)
        else:
            (self.root / ".git").mkdir()  # ripgrep only looks for the directory
        return self.count


def _names(rng: random.Random, count: int, kinds: list[tuple[str, float]]) -> list[str]:
    """``count`` distinct file names, their endings drawn with the weights of ``kinds``
    (a kind starting with ``test_`` makes a test module: ``test_NAME.py``)."""
    endings = [kind for kind, _ in kinds]
    weights = [weight for _, weight in kinds]
    names = []
    for i, kind in enumerate(rng.choices(endings, weights, k=count)):
        stem = rng.choice(("util", "core", "model", "view", "io", "api", "cli", "data"))
        if kind.startswith("test_"):
            names.append(f"test_{stem}_{i}{kind[4:]}")
        else:
            names.append(f"{stem}_{i}{kind}")
    return names


#: Endings of a Python project's files, and how common each is.
PROJECT = [
    (".py", 30),
    ("test_.py", 4),
    (".pyi", 1),
    (".md", 8),
    (".json", 8),
    (".ts", 10),
    (".txt", 6),
    (".cfg", 3),
    (".toml", 2),
    (".yaml", 5),
    (".html", 5),
    (".css", 3),
    (".png", 5),
    (".log", 3),  # ignored by *.log
    (".pyc", 2),  # ignored by *.py[cod]
    (".rst", 5),
]


def _issue(w: _Writer) -> None:
    """Issue #19's tree: 100,000 files, 5,000 directories three levels deep, build/
    a fifth; some directories hold a __pycache__ (ignored)."""
    rng = w.rng
    top_dirs = ["src", "tests", "build", "docs", "lib"]
    counts = [rng.randint(12, 26) for _ in range(5_000)]
    counts[-1] += 100_000 - sum(counts) - 2_500  # the __pycache__ files come on top
    index = 0
    for top in top_dirs:
        for p in range(10):
            for m in range(100):
                directory = f"{top}/pkg{p}/mod{m}"
                w.files(directory, _names(rng, max(counts[index], 1), PROJECT))
                if index % 10 == 0:
                    w.files(f"{directory}/__pycache__", [f"m{i}.cpython-312.pyc" for i in range(5)])
                index += 1


def _deep(w: _Writer) -> None:
    """Chains of directories 12-20 levels deep, 3-8 files in each: about 40,000 files."""
    rng = w.rng
    for chain in range(400):
        top = rng.choice(["src", "src", "tests", "lib", "docs"])
        parts = [top, f"c{chain}"]
        for _ in range(rng.randint(12, 20)):
            parts.append(rng.choice(["core", "impl", "sub", "pkg", "x", "internal"]))
            w.files("/".join(parts), _names(rng, rng.randint(3, 8), PROJECT))


def _flat(w: _Writer) -> None:
    """Wide directories: 15 of 3,000-5,000 files each, plus 3,000 at the top: ~60,000."""
    rng = w.rng
    w.files(".", _names(rng, 3_000, PROJECT))
    for i in range(15):
        top = ("src", "tests", "lib")[i % 3]
        w.files(f"{top}/wide{i}", _names(rng, rng.randint(3_000, 5_000), PROJECT))


def _ignored(w: _Writer) -> None:
    """A small tracked project (5,000 files) beside 75,000 ignored ones: a venv's
    site-packages, build/ and dist/ copies, node_modules/, __pycache__/, logs."""
    rng = w.rng
    for d in range(250):
        directory = f"{rng.choice(['src', 'tests', 'lib'])}/p{d % 25}/m{d}"
        w.files(directory, _names(rng, 20, PROJECT))
        w.files(f"{directory}/__pycache__", [f"m{i}.cpython-312.pyc" for i in range(8)])
    site = "venv/lib/python3.12/site-packages"
    for d in range(1_500):
        w.files(f"{site}/dist{d % 150}/sub{d}", _names(rng, 20, [(".py", 8), (".pyi", 1)]))
    for copy in ("build/lib", "dist/pkg"):
        for d in range(250):
            w.files(f"{copy}/p{d % 25}/m{d}", _names(rng, 20, [(".py", 6), (".json", 1)]))
    for d in range(500):
        w.files(f"node_modules/pkg{d}", _names(rng, 20, [(".js", 6), (".ts", 2), (".json", 1)]))
    w.files("logs", [f"run{i}.log" for i in range(2_000)])


def _sparse(w: _Writer) -> None:
    """60,000 files of a web project and 60 .py files, a dozen of them tests in src/."""
    rng = w.rng
    web = [(".ts", 10), (".tsx", 6), (".json", 3), (".css", 2), (".md", 1), (".svg", 2)]
    for d in range(3_000):
        w.files(f"{rng.choice(['src', 'packages', 'apps'])}/g{d % 60}/d{d}", _names(rng, 20, web))
    w.files("scripts", _names(rng, 48, [(".py", 1)]))
    w.files("src/tools", [f"test_tool_{i}.py" for i in range(12)])


def _uniform(w: _Writer) -> None:
    """bench_grep.py's tree: every directory alike (see :func:`make_tree`)."""
    for top in TOP_DIRS:
        for p in range(PACKAGES):
            for m in range(MODULES):
                w.files(f"{top}/pkg{p}/mod{m}", FILES_PER_DIR)


#: Every shape by name, in the order they run.
SHAPES: dict[str, Callable[[_Writer], None]] = {
    "issue": _issue,
    "deep": _deep,
    "flat": _flat,
    "ignored": _ignored,
    "sparse": _sparse,
}


def make_shape(root: Path, shape: str, seed: int = 6) -> int:
    """Write the tree ``shape`` (a key of :data:`SHAPES`, or ``uniform``) under ``root``;
    return how many files it has."""
    writer = _Writer(root, random.Random(f"{shape}-{seed}"))
    (SHAPES.get(shape) or _uniform)(writer)
    return writer.finish()


def make_tree(root: Path) -> int:
    """Write the uniform tree of bench_grep.py (100,000 files in 5,000 directories,
    build/ ignored, seed 6); return how many files it has."""
    writer = _Writer(root, random.Random(6))
    _uniform(writer)
    return writer.finish()


def rg_sorted(rg: str, root: Path, pattern: str) -> list[str]:
    """The floor: ``rg --files -g PATTERN``, then a stat of each file, newest first."""
    out = subprocess.run(
        [rg, "--files", "--null", "-g", pattern], cwd=root, capture_output=True, check=False
    ).stdout
    paths = os.fsdecode(out).split("\0")[:-1]
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        dated = [(-os.stat(path, dir_fd=fd).st_mtime_ns, path) for path in paths]
    finally:
        os.close(fd)
    dated.sort()
    return [path for _, path in dated]


def measure(rg: str, root: Path, label: str, rounds: int) -> bool:
    """Print the lines of every pattern on the tree at ``root``; True if all pass."""
    registry = registry_from(toolplug_glob)
    [tool] = registry.resolve(Tool("glob", {"engine": "ripgrep"}), ToolContext(workspace=root))
    passed = True
    for pattern in PATTERNS:
        arguments = {"pattern": pattern}
        first = tool.call(arguments)
        assert not first.is_error, first.text
        listed = len(rg_sorted(rg, root, pattern))
        print(f"  {pattern}: {first.total:,} matches (rg -g lists {listed:,})")
        medians = interleaved(
            {
                "ours": lambda a=arguments: tool.call(a),
                "floor": lambda p=pattern: rg_sorted(rg, root, p),
                "rg": lambda p=pattern: subprocess.run(
                    [rg, "--files", "-g", p], cwd=root, capture_output=True, check=False
                ),
            },
            rounds,
        )
        print(f"  (rg alone {medians['rg'] * 1000:.1f} ms; the floor is rg and a sort)")
        passed &= report("glob", f"{label} {pattern!r}", medians["ours"], medians["floor"], TARGET)
    return passed


def main(argv: list[str] | None = None) -> int:
    """Make each shape (or take ``--tree``), measure it, remove it; 1 if any missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=6, help="seed of the generated trees")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="alternating rounds")
    parser.add_argument("--shape", action="append", choices=[*SHAPES, "uniform"])
    parser.add_argument("--tree", type=Path, help="measure this tree instead (read only)")
    args = parser.parse_args(argv)
    rg = find_ripgrep()
    if rg is None:
        raise SystemExit("no rg binary found: pip install ripgrep (or toolplug-glob)")
    print(f"rg: {rg}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.tree is not None:
        root = args.tree.resolve()
        print(f"tree {root}")
        passed = measure(rg, root, "tree", args.rounds)
        save("bench_glob")
        return 0 if passed else 1
    verdicts = {}
    for shape in args.shape or list(SHAPES):
        tmp = Path(tempfile.mkdtemp(prefix=f"bench-glob-{shape}-"))
        try:
            started = time.perf_counter()
            count = make_shape(tmp, shape, args.seed)
            os.sync()  # flush the new tree now, so disk writeback does not run during timing
            made = time.perf_counter() - started
            print(f"shape {shape}: {count:,} files (seed {args.seed}, {made:.1f} s to make)")
            verdicts[shape] = measure(rg, tmp, shape, args.rounds)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    save("bench_glob")
    missed = [shape for shape, ok in verdicts.items() if not ok]
    print(f"missed on: {', '.join(missed)}" if missed else "every shape passed")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
