"""The glob tool on real trees, with each engine: order, limits, ignores, hidden, links."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import make_tree, write
from toolplug.testing import validate_observation_exports

# -- matching and order ---------------------------------------------------------------


def test_newest_first_with_ties_by_path(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"old.py": 300, "new.py": 10, "b/mid.py": 100, "a/mid.py": 100})
    observation = make_tool(tmp_path).call({"pattern": "**/*.py"})
    assert not observation.is_error, observation.text
    assert observation.files == ["new.py", "a/mid.py", "b/mid.py", "old.py"]
    assert observation.total == 4 and not observation.truncated
    assert observation.search_dir == str(tmp_path.resolve())
    assert observation.text.splitlines()[1:] == observation.files
    validate_observation_exports(observation)


def test_glob_syntax(tmp_path: Path, make_tool) -> None:
    make_tree(
        tmp_path,
        {
            "top.py": 1,
            "src/app/main.py": 2,
            "src/app/test_main.py": 3,
            "src/test_root.py": 4,
            "web/a.ts": 5,
            "web/b.tsx": 6,
            "web/c.js": 7,
            "data/x1.csv": 8,
            "data/x2.csv": 9,
            "data/xa.csv": 10,
            "weird/{brace}.txt": 11,
        },
    )
    tool = make_tool(tmp_path)

    def found(pattern: str) -> list[str]:
        observation = tool.call({"pattern": pattern})
        assert not observation.is_error, observation.text
        return sorted(observation.files)

    assert found("*.py") == ["top.py"]  # no '**': the top directory only
    assert found("**/*.py") == [
        "src/app/main.py",
        "src/app/test_main.py",
        "src/test_root.py",
        "top.py",
    ]
    assert found("src/**/test_*.py") == ["src/app/test_main.py", "src/test_root.py"]
    assert found("src/*/main.py") == ["src/app/main.py"]
    assert found("**/*.{ts,tsx}") == ["web/a.ts", "web/b.tsx"]
    assert found("{web,data}/*.{js,csv}") == [
        "data/x1.csv",
        "data/x2.csv",
        "data/xa.csv",
        "web/c.js",
    ]
    assert found("data/x[0-9].csv") == ["data/x1.csv", "data/x2.csv"]
    assert found("data/x[!0-9].csv") == ["data/xa.csv"]
    assert found("data/x?.csv") == ["data/x1.csv", "data/x2.csv", "data/xa.csv"]
    assert found("src/app/main.py") == ["src/app/main.py"]
    assert found("src/**") == ["src/app/main.py", "src/app/test_main.py", "src/test_root.py"]
    assert found("weird/\\{brace}.txt") == ["weird/{brace}.txt"]
    assert found("./src/../src/app/*.py") == ["src/app/main.py", "src/app/test_main.py"]


def test_pattern_with_directory_works_from_any_cwd(
    tmp_path: Path, make_tool, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    make_tree(workspace, {"src/a/test_one.py": 1, "src/test_two.py": 2, "other/test_three.py": 3})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    observation = make_tool(workspace).call({"pattern": "src/**/test_*.py"})
    assert observation.files == ["src/a/test_one.py", "src/test_two.py"]


def test_limit_and_note(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {f"f{i:02}.txt": i for i in range(30)})
    tool = make_tool(tmp_path, default_limit=5)
    observation = tool.call({"pattern": "*.txt"})
    assert observation.files == ["f00.txt", "f01.txt", "f02.txt", "f03.txt", "f04.txt"]
    assert observation.total == 30 and observation.truncated
    assert "25 more not shown" in observation.text
    assert "limit" in observation.text
    bigger = tool.call({"pattern": "*.txt", "limit": 12})
    assert len(bigger.files) == 12 and bigger.files[-1] == "f11.txt"
    everything = tool.call({"pattern": "*.txt", "limit": 30})
    assert everything.total == 30 and not everything.truncated
    assert "more not shown" not in everything.text


def test_path_narrows_and_results_are_relative_to_it(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"pkg/sub/a.py": 1, "pkg/b.py": 2, "c.py": 3})
    tool = make_tool(tmp_path)
    observation = tool.call({"pattern": "**/*.py", "path": "pkg"})
    assert observation.files == ["sub/a.py", "b.py"]
    assert observation.search_dir == str((tmp_path / "pkg").resolve())
    absolute = tool.call({"pattern": "**/*.py", "path": str(tmp_path / "pkg" / "sub")})
    assert absolute.files == ["a.py"]


def test_absolute_and_home_patterns(tmp_path: Path, make_tool) -> None:
    home = tmp_path / "home"
    make_tree(home, {"proj/src/a.ts": 1, "proj/src/deep/b.ts": 2, "proj/c.ts": 3})
    tool = make_tool(home, env={"HOME": str(home)})
    absolute = tool.call({"pattern": f"{home}/proj/src/**/*.ts"})
    assert absolute.files == ["proj/src/a.ts", "proj/src/deep/b.ts"]
    tilde = tool.call({"pattern": "~/proj/**/*.ts"})
    assert tilde.files == ["proj/src/a.ts", "proj/src/deep/b.ts", "proj/c.ts"]
    from_path = tool.call({"pattern": f"{home}/proj/*.ts", "path": "proj/src"})
    assert from_path.files == [f"{home.resolve()}/proj/c.ts"]  # outside path: absolute


def test_outside_workspace_when_allowed(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"ws/in.py": 1, "outside/out.py": 2})
    tool = make_tool(tmp_path / "ws", allow_outside_workspace=True)
    observation = tool.call({"pattern": f"{tmp_path}/outside/*.py"})
    assert observation.files == [f"{(tmp_path / 'outside').resolve()}/out.py"]
    by_path = tool.call({"pattern": "*.py", "path": str(tmp_path / "outside")})
    assert by_path.files == ["out.py"]


def test_no_match_explains(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"deep/a.py": 1})
    tool = make_tool(tmp_path)
    top_only = tool.call({"pattern": "*.py"})
    assert not top_only.is_error and top_only.files == [] and top_only.total == 0
    assert "'**/*.py'" in top_only.text
    missing = tool.call({"pattern": "nope/**/*.py"})
    assert not missing.is_error and "does not exist" in missing.text
    validate_observation_exports(missing)


def test_async_call(tmp_path: Path, make_tool) -> None:
    import asyncio

    make_tree(tmp_path, {"a.md": 1})
    observation = asyncio.run(make_tool(tmp_path).acall({"pattern": "*.md"}))
    assert observation.files == ["a.md"]


# -- ignore files and hidden entries ---------------------------------------------------


IGNORED_TREE = {
    "keep.py": 1,
    "build/out.py": 2,
    "debug.log": 3,
    "important.log": 4,
    "sub/local.tmp": 5,
    "sub/ok.py": 6,
    "sub/generated.py": 7,
    "sub/deeper/generated.py": 8,
    "excluded_by_info.py": 9,
    "vendor/lib.py": 10,
}


def _ignored_tree(root: Path) -> None:
    make_tree(root, IGNORED_TREE)
    (root / ".gitignore").write_text("build/\n*.log\n!important.log\n*.tmp\n")
    (root / "sub" / ".gitignore").write_text("generated.py\n!deeper/generated.py\n")
    (root / ".ignore").write_text("vendor/\n")
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("excluded_by_info.py\n")
    write(root, ".git/config.py", age=0)


def test_gitignore_nested_negation_and_exclude(tmp_path: Path, make_tool) -> None:
    _ignored_tree(tmp_path)
    observation = make_tool(tmp_path).call({"pattern": "**/*"})
    assert sorted(observation.files) == [
        "important.log",
        "keep.py",
        "sub/deeper/generated.py",
        "sub/ok.py",
    ]
    assert "git-ignored" not in observation.text


def test_gitignore_with_a_name_pattern(tmp_path: Path, make_tool) -> None:
    # "**/*.py" takes ripgrep's whitelist path: every ignore rule is applied again.
    _ignored_tree(tmp_path)
    observation = make_tool(tmp_path).call({"pattern": "**/*.py"})
    assert sorted(observation.files) == ["keep.py", "sub/deeper/generated.py", "sub/ok.py"]
    logs = make_tool(tmp_path).call({"pattern": "**/*.log"})
    assert logs.files == ["important.log"]


def test_directory_rules_only(tmp_path: Path, make_tool) -> None:
    # Only directory rules: nothing can slip through the whitelist, the re-check is skipped.
    make_tree(tmp_path, {"a.py": 1, "build/b.py": 2, "src/build/c.py": 3, "src/d.py": 4})
    (tmp_path / ".gitignore").write_text("# generated\nbuild/\n")
    assert make_tool(tmp_path).call({"pattern": "**/*.py"}).files == ["a.py", "src/d.py"]


def test_gitignore_without_git_directory(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"a.py": 1, "dist/b.py": 2})
    (tmp_path / ".gitignore").write_text("dist\n")
    assert make_tool(tmp_path).call({"pattern": "**/*.py"}).files == ["a.py"]


def test_parent_gitignore_applies_to_a_subdirectory_search(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"pkg/a.py": 1, "pkg/cache/b.py": 2, "pkg/c.pyc": 3})
    (tmp_path / ".gitignore").write_text("cache/\n*.pyc\n")
    tool = make_tool(tmp_path)
    assert tool.call({"pattern": "**/*", "path": "pkg"}).files == ["a.py"]
    assert tool.call({"pattern": "pkg/**"}).files == ["pkg/a.py"]


def test_include_ignored_param(tmp_path: Path, make_tool) -> None:
    _ignored_tree(tmp_path)
    observation = make_tool(tmp_path, include_ignored=True).call({"pattern": "**/*"})
    assert sorted(observation.files) == sorted(IGNORED_TREE)


def test_hidden_entries(tmp_path: Path, make_tool) -> None:
    make_tree(
        tmp_path,
        {"a.py": 1, ".hidden.py": 2, ".config/tool.py": 3, "src/.env": 4, ".github/ci.yml": 5},
    )
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".git/HEAD.py", age=6)
    tool = make_tool(tmp_path)
    assert tool.call({"pattern": "**/*.py"}).files == ["a.py"]
    assert tool.call({"pattern": "**/.env"}).files == ["src/.env"]  # named: found
    assert tool.call({"pattern": ".github/*.yml"}).files == [".github/ci.yml"]
    everything = make_tool(tmp_path, include_hidden=True).call({"pattern": "**/*.py"})
    assert sorted(everything.files) == [".config/tool.py", ".git/HEAD.py", ".hidden.py", "a.py"]


# -- links, permissions, limits of the walk ----------------------------------------------


def test_symlink_loop_does_not_hang(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"a/file.py": 1, "b/other.py": 2})
    os.symlink(tmp_path / "a", tmp_path / "a" / "loop")  # a/loop -> a
    os.symlink(tmp_path / "b", tmp_path / "linked_b")  # an ordinary link, followed
    os.symlink(tmp_path / "missing", tmp_path / "dangling.py")
    # Links are followed only where the tool may leave the workspace.
    observation = make_tool(tmp_path, allow_outside_workspace=True).call({"pattern": "**/*.py"})
    assert not observation.is_error, observation.text
    assert sorted(observation.files) == ["a/file.py", "b/other.py", "linked_b/other.py"]
    assert "could not be read" in observation.text
    # Otherwise they are neither listed nor entered, and nothing is reported.
    observation = make_tool(tmp_path).call({"pattern": "**/*.py"})
    assert sorted(observation.files) == ["a/file.py", "b/other.py"]
    assert "could not be read" not in observation.text


_CALL_SCRIPT = """
import sys
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from
import toolplug_glob
registry = registry_from(toolplug_glob)
[tool] = registry.resolve(Tool("glob", {"engine": sys.argv[2]}), ToolContext(workspace=sys.argv[1]))
observation = tool.call({"pattern": "**/*.py"})
print(observation.model_dump_json())
"""


def test_unreadable_directory_is_skipped(tmp_path: Path, engine: str) -> None:
    import json
    import shutil
    import sys

    make_tree(tmp_path, {"ok/a.py": 1, "locked/b.py": 2})
    (tmp_path / "locked").chmod(0)
    command = [sys.executable, "-c", _CALL_SCRIPT, str(tmp_path), engine]
    if os.geteuid() == 0:
        # root reads everything: drop the two capabilities that let it (it stays root,
        # so it can still read the test environment, which may be private to root)
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv to drop capabilities")
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert done.returncode == 0, done.stderr
    observation = json.loads(done.stdout)
    assert not observation["is_error"]
    assert observation["files"] == ["ok/a.py"]
    text = observation["content"][0]["text"]
    assert "1 entry could not be read" in text and "locked" in text


def test_timeout_stops_the_search(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {f"d{i}/f.py": i for i in range(20)})
    observation = make_tool(tmp_path, timeout=1e-9).call({"pattern": "**/*.py"})
    assert observation.is_error
    assert "stopped" in observation.text and "path" in observation.text


# -- errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("src/[abc", "never closed"),
        ("**/{a,b", "never closed"),
        ("x[z-a].py", "backwards"),
        ("src/", "ends with '/'"),
        ("**/../x.py", "'..' after a wildcard"),
        ("trailing\\", "lone backslash"),
    ],
)
def test_bad_patterns(tmp_path: Path, make_tool, pattern: str, expected: str) -> None:
    observation = make_tool(tmp_path).call({"pattern": pattern})
    assert observation.is_error
    assert expected in observation.text, observation.text
    validate_observation_exports(observation)


def test_bad_paths(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"ws/file.py": 1, "outside/x.py": 2})
    tool = make_tool(tmp_path / "ws")
    cases = {
        "../outside": "outside the workspace",
        str(tmp_path / "outside"): "outside the workspace",
        "missing": "does not exist",
        "file.py": "not a directory",
    }
    for path, expected in cases.items():
        observation = tool.call({"pattern": "*.py", "path": path})
        assert observation.is_error and expected in observation.text, (path, observation.text)
    for pattern in (f"{tmp_path}/outside/*.py", "../outside/*.py", "/etc/*"):
        observation = tool.call({"pattern": pattern})
        assert observation.is_error and "outside the workspace" in observation.text


def test_bad_arguments(tmp_path: Path, make_tool) -> None:
    tool = make_tool(tmp_path)
    for arguments in ({}, {"pattern": ""}, {"pattern": "*", "limit": 0}, {"pattern": 3}):
        observation = tool.call(arguments)
        assert observation.is_error, arguments


def test_bad_params(tmp_path: Path, make_tool) -> None:
    from toolplug import ToolParamsError

    for params in ({"default_limit": 0}, {"timeout": -1}, {"engine": "grep"}, {"root": "nope"}):
        with pytest.raises(ToolParamsError):
            make_tool(tmp_path, **params)


def test_root_param_replaces_workspace(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"repo/a.py": 1, "b.py": 2})
    tool = make_tool(tmp_path, root="repo")
    assert tool.call({"pattern": "*.py"}).files == ["a.py"]
    assert tool.call({"pattern": "../*.py"}).is_error


def test_ignored_directory_whose_name_matches_the_pattern(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"gen.py/inner.py": 1, "src/gen.py/x.py": 2, "src/a.py": 3, "b.py": 4})
    (tmp_path / ".gitignore").write_text("gen.py/\n")
    observation = make_tool(tmp_path).call({"pattern": "**/*.py"})
    assert observation.files == ["src/a.py", "b.py"]


def test_file_rules_nested_and_negated_with_name_pattern(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"a/x.py": 1, "a/skip.py": 2, "a/b/skip.py": 3, "c/skip.py": 4})
    (tmp_path / "a").joinpath(".gitignore").write_text("skip.py\n!b/skip.py\n")
    observation = make_tool(tmp_path).call({"pattern": "**/*.py"})
    assert observation.files == ["a/x.py", "a/b/skip.py", "c/skip.py"]


def test_ignore_files_themselves_can_be_found(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"a.py": 1, "sub/b.py": 2})
    write(tmp_path, ".gitignore", age=5, text="*.tmp\n")
    write(tmp_path, "sub/.gitignore", age=6, text="*.bak\n")
    observation = make_tool(tmp_path).call({"pattern": "**/.gitignore"})
    assert observation.files == [".gitignore", "sub/.gitignore"]
    assert make_tool(tmp_path).call({"pattern": "**/*.py"}).files == ["a.py", "sub/b.py"]
