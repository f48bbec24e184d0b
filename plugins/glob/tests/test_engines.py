"""The ripgrep engine and the Python walk keep the same files on the same tree."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import toolplug_glob
from conftest import make_tree
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from
from toolplug_glob.ripgrep import find_ripgrep

PATTERNS = ["**/*", "**/*.py", "src/**/test_*.py", "*.md", "**/*.{py,md}", "lib/*/[a-c]*"]


def _random_tree(root: Path) -> None:
    rng = random.Random(7)
    names = ["a.py", "b.md", "test_c.py", "d.txt", ".e.py", "f.log", "cache.py"]
    files = {}
    for i in range(150):
        depth = rng.randint(0, 3)
        parts = [rng.choice(["src", "lib", "x", "build", ".h", "pkg"]) for _ in range(depth)]
        files["/".join([*parts, rng.choice(names)])] = i
    make_tree(root, files)
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\n[bc].md\n*.p[yx]c\n")
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / ".gitignore").write_text("cache.py\n!x/cache.py\n/test_?.py\n")
    (root / "lib").mkdir(exist_ok=True)
    (root / "lib" / ".ignore").write_text("*.txt\n")


@pytest.mark.skipif(find_ripgrep() is None, reason="no rg binary")
@pytest.mark.parametrize("hidden", [False, True])
@pytest.mark.parametrize("ignored", [False, True])
def test_engines_agree(tmp_path: Path, hidden: bool, ignored: bool) -> None:
    _random_tree(tmp_path)
    registry = registry_from(toolplug_glob)
    context = ToolContext(workspace=tmp_path)
    params = {"include_hidden": hidden, "include_ignored": ignored, "default_limit": 10_000}
    [fast] = registry.resolve(Tool("glob", {**params, "engine": "ripgrep"}), context)
    [portable] = registry.resolve(Tool("glob", {**params, "engine": "python"}), context)
    for pattern in PATTERNS:
        expected = fast.call({"pattern": pattern})
        got = portable.call({"pattern": pattern})
        assert not expected.is_error, expected.text
        assert got.files == expected.files, pattern
        assert expected.total > 0 or pattern == "*.md", pattern


def test_auto_engine_prefers_ripgrep() -> None:
    from toolplug_glob import choose_engine

    expected = "ripgrep" if find_ripgrep() else "python"
    assert choose_engine("auto").name == expected
    assert choose_engine("python").name == "python"


def test_ripgrep_walks_with_a_thread_per_core() -> None:
    from toolplug_glob.listing import WalkOptions
    from toolplug_glob.ripgrep import rg_command

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    [threads] = [arg for arg in rg_command("rg", WalkOptions()) if arg.startswith("--threads=")]
    assert int(threads.removeprefix("--threads=")) == min(cores or 1, 12)
