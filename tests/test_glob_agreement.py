"""glob, grep and the policy read a glob the same way (docs/globs.md).

The three plugins compile globs with the core's one glob syntax, ``toolplug.globs``:
these tests check that each uses it, and, on generated globs and paths, that the three
tools match the same paths and refuse the same globs, as wcmatch itself matches them.
"""

from __future__ import annotations

import pytest
import toolplug.globs as core_globs
import toolplug_glob.patterns as glob_patterns
import toolplug_grep.globs as grep_globs
import toolplug_policy.paths as policy_paths
from hypothesis import example, given, settings, strategies as st
from toolplug_grep.query import PatternError as GrepPatternError
from wcmatch import glob as wcglob

MODULES = (glob_patterns, grep_globs, policy_paths)


def test_the_three_tools_use_the_one_glob_syntax() -> None:
    for module in MODULES:
        assert module.glob_regexes is core_globs.glob_regexes, module.__name__
        assert module.syntax_problem is core_globs.syntax_problem, module.__name__


def test_the_flags_are_wcmatchs_globstar_braces_dotglob_case() -> None:
    assert core_globs.FLAGS == ("GLOBSTAR", "BRACE", "DOTGLOB", "CASE")


def test_every_guard_is_replaced_by_its_plain_form() -> None:
    """A wcmatch release that words its guards differently fails here (the globs would
    still match the same paths, only slower), instead of slowing every search silently."""
    for glob in ("**/*.py", "[ab]/*", "src/**/test_*.py"):
        (regex,) = core_globs.glob_regexes(glob)
        assert "\\.{1,2}" not in regex, (glob, regex)  # the guard against . and ..
        assert "[/]+" not in regex and "[^/]*?" not in regex, (glob, regex)


def _flags() -> int:
    flags = 0
    for name in core_globs.FLAGS:
        flags |= getattr(wcglob, name)
    return flags


# -- generated globs and paths -------------------------------------------------------

# Paths as the tools see them: relative, normal (no empty, "." or ".." segment).
_NAME = st.text(alphabet="ab.-]", min_size=1, max_size=4).filter(lambda s: s not in (".", ".."))
PATHS = st.lists(_NAME, min_size=1, max_size=4).map("/".join)

_TOKENS = st.sampled_from(
    [
        "a", "b", ".", "-", "/", "*", "**", "?", "[ab]", "[!a]", "[^b]", "[a-b]", "[b-a]",
        "[]a]", "[.]", "[", "]", "{a,b}", "{a,b/a}", "{a,{b,.}}", "{", "}", ",", "\\*",
        "\\", "{a..b}", "[[:alpha:]]",
    ]
)  # fmt: skip


def _usable(glob: str) -> bool:
    """A relative glob that every tool takes as a pattern on paths (no '.'/'..' or
    empty segment, which the tools read in their own ways before matching)."""
    if not glob or glob.startswith(("/", "!", "~")) or glob.endswith("/"):
        return False
    return all(segment not in ("", ".", "..") for segment in glob.split("/"))


GLOBS = st.lists(_TOKENS, min_size=1, max_size=6).map("".join).filter(_usable)


def _glob_tool(glob: str, path: str) -> bool | None:
    """The glob tool's answer: whether ``path`` matches, None if it refuses the glob."""
    try:
        return glob_patterns.compile_glob(glob).fullmatch(path) is not None
    except glob_patterns.PatternError:
        return None


def _grep_tool(glob: str, path: str) -> bool | None:
    """grep's answer on ``path`` below the searched directory (a glob with no ``/`` is
    on file names at any depth)."""
    try:
        compiled = grep_globs.compile_glob(glob)
    except GrepPatternError:
        return None
    return compiled.matches(path, "")


def _policy(glob: str, path: str) -> bool | None:
    """The policy's answer for a call whose path resolves to ``path`` in the workspace."""
    try:
        compiled = policy_paths.compile_glob(glob)
    except policy_paths.GlobError:
        return None
    return compiled.matches(policy_paths.ResolvedPath(f"/ws/{path}", path))


@settings(max_examples=400, deadline=None)
@given(GLOBS, PATHS)
@example("**/*.py", "a/b.py")
@example("a/**", "a")
@example("*", ".a")
@example("{a,b/a}", "b/a")
@example("[b-a]", "a")
@example("a/*/b", "a/.b/b")
def test_the_three_tools_agree(glob: str, path: str) -> None:
    on_glob = _glob_tool(glob, path)
    on_grep = _grep_tool(glob, path)
    on_policy = _policy(glob, path)
    # The same globs are refused by all three.
    assert (on_glob is None) == (on_grep is None) == (on_policy is None), (on_glob, on_grep)
    if on_glob is None:
        return
    # A glob on paths: grep reads it as the glob tool does. Without '/', grep matches
    # the file name at any depth, as the glob tool matches "**/" + glob.
    if "/" in glob:
        assert on_grep == on_glob
    else:
        assert on_grep == _glob_tool(f"**/{glob}", path)
    # The policy also reads the path as a directory: "a/**" covers "a" itself.
    assert on_policy == (
        on_glob or glob_patterns.compile_glob(glob).fullmatch(path + "/") is not None
    )
    # And wcmatch, asked directly, gives the same answer as the regexes made from it.
    assert on_glob == wcglob.globmatch(path, glob, flags=_flags())


@pytest.mark.parametrize(
    ("glob", "problem"),
    [
        ("src/[a", "never closed"),
        ("x[z-a].py", "backwards range [z-a]"),
        ("**/{a,b", "never closed"),
        ("trailing\\", "lone '\\'"),
        ("{" * 40 + "a" + "}" * 40, "nests"),
        ("{a,b}" * 20, "more than 10,000 patterns"),
    ],
)
def test_the_three_tools_refuse_a_bad_glob_with_the_same_reason(glob: str, problem: str) -> None:
    for compile_glob, error in (
        (glob_patterns.compile_glob, glob_patterns.PatternError),
        (grep_globs.compile_glob, GrepPatternError),
        (policy_paths.compile_glob, policy_paths.GlobError),
    ):
        with pytest.raises(error) as raised:
            compile_glob(glob)
        assert problem in str(raised.value), (compile_glob.__module__, str(raised.value))
