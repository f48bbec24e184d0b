"""What a hostile or unlucky tree and pattern do to the glob tool, through the real tool.

Each test builds a real tree (non-UTF-8 names made from bytes, symbolic links out of
the workspace, ignored directories named in the pattern) and calls the tool as a host
would, with each engine: hostile patterns and paths (NUL, deep braces, huge ones) and
timeouts that bound nothing must get a clear answer, never an exception. One test
serves the tool over MCP on 127.0.0.1 (when toolplug-mcp is installed); the property
test at the end compares the two engines on random trees, ignore files, links,
patterns and paths.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import toolplug_glob
from conftest import make_tree, write
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from toolplug import Tool, ToolContext
from toolplug.formats import render
from toolplug.testing import params_listing, registry_from, run_toolplug
from toolplug_glob.ripgrep import find_ripgrep

HAS_RG = find_ripgrep() is not None
needs_rg = pytest.mark.skipif(not HAS_RG, reason="no rg binary")

# -- names that are not UTF-8 ---------------------------------------------------------


def _bad_name_tree(root: Path) -> None:
    """A tree with a file and a directory whose names are Latin-1 bytes, not UTF-8."""
    base = os.fsencode(root)
    os.mkdir(base + b"/d\xe9j\xe0")
    for name in (b"/caf\xe9.py", b"/d\xe9j\xe0/inner.py", b"/plain.py"):
        with open(base + name, "wb"):
            pass


def test_a_non_utf8_name_is_shown_escaped(tmp_path: Path, make_tool) -> None:
    _bad_name_tree(tmp_path)
    observation = make_tool(tmp_path).call({"pattern": "**/*.py"})
    assert not observation.is_error, observation.text
    assert sorted(observation.files) == ["caf\\xe9.py", "d\\xe9j\\xe0/inner.py", "plain.py"]
    # Every text the host may send on is strict UTF-8: the text and the typed fields.
    observation.text.encode("utf-8")
    json.dumps(observation.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
    encoded = json.dumps(render(observation, "mcp"), ensure_ascii=False).encode("utf-8")
    assert "caf\\xe9.py" in json.loads(encoded)["structuredContent"]["files"]
    # The shown name is for reading; a wildcard finds the file again.
    assert make_tool(tmp_path).call({"pattern": "caf?.py"}).files == ["caf\\xe9.py"]


def test_a_non_utf8_name_in_a_no_match_and_a_problem_note(tmp_path: Path, make_tool) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    locked = os.fsencode(workspace) + b"/l\xf6cked"
    os.mkdir(locked)
    os.chmod(locked, 0)
    try:
        observation = make_tool(workspace).call({"pattern": "**/*.nothing"})
    finally:
        os.chmod(locked, 0o755)
    assert not observation.is_error, observation.text
    observation.text.encode("utf-8")
    if os.geteuid() != 0:  # root reads every directory: no problem to report
        assert "l\\xf6cked" in observation.text


def test_a_non_utf8_workspace_name(tmp_path: Path, make_tool) -> None:
    workspace = os.fsencode(tmp_path) + b"/w\xf8rk"
    os.mkdir(workspace)
    open(workspace + b"/a.py", "wb").close()
    observation = make_tool(Path(os.fsdecode(workspace))).call({"pattern": "**/*.py"})
    assert observation.files == ["a.py"]
    assert observation.search_dir.endswith("/w\\xf8rk")
    json.dumps(render(observation, "mcp"), ensure_ascii=False).encode("utf-8")
    missing = make_tool(Path(os.fsdecode(workspace))).call({"pattern": "x/**", "path": "nope"})
    assert missing.is_error
    missing.text.encode("utf-8")


# -- links out of the workspace -------------------------------------------------------


def _linked_tree(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    make_tree(workspace, {"src/a.py": 1, "b/other.py": 2})
    make_tree(tmp_path / "outside", {"secret.py": 3, "deep/more.py": 4})
    os.symlink("/", workspace / "root")  # the whole file system
    os.symlink(tmp_path / "outside", workspace / "out")
    os.symlink(tmp_path / "outside" / "secret.py", workspace / "leak.py")
    return workspace


def test_links_out_of_the_workspace_are_not_followed(tmp_path: Path, make_tool) -> None:
    workspace = _linked_tree(tmp_path)
    # A timeout far above the walk of this small tree, far below a walk of "/".
    tool = make_tool(workspace, timeout=30)
    for pattern in ("**/*", "**/*.py", "root/**/*.py", "out/**"):
        observation = tool.call({"pattern": pattern})
        assert not observation.is_error or "outside the workspace" in observation.text, (
            pattern,
            observation.text,
        )
        found = getattr(observation, "files", [])
        assert all(f in ("src/a.py", "b/other.py") for f in found), pattern
    assert sorted(tool.call({"pattern": "**/*.py"}).files) == ["b/other.py", "src/a.py"]


def test_links_are_followed_when_outside_is_allowed(tmp_path: Path, make_tool) -> None:
    workspace = _linked_tree(tmp_path)
    (workspace / "root").unlink()  # following "/" would only measure the machine
    tool = make_tool(workspace, allow_outside_workspace=True)
    found = sorted(tool.call({"pattern": "**/*.py"}).files)
    assert found == [
        "b/other.py",
        "leak.py",
        "out/deep/more.py",
        "out/secret.py",
        "src/a.py",
    ]


# -- the two engines agree ------------------------------------------------------------


def _both(workspace: Path, **params: object) -> tuple[object, object]:
    registry = registry_from(toolplug_glob)
    context = ToolContext(workspace=workspace)
    params = {"default_limit": 10_000, **params}
    [fast] = registry.resolve(Tool("glob", {**params, "engine": "ripgrep"}), context)
    [portable] = registry.resolve(Tool("glob", {**params, "engine": "python"}), context)
    return fast, portable


def _ignored_build(root: Path) -> None:
    make_tree(
        root,
        {
            "src/a.py": 1,
            "build/x.py": 2,
            "build/inner/z.py": 3,
            "build/inner/skip.log": 4,
            "build/gen/y.py": 5,
            "lib/build/w.py": 6,
        },
    )
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build" / ".gitignore").write_text("gen/\n")


@needs_rg
@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        # A directory named in the pattern (or as path) is searched even when a rule
        # above it ignores it; the ignore files above it are then left out, and those
        # in it and below it apply.
        ("build/**", None, ["build/inner/skip.log", "build/inner/z.py", "build/x.py"]),
        ("build/**/*.py", None, ["build/inner/z.py", "build/x.py"]),
        ("build/inner/*", None, ["build/inner/skip.log", "build/inner/z.py"]),
        ("build/gen/*.py", None, ["build/gen/y.py"]),
        ("**/*.py", "build", ["inner/z.py", "x.py"]),
        # A directory reached through a wildcard stays ignored.
        ("**/build/**", None, []),
        ("**/*.py", None, ["src/a.py"]),
    ],
)
def test_engines_agree_on_ignored_directories_named_in_the_pattern(
    tmp_path: Path, pattern: str, path: str | None, expected: list[str]
) -> None:
    _ignored_build(tmp_path)
    fast, portable = _both(tmp_path)
    arguments = {"pattern": pattern, **({"path": path} if path else {})}
    got_fast = fast.call(arguments)
    got_portable = portable.call(arguments)
    assert not got_fast.is_error and not got_portable.is_error, got_fast.text
    assert sorted(got_fast.files) == expected, got_fast.text
    assert sorted(got_portable.files) == expected, got_portable.text


@needs_rg
def test_engines_agree_when_git_exclude_names_the_directory(tmp_path: Path) -> None:
    make_tree(tmp_path, {"build/a.py": 1, "build/in/b.py": 2, "build/c.log": 3, "src/d.py": 4})
    write(tmp_path, "src/e.log", age=5)
    write(tmp_path, ".git/info/exclude", text="build/\n*.log\n")
    fast, portable = _both(tmp_path)
    for pattern, expected in [
        ("build/**", ["build/a.py", "build/c.log", "build/in/b.py"]),
        ("src/**", ["src/d.py"]),
        ("**/*", ["src/d.py"]),
    ]:
        assert sorted(fast.call({"pattern": pattern}).files) == expected, pattern
        assert sorted(portable.call({"pattern": pattern}).files) == expected, pattern


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"pattern": "**/*.py\0"}, "NUL"),
        ({"pattern": "src/\0/*.py"}, "NUL"),
        ({"pattern": "*.py", "path": "src\0"}, "NUL"),
        ({"pattern": "~\0x/*.py"}, "NUL"),
        ({"pattern": "*.py", "path": "a" * 100_000}, "characters in all"),
        ({"pattern": "~" + "a" * 100_000 + "/*"}, ""),
        ({"pattern": "{" * 4000 + "a" + "}" * 4000}, "nest"),
        ({"pattern": "{" * 5000}, "nest"),
        ({"pattern": "{" * 5000 + "a" + "}" * 5000}, "at most 10,000"),
        ({"pattern": "[" * 5000}, "never closed"),
        ({"pattern": "**/" * 3000 + "*.py"}, ""),
        ({"pattern": "a" * 100_000}, "at most 10,000"),
    ],
)
def test_hostile_patterns_get_a_clear_answer(
    tmp_path: Path, make_tool, arguments: dict[str, str], expected: str
) -> None:
    make_tree(tmp_path, {"src/a.py": 1, "a.py": 2})
    observation = make_tool(tmp_path).call(arguments)
    if expected:
        assert observation.is_error, observation.text
        assert expected in observation.text, observation.text
    assert "Traceback" not in observation.text and "RecursionError" not in observation.text
    assert len(observation.text) < 20_000
    observation.text.encode("utf-8")


def _brace_list(count: int) -> str:
    """``**/{m0,m1,...}.py``: one pattern naming ``count`` files."""
    return "**/{" + ",".join(f"m{i}" for i in range(count)) + "}.py"


@needs_rg
@pytest.mark.parametrize(
    "pattern",
    [
        "**/*.py\0",
        "{" * 4000 + "a" + "}" * 4000,
        # Past the OS's limit on one argument of ripgrep's command line (128 kB), and a
        # minute to compile and match: both engines refuse it the same way, at once.
        _brace_list(30_000),
        "*" * 1_000_000,
    ],
)
def test_engines_give_the_same_error(tmp_path: Path, pattern: str) -> None:
    make_tree(tmp_path, {"a.py": 1})
    fast, portable = _both(tmp_path)
    got_fast, got_portable = fast.call({"pattern": pattern}), portable.call({"pattern": pattern})
    assert got_fast.is_error and got_portable.is_error
    assert got_fast.text == got_portable.text


@needs_rg
def test_engines_agree_on_the_longest_pattern_taken(tmp_path: Path) -> None:
    from toolplug_glob.patterns import MAX_PATTERN

    make_tree(tmp_path, {f"d{i % 7}/m{i}.py": i for i in range(0, 3000, 3)})
    count = 1
    while len(_brace_list(count + 1)) <= MAX_PATTERN:
        count += 1
    pattern = _brace_list(count)
    fast, portable = _both(tmp_path)
    got_fast, got_portable = fast.call({"pattern": pattern}), portable.call({"pattern": pattern})
    assert not got_fast.is_error, got_fast.text
    assert got_fast.files == got_portable.files
    assert got_fast.total == len([i for i in range(0, 3000, 3) if i < count])


# -- timeouts from the params and from the host --------------------------------------


def _hostile_ignore(directory: Path, rules: int) -> None:
    """A ``.gitignore`` of ``rules`` rules, each of which a ``.py`` file may meet."""
    lines = (f"gen{i}/*.py" if i % 2 else f"file{i}.py" for i in range(rules))
    (directory / ".gitignore").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("where", ["workspace", "parent"])
def test_a_huge_ignore_file_cannot_outlast_the_timeout(
    tmp_path: Path, make_tool, where: str
) -> None:
    # ripgrep reads 2,000 rules in a blink, but checking 10,000 files in one directory
    # against each of them took the tool 15-30 s with timeout=2 (20,000 rules: minutes).
    # The timeout now bounds every phase: reading rules, walking, re-checking, dating.
    # 20,000 rules make that work take minutes on any machine (2,000 rules with a
    # timeout of 2 s were checked in time by a quick, quiet one), so the call must stop
    # on its timeout, not finish.
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for i in range(10_000):
        (workspace / f"m{i}.py").touch()
    _hostile_ignore(workspace if where == "workspace" else tmp_path, 20_000)
    observation = make_tool(workspace, timeout=2).call({"pattern": "**/*.py"})
    assert observation.is_error, observation.text[:300]
    # ripgrep may also give up first, on a machine quick enough to compile the rules
    # within the 2 s: it cannot build a glob set that large. Either way the call ends.
    assert (
        "longer than 2 seconds" in observation.text or "failed to compile Set" in observation.text
    ), observation.text[:300]


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), -1.0, 0.0, 1e300])
def test_a_timeout_param_that_is_no_bound_is_refused(
    tmp_path: Path, make_tool, timeout: float
) -> None:
    from toolplug import ToolParamsError

    with pytest.raises(ToolParamsError, match="timeout"):
        make_tool(tmp_path, timeout=timeout)


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), -1.0, 1e300])
def test_a_host_timeout_that_is_no_bound_still_searches(
    tmp_path: Path, engine: str, timeout: float
) -> None:
    make_tree(tmp_path, {"a.py": 1})
    registry = registry_from(toolplug_glob)
    context = ToolContext(workspace=tmp_path, timeout=timeout)
    [tool] = registry.resolve(Tool("glob", {"engine": engine}), context)
    observation = tool.call({"pattern": "**/*.py"})
    assert not observation.is_error, observation.text
    assert observation.files == ["a.py"]


# -- a property: the engines keep the same files on random trees and patterns ----------

_DIRS = ["src", "lib", "build", "a", ".h", "b{c}"]
_NAMES = ["a.py", "b.md", "test_c.py", "d.txt", ".e.py", "f.log", "keep.log", "x", "[y].py"]
_RULES = ["build/", "*.log", "!keep.log", "/a/", "*.md", "src/*.txt", "lib/", "x"]
#: The rules anchored to their .gitignore's directory (a slash before the end).
_ANCHORED = {"/a/", "src/*.txt"}
_PREFIXES = ["", "**/", "*/", "src/", "build/", "lib/build/", "{src,lib}/**/", ".h/", "a/**/"]
_MIDDLES = ["", "**/", "*/", "build/", "[ab]/", "{a,build}/"]
_LASTS = [
    "*",
    "**",
    "*.py",
    "?.py",
    "*.{py,md}",
    "[ab]*",
    "[!t]*.py",
    "test_*",
    "*.log",
    "keep.log",
    "x",
    "\\[y].py",
    ".e.py",
    "*.gitignore",
]

_trees = st.lists(
    st.tuples(st.lists(st.sampled_from(_DIRS), max_size=2), st.sampled_from(_NAMES)),
    min_size=8,
    max_size=40,
)
_ignores = st.dictionaries(
    st.sampled_from(["", "src", "build", "lib/build", "a"]),
    st.lists(st.sampled_from(_RULES), min_size=1, max_size=4),
    max_size=3,
)
_patterns = st.builds(
    "".join, st.tuples(*(st.sampled_from(part) for part in (_PREFIXES, _MIDDLES, _LASTS)))
)


@needs_rg
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    tree=_trees,
    ignores=_ignores,
    patterns=st.lists(_patterns, min_size=1, max_size=4),
    path=st.sampled_from([None, None, None, "src", "build", "lib/build"]),
    link=st.sampled_from([None, "src", "..", "/"]),
)
def test_engines_agree_on_random_trees_and_patterns(
    tmp_path_factory: pytest.TempPathFactory,
    tree: list[tuple[list[str], str]],
    ignores: dict[str, list[str]],
    patterns: list[str],
    path: str | None,
    link: str | None,
) -> None:
    # A known bug, pinned by test_a_parent_ignore_files_anchored_rule_below_the_path:
    # left out here so that this property keeps checking everything else.
    assume(not (path and any(rule in _ANCHORED for rule in ignores.get("", []))))
    root = tmp_path_factory.mktemp("tree")
    for age, (dirs, name) in enumerate(tree):
        write(root, "/".join([*dirs, name]), age=age)
    for directory, rules in ignores.items():
        (root / directory).mkdir(parents=True, exist_ok=True)
        (root / directory / ".gitignore").write_text("\n".join(rules) + "\n")
    if link is not None:  # a link inside, or out of the workspace: neither is followed
        os.symlink(link, root / "ln")
    fast, portable = _both(root)
    for pattern in patterns:
        arguments = {"pattern": pattern, **({"path": path} if path else {})}
        expected, got = fast.call(arguments), portable.call(arguments)
        assert got.is_error == expected.is_error, (arguments, expected.text, got.text)
        if expected.is_error:
            assert got.text == expected.text
        else:
            assert got.files == expected.files, (arguments, expected.text, got.text)


@needs_rg
@pytest.mark.xfail(
    strict=True,
    reason="known bug: ripgrep applies a parent directory's anchored .gitignore rule "
    "relative to the searched subdirectory, and the fast engine inherits it",
)
def test_a_parent_ignore_files_anchored_rule_below_the_path(tmp_path: Path) -> None:
    """Found by the property above on 2026-11-24: the root's `src/*.txt` ignores
    `src/x.txt` only, as git reads it; searching in `src`, ripgrep also drops
    `src/src/d.txt` (the portable engine keeps it, as git does)."""
    make_tree(tmp_path, {"src/src/d.txt": 1, "src/x.txt": 2})
    (tmp_path / ".gitignore").write_text("src/*.txt\n")
    fast, portable = _both(tmp_path)
    arguments = {"pattern": "**", "path": "src"}
    assert portable.call(arguments).files == ["src/d.txt"]
    assert fast.call(arguments).files == ["src/d.txt"]


# -- control characters in names --------------------------------------------------------

#: Names a terminal would act on: an OSC title, a colour, a reversed extension, a newline.
HOSTILE_NAMES = [
    "t\x1b]0;owned\x07.py",
    "c\x1b[31mred.py",
    "x\u202eyp.txt.py",
    "two\nlines.py",
    "b\x9b2Jell.py",
]


def test_control_characters_in_names_are_escaped_in_the_text(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {name: age for age, name in enumerate(HOSTILE_NAMES)})
    observation = make_tool(tmp_path).call({"pattern": "**/*.py"})
    assert not observation.is_error, observation.text
    # The typed field keeps the exact names; the text shows each on one line.
    assert observation.files == HOSTILE_NAMES
    for raw in ("\x1b", "\x07", "\u202e", "\x9b"):
        assert raw not in observation.text
    lines = observation.text.splitlines()
    assert lines[1:] == [
        "t\\x1b]0;owned\\x07.py",
        "c\\x1b[31mred.py",
        "x\\u202eyp.txt.py",
        "two\\nlines.py",
        "b\\x9b2Jell.py",
    ]


def test_control_characters_in_a_missing_directory_are_escaped(tmp_path: Path, make_tool) -> None:
    observation = make_tool(tmp_path).call({"pattern": "d\x1b]0;x\x07\u202e/*.py"})
    assert not observation.is_error, observation.text
    assert "does not exist" in observation.text
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in observation.text
    assert "d\\x1b]0;x\\x07\\u202e" in observation.text


# -- the syntax grep and the policy share (docs/globs.md) -----------------------------


@needs_rg
def test_both_engines_read_braces_and_classes_as_wcmatch_does(tmp_path: Path) -> None:
    """ripgrep sees only the name part of a pattern, and reads ``{a}`` as ``a``: such a
    name is not handed to it, so both engines find the file named ``{a}.py``."""
    make_tree(tmp_path, {"src/{a}.py": 1, "src/a.py": 2, "src/a1.py": 3, "src/.b.py": 4})
    fast, portable = _both(tmp_path)
    for pattern, expected in [
        ("**/{a}.py", ["src/{a}.py"]),
        ("src/a[[:digit:]].py", ["src/a1.py"]),
        ("src/{a,a1}.py", ["src/a.py", "src/a1.py"]),
    ]:
        assert sorted(fast.call({"pattern": pattern}).files) == expected, pattern
        assert sorted(portable.call({"pattern": pattern}).files) == expected, pattern


def test_a_brace_bomb_is_refused_at_once(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"a.py": 1})
    observation = make_tool(tmp_path).call({"pattern": "**/" + "{a,b}" * 20 + ".py"})
    assert observation.is_error
    assert "expands to more than 10,000 patterns" in observation.text, observation.text


# -- params: described and bounded in create()'s annotations -------------------------------


def test_every_param_is_described_in_the_params_listing() -> None:
    properties = params_listing("glob", plugins="glob")
    assert properties
    assert [n for n, p in properties.items() if not p.get("description")] == []


def test_a_param_out_of_its_range_is_refused_by_name(tmp_path: Path) -> None:
    done = run_toolplug(
        "call", "glob", "{}", "--param", "timeout=Infinity", plugins="glob", cwd=tmp_path
    )

    assert done.returncode == 2
    assert "Invalid params for tool 'glob'" in done.stderr and "- timeout: " in done.stderr
