"""The pattern compiler: literal prefixes, glob semantics, name globs, errors."""

from __future__ import annotations

import pytest
from toolplug_glob.patterns import (
    PatternError,
    compile_glob,
    directory_name_finder,
    name_glob,
    split_pattern,
)


@pytest.mark.parametrize(
    ("pattern", "prefix", "glob"),
    [
        ("**/*.py", "", "**/*.py"),
        ("src/**/test_*.py", "src", "**/test_*.py"),
        ("src/app/main.py", "src/app", "main.py"),
        ("/abs/dir/**/*.ts", "/abs/dir", "**/*.ts"),
        ("./a//b/*.md", "a/b", "*.md"),
        ("../up/*.py", "../up", "*.py"),
        ("{a,b}/c/*.py", "", "{a,b}/c/*.py"),
    ],
)
def test_split(pattern: str, prefix: str, glob: str) -> None:
    split = split_pattern(pattern)
    assert (split.prefix, split.glob) == (prefix, glob)


def test_names_hidden() -> None:
    assert split_pattern("**/.env").names_hidden
    assert split_pattern("src/.config/*.toml").names_hidden is False  # in the prefix
    assert split_pattern("*/.config/*.toml").names_hidden
    assert not split_pattern("**/*.py").names_hidden


@pytest.mark.parametrize(
    ("glob", "matches", "misses"),
    [
        ("*.py", ["a.py", ".py"], ["d/a.py", "a.pyc"]),
        ("**/*.py", ["a.py", "d/a.py", "d/e/a.py"], ["a.pyc", "d/a.py/x"]),
        ("a/**/b", ["a/b", "a/x/b", "a/x/y/b"], ["ab", "a/xb", "b"]),
        ("a/**", ["a/x", "a/x/y"], ["a", "b/x"]),
        ("**", ["x", "x/y/z"], []),
        ("a**b", ["ab", "axxb"], ["a/b"]),
        ("?.txt", ["a.txt"], ["ab.txt", "/.txt"]),
        ("[a-c]x", ["ax", "cx"], ["dx", "/x"]),
        ("[!a-c]x", ["dx"], ["ax", "/x"]),
        ("[]]x", ["]x"], ["x"]),
        ("{a,b/{c,d}}.md", ["a.md", "b/c.md", "b/d.md"], ["b.md", "c.md"]),
        ("\\*.txt", ["*.txt"], ["a.txt"]),
        ("a}.txt", ["a}.txt"], ["a.txt"]),
        ("{**/x,y}", ["x", "q/x", "y"], ["q/y"]),
    ],
)
def test_compile(glob: str, matches: list[str], misses: list[str]) -> None:
    regex = compile_glob(glob)
    for path in matches:
        assert regex.fullmatch(path), (glob, path)
    for path in misses:
        assert not regex.fullmatch(path), (glob, path)


@pytest.mark.parametrize("glob", ["[ab", "{a,b", "[z-a]", "x\\"])
def test_compile_errors(glob: str) -> None:
    with pytest.raises(PatternError):
        compile_glob(glob)


@pytest.mark.parametrize("pattern", ["", "  ", "dir/", "/", "**/../x"])
def test_split_errors(pattern: str) -> None:
    with pytest.raises(PatternError):
        split_pattern(pattern)


@pytest.mark.parametrize(
    ("glob", "name"),
    [
        ("**/*.py", "*.py"),
        ("src/**/test_*.{ts,tsx}", "test_*.{ts,tsx}"),
        ("**/*", None),
        ("src/**", None),
        ("{a/x.py,b/y.py}", None),
        ("**/{a,{b,c}}.py", None),
        ("**/\\*.py", None),
        ("**/[{].py", None),
    ],
)
def test_name_glob(glob: str, name: str | None) -> None:
    assert name_glob(glob) == name


@pytest.mark.parametrize(
    ("name", "joined", "found"),
    [
        ("*.py", "a/b.py\0c.py/d.txt", True),
        ("*.py", "a/b.py\0c/d.py", False),  # ".py" names only files
        ("*.py", "x.py\0y/z", False),  # a segment never spans the NUL
        ("test_?.py", "t/test_a.py/f\0g", True),
        ("[!a]*.py", "a.py/x\0b/c.py", False),
        ("{a,b}.md", "b.md/x", True),
    ],
)
def test_directory_name_finder(name: str, joined: str, found: bool) -> None:
    assert bool(directory_name_finder(name).search(joined)) is found
