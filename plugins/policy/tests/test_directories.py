"""A call over a directory obeys the path rules inside it: grep and glob under a policy
that keeps ``.env`` out skip it (and say so), whatever names the directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import refused
from toolplug import Toolset

KEEP_ENV_OUT = """
default = "deny"

[[rules]]
decision = "allow"
tool = ["grep", "glob", "file_editor"]
path = ["**", "!**/.env"]
"""


@pytest.fixture
def project(workspace: Path) -> Path:
    """The workspace, with a ``.env`` at the top too, code that names the variable, and
    a link to the top ``.env`` under an innocent name (a side door)."""
    (workspace / ".env").write_text("TOKEN=hunter2\n")
    (workspace / "src" / "config.py").write_text("TOKEN = 'read from the environment'\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "settings.txt").symlink_to("../.env")
    return workspace


@pytest.fixture(params=["ripgrep", "python"])
def tools(request, toolset, write_policy, project) -> Toolset:
    specs: list[Any] = [
        {"name": "grep", "params": {"engine": request.param}},
        {"name": "glob", "params": {"include_hidden": True}},
        "file_editor",
    ]
    return toolset(specs, write_policy(KEEP_ENV_OUT))


GREP = Callable[..., Any]


@pytest.mark.parametrize("path", [".", None, "src/..", "./src/../"])
@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
def test_grep_over_a_directory_skips_what_the_rules_keep_out(tools, path, mode) -> None:
    arguments = {"pattern": "TOKEN", "include_hidden": True, "output_mode": mode}
    if path is not None:
        arguments["path"] = path
    observation = tools.call("grep", arguments)
    assert not observation.is_error, observation.text
    assert "hunter2" not in observation.text and ".env" not in observation.text.split("(")[0]
    assert "src/config.py" in observation.text  # what is not kept out is found
    assert "(2 files here are hidden by the policy and were not searched" in observation.text


def test_the_grep_note_does_not_depend_on_the_pattern(tools) -> None:
    """A note that came only with matches would tell what a hidden file holds."""
    texts = [
        tools.call("grep", {"pattern": p, "include_hidden": True}).text
        for p in ("hunter2", "hunter3", "TOKEN=h", "no such text anywhere")
    ]
    notes = {text[text.index("(2 files") :] for text in texts}
    assert len(notes) == 1, texts


def test_grep_of_a_subdirectory_counts_only_what_it_reads(tools) -> None:
    text = tools.call("grep", {"pattern": "TOKEN", "path": "src", "include_hidden": True}).text
    assert "src/config.py" in text and "hunter2" not in text
    assert "(1 file here is hidden by the policy" in text
    text = tools.call("grep", {"pattern": "TOKEN", "path": "tests", "include_hidden": True}).text
    assert "hidden by the policy" not in text


def test_grep_naming_the_file_or_its_link_is_refused(tools) -> None:
    refused(tools.call("grep", {"pattern": "TOKEN", "path": ".env"}))
    refused(tools.call("grep", {"pattern": "TOKEN", "path": "docs/settings.txt"}))
    refused(tools.call("grep", {"pattern": "TOKEN", "path": "docs/../src/.env"}))


def test_glob_skips_what_the_rules_keep_out(tools) -> None:
    for path in (None, ".", "src/.."):
        arguments = {"pattern": "**/.env*"} | ({"path": path} if path else {})
        text = tools.call("glob", arguments).text
        assert "No files match" in text and "src/.env" not in text, text
        assert "(2 matching files are hidden by the policy and not listed" in text
    text = tools.call("glob", {"pattern": "**/*"}).text
    assert "src/app.py" in text and "src/.env" not in text.split("(")[0]
    assert "hidden by the policy" in text


def test_glob_hides_a_link_to_a_kept_out_file(toolset, write_policy, project: Path) -> None:
    """Where glob follows links: ``docs/settings.txt`` is ``.env`` by another name, and
    ``docs/code/.env`` is ``src/.env``; resolved, both are kept out."""
    (project / "docs" / "code").symlink_to("../src")
    glob = {"name": "glob", "params": {"include_hidden": True, "allow_outside_workspace": True}}
    tools = toolset([glob], write_policy(KEEP_ENV_OUT))
    text = tools.call("glob", {"pattern": "docs/**"}).text
    listed = text.split("(")[0]
    assert "docs/code/app.py" in listed, text
    assert "settings.txt" not in listed and ".env" not in listed
    assert "(2 matching files are hidden by the policy" in text


def test_without_path_rules_nothing_is_hidden(toolset, write_policy, project) -> None:
    tools = toolset(["grep"], write_policy('default = "allow"\n'))
    arguments = {"pattern": "hunter2", "include_hidden": True, "output_mode": "content"}
    text = tools.call("grep", arguments).text
    assert "src/.env" in text and "TOKEN=hunter2" in text and "hidden by" not in text


def test_what_is_hidden_holds_for_its_call_only(toolset, write_policy, project) -> None:
    """A call under the policy hides .env; the same tool in a toolset without the policy,
    called next in the same thread, sees it."""
    governed = toolset(["grep"], write_policy(KEEP_ENV_OUT))
    free = toolset(["grep"], write_policy('default = "allow"\n', name="free.toml"))
    arguments = {"pattern": "hunter2", "include_hidden": True, "output_mode": "content"}
    hidden = governed.call("grep", arguments).text
    assert hidden.startswith("No matches for 'hunter2'") and "hidden by the policy" in hidden
    assert "TOKEN=hunter2" in free.call("grep", arguments).text


async def test_hidden_on_the_async_path(tools) -> None:
    observation = await tools.acall("grep", {"pattern": "hunter2", "include_hidden": True})
    assert observation.text.startswith("No matches for 'hunter2'"), observation.text
    assert "hidden by the policy" in observation.text
