"""The ripgrep engine and the portable one give the same answers on random trees."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import EPOCH, build
from hypothesis import HealthCheck, given, settings, strategies as st
from toolplug_grep.globs import FILE_TYPES
from toolplug_grep.ripgrep import find_ripgrep, type_list

pytestmark = pytest.mark.skipif(find_ripgrep() is None, reason="no rg binary")

DIRS = ["src", "sub", "build", "x", ".hid", "deep"]
NAMES = ["a.txt", "b.txt", "keep.log", "x.log", "top.md", "a.md", "c.py", ".h.txt", "d.px"]
LINES = ["alpha", "beta gamma", "TODO fix", "alpha beta", "", "Gamma", "x" * 700 + " alpha"]
RULES = [
    "*.log",
    "build/",
    "!keep.log",
    "src/*.txt",
    "/top.md",
    "x/",
    "*.p[yx]",
    "sub/**/a.txt",
    "!src/b.txt",
    "[ab].md",
    "deep",
    "!deep/",
]
PATTERNS = ["alpha", "beta|gamma", "^alpha", "TODO", "a$", "(?i)gamma", "[ab]eta", r"\bx+\b"]

files_strategy = st.dictionaries(
    st.tuples(st.lists(st.sampled_from(DIRS), max_size=3), st.sampled_from(NAMES)).map(
        lambda t: "/".join([*t[0], t[1]])
    ),
    st.one_of(
        st.lists(st.sampled_from(LINES), min_size=1, max_size=8).map("\n".join),
        st.just(None),  # a binary file
    ),
    min_size=1,
    max_size=25,
)
ignores_strategy = st.dictionaries(
    st.sampled_from(["", "src/", "sub/", "deep/"]).flatmap(
        lambda d: st.sampled_from([".gitignore", ".ignore", ".rgignore"]).map(lambda n: d + n)
    ),
    st.lists(st.sampled_from(RULES), min_size=1, max_size=4).map("\n".join),
    max_size=3,
)
arguments_strategy = st.fixed_dictionaries(
    {
        "pattern": st.sampled_from(PATTERNS),
        "output_mode": st.sampled_from(["files_with_matches", "content", "count"]),
        "case_insensitive": st.booleans(),
        "include_hidden": st.booleans(),
        "no_ignore": st.booleans(),
    },
    optional={
        "path": st.sampled_from(["src", "sub", "deep", "src/sub", "build", "x/deep"]),
        "glob": st.sampled_from(["*.txt", "src/**", "*.{md,py}", "**/a.*", "[ab]*"]),
        "type": st.sampled_from(["py", "txt", "md"]),
        "limit": st.integers(1, 6),
        "offset": st.integers(0, 4),
    },
)


def _make(root: Path, files: dict[str, str | None], ignores: dict[str, str]) -> None:
    for age, (rel, text) in enumerate(sorted(files.items())):
        path = root / rel
        if path.parent.is_file():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            continue
        path.write_bytes(b"\0alpha\n" if text is None else text.encode() + b"\n")
        os.utime(path, (EPOCH - age, EPOCH - age))
    for rel, rules in ignores.items():
        path = root / rel
        if path.parent.is_file():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rules + "\n")


def _answer(tool: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    observation = tool.call(arguments)
    if observation.is_error:
        return {"error": observation.text.split(":")[0]}
    data = observation.structured_content() or {}
    return {key: data.get(key) for key in ("files", "counts", "lines", "total", "next_offset")}


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(files_strategy, ignores_strategy, st.lists(arguments_strategy, min_size=1, max_size=4))
def test_engines_agree_on_random_trees(files, ignores, calls) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        _make(root, files, ignores)
        fast, portable = build(root, "ripgrep"), build(root, "python")
        for arguments in calls:
            if arguments.get("output_mode") == "content" and arguments["pattern"] == "a$":
                arguments = {**arguments, "context": 1}
            assert _answer(portable, arguments) == _answer(fast, arguments), arguments


def test_multiline_agrees(tmp_path: Path) -> None:
    text = "alpha\nbeta\n\nalpha beta\nbeta\ngamma\n"
    (tmp_path / "a.txt").write_text(text)
    (tmp_path / "b.txt").write_text("alpha\nalpha\nbeta\n")
    fast, portable = build(tmp_path, "ripgrep"), build(tmp_path, "python")
    for pattern in [r"alpha\nbeta", r"a\n+b", r"beta\ngamma\n", r"(?s)alpha.*gamma"]:
        for mode in ("files_with_matches", "content", "count"):
            arguments = {"pattern": pattern, "multiline": True, "output_mode": mode}
            assert _answer(portable, arguments) == _answer(fast, arguments), arguments


def test_portable_file_types_are_ripgreps() -> None:
    rg = find_ripgrep()
    assert rg is not None
    known = type_list(rg)
    for name, globs in FILE_TYPES.items():
        assert set(globs.split(", ")) == set(known[name].split(", ")), name


def test_auto_engine_prefers_ripgrep() -> None:
    from toolplug_grep import choose_engine

    assert choose_engine("auto").name == "ripgrep"
    assert choose_engine("python").name == "python"
