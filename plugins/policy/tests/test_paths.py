"""Path globs and argument paths on their own: what each form matches."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# wcmatch is imported at the first glob compiled (toolplug.globs); imported here, so that
# hypothesis does not time the 50-300 ms import as part of the first example.
import wcmatch.glob  # noqa: F401
from hypothesis import given, strategies as st
from toolplug_policy.paths import (
    GlobError,
    ResolvedPath,
    Resolver,
    compile_glob,
    compile_paths,
    resolve,
)
from toolplug_policy.rules import ArgumentMatch, parse_argument_path, values_at


def inside(relative: str) -> ResolvedPath:
    return ResolvedPath("/ws/" + relative if relative else "/ws", relative)


@pytest.mark.parametrize(
    ("glob", "yes", "no"),
    [
        ("*.md", ["README.md", ".hidden.md"], ["docs/a.md", "README.mdx"]),
        ("**/*.md", ["README.md", "docs/a.md", "a/b/c.md"], ["README.txt"]),
        ("src/**", ["src", "src/a.py", "src/deep/er/b.py", "src/.env"], ["srcx", "lib/src/a"]),
        ("**", ["", "a", "a/b/c"], []),
        ("**/.env", [".env", "src/.env", "a/b/.env"], ["src/.envrc", "src/x.env"]),
        ("src/*/test_?.py", ["src/a/test_1.py"], ["src/test_1.py", "src/a/b/test_1.py"]),
        ("a/**/b", ["a/b", "a/x/b", "a/x/y/b"], ["a/xb", "ab"]),
        ("[abc]*.py", ["a.py", "cat.py"], ["d.py"]),
        ("[!a]*.py", ["b.py"], ["a.py"]),
        ("\\*.py", ["*.py"], ["a.py"]),
        (".", [""], ["a"]),
        ("./src/**", ["src/a"], ["a"]),
    ],
)
def test_relative_globs(glob: str, yes: list[str], no: list[str]) -> None:
    compiled = compile_glob(glob)
    for path in yes:
        assert compiled.matches(inside(path)), (glob, path)
    for path in no:
        assert not compiled.matches(inside(path)), (glob, path)


def test_relative_globs_never_match_outside_the_workspace() -> None:
    outside = ResolvedPath("/etc/passwd", None)
    assert not compile_glob("**").matches(outside)
    assert compile_glob("/etc/*").matches(outside)
    assert compile_glob("/**").matches(outside)
    assert not compile_glob("/etc/*").matches(ResolvedPath("/etc/ssl/x", None))
    assert compile_glob("/etc/**").matches(ResolvedPath("/etc/ssl/x", None))


def test_home_globs_are_absolute() -> None:
    glob = compile_glob("~/.ssh/**")
    assert glob.absolute
    home = os.path.expanduser("~")
    assert glob.matches(ResolvedPath(f"{home}/.ssh/id_ed25519", None))


def test_exclusions() -> None:
    paths = compile_paths(["src/**", "tests/**", "!**/.env", "!src/secret/**"])
    assert paths.matches(inside("src/a.py")) and paths.matches(inside("tests/t.py"))
    for path in ["src/.env", "tests/x/.env", "src/secret/key", "lib/a.py"]:
        assert not paths.matches(inside(path)), path


@pytest.mark.parametrize(
    ("glob", "problem"),
    [
        ("", "is empty"),
        ("!", "is empty"),
        ("a\0b", "NUL"),
        ("src/[a", "never closed"),
        ("src/[z-a]", "backwards range"),
        ("../x", "holds '..'"),
        ("a\\", "lone '\\'"),
    ],
)
def test_bad_globs(glob: str, problem: str) -> None:
    with pytest.raises(GlobError, match=problem.replace("\\", "\\\\").replace("(", "\\(")):
        compile_glob(glob)


def test_resolve_follows_links_and_dots(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "up").symlink_to(tmp_path)
    real = os.path.realpath(workspace)
    assert resolve("src/../README.md", real) == ResolvedPath(f"{real}/README.md", "README.md")
    assert resolve(".", real) == ResolvedPath(real, "")
    outside = resolve("src/up/x", real)
    assert outside.relative is None and outside.absolute == f"{os.path.realpath(tmp_path)}/x"
    assert resolve(f"{real}/src/a", real).relative == "src/a"
    assert resolve(f"{real}x/a", real).relative is None  # a sibling that shares a prefix


# A resolved relative path has no "." or ".." segments.
SEGMENT = st.text(alphabet="abc.-_*?[", min_size=1, max_size=4).filter(lambda s: s.strip("."))


@given(st.lists(SEGMENT, min_size=1, max_size=5))
def test_double_star_matches_every_relative_path(segments: list[str]) -> None:
    relative = "/".join(segments)
    assert compile_glob("**").matches(inside(relative))
    top = "".join("\\" + c if c in "*?[" else c for c in segments[0])
    assert compile_glob(f"{top}/**").matches(inside(relative))
    assert not compile_glob(f"{top}x/**").matches(inside(relative))


def test_argument_paths() -> None:
    assert parse_argument_path("$.a.b[0]['c d'][*]") == ("a", "b", 0, "c d", None)
    data = {"a": {"b": [{"c d": [1, 2]}]}, "urls": ["x", "y"]}
    assert values_at(data, parse_argument_path("$.a.b[0]['c d'][*]")) == [1, 2]
    assert values_at(data, parse_argument_path("$.urls[5]")) == []
    assert values_at(data, parse_argument_path("$.missing.x")) == []


def test_argument_matches_any_for_deny_every_for_allow() -> None:
    match = ArgumentMatch("$.urls[*]", ("urls", None), ("https://*",))
    mixed = {"urls": ["https://a", "http://b"]}
    assert match.matches(mixed, every=False)
    assert not match.matches(mixed, every=True)
    assert match.matches({"urls": ["https://a"]}, every=True)
    assert not match.matches({"urls": []}, every=False)


def test_argument_values_are_typed() -> None:
    flag = ArgumentMatch("$.force", ("force",), (True,))
    assert flag.matches({"force": True}, every=True)
    assert not flag.matches({"force": 1}, every=True)
    assert not flag.matches({"force": "true"}, every=True)
    pattern = ArgumentMatch("$.n", ("n",), ("1*",))
    assert not pattern.matches({"n": 10}, every=True)  # a string pattern wants a string


def test_the_resolver_of_many_files_agrees_with_resolve(tmp_path: Path) -> None:
    """Resolving each directory once gives what resolving each path whole gives, links
    to files and to directories, in and out of the workspace, included."""
    workspace = tmp_path / "ws"
    (workspace / "src" / "deep").mkdir(parents=True)
    (workspace / ".env").write_text("x")
    (workspace / "src" / "a.py").write_text("x")
    (workspace / "src" / "deep" / "b.py").write_text("x")
    (workspace / "src" / "env.txt").symlink_to("../.env")
    (workspace / "src" / "up").symlink_to(tmp_path)
    (workspace / "linked").symlink_to("src/deep")
    (tmp_path / "out.txt").write_text("x")
    real = os.path.realpath(workspace)
    resolver = Resolver(real)
    for relative in [
        ".env",
        "src/a.py",
        "src/deep/b.py",
        "src/env.txt",
        "src/up/out.txt",
        "linked/b.py",
        "src/missing.py",
        "src",
    ]:
        path = f"{real}/{relative}"
        assert resolver(path) == resolve(path, real), relative
    assert resolver(f"{real}/src/env.txt").relative == ".env"
    assert resolver(f"{real}/linked/b.py").relative == "src/deep/b.py"
