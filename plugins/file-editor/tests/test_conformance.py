"""The checks every toolplug tool passes, and what this tool registers."""

from __future__ import annotations

from pathlib import Path

import pytest
import toolplug_file_editor
from conftest import error, make_editor, ok
from toolplug import Tool, ToolContext, ToolParamsError
from toolplug.formats import export_tool
from toolplug.testing import ToolConformance, registry_from


class TestFileEditorConformance(ToolConformance):
    plugin = toolplug_file_editor
    tool_name = "file_editor"
    entry_point = "file_editor"
    tool_params = {"max_file_size": 1_000_000, "undo_depth": 5}
    valid_arguments = {"command": "create", "path": "hello.txt", "file_text": "hello\n"}
    failing_call = {"command": "view", "path": "missing.txt"}


@pytest.mark.parametrize("alias", ["str_replace_editor", "str_replace_based_edit_tool"])
def test_anthropic_names_reach_the_editor(workspace: Path, alias: str) -> None:
    registry = registry_from(toolplug_file_editor)
    assert registry.aliases()[alias] == "file_editor"
    tool = make_editor(workspace, alias)
    try:
        assert tool.name == "file_editor"
        observation = tool.call({"command": "create", "path": "a.txt", "file_text": "x\n"})
        assert not observation.is_error, observation.text
        assert (workspace / "a.txt").read_text() == "x\n"
    finally:
        tool.close()


def test_annotations(editor) -> None:
    hints = editor.annotations
    assert hints.readOnlyHint is False
    assert hints.destructiveHint is True
    assert hints.idempotentHint is False
    assert hints.openWorldHint is False
    mcp_tool = export_tool(editor, "mcp")
    assert mcp_tool["annotations"]["destructiveHint"] is True
    assert "outputSchema" in mcp_tool


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"max_file_size": 0}, "max_file_size"),
        ({"max_view_chars": "lots"}, "max_view_chars"),
        ({"undo_depth": -1}, "undo_depth"),
        ({"allow_outside_workspace": "yes"}, "allow_outside_workspace"),
    ],
)
def test_bad_params_are_refused_by_name(workspace: Path, params: dict, named: str) -> None:
    registry = registry_from(toolplug_file_editor)
    with pytest.raises(ToolParamsError, match=named):
        registry.resolve(Tool("file_editor", params), ToolContext(workspace=workspace))


def test_each_session_has_its_own_history(workspace: Path) -> None:
    first, second = make_editor(workspace), make_editor(workspace)
    try:
        first.call({"command": "create", "path": "a.txt", "file_text": "x\n"})
        refused = second.call({"command": "undo_edit", "path": "a.txt"})
        assert refused.is_error and "no edit" in refused.text
        assert not first.call({"command": "undo_edit", "path": "a.txt"}).is_error
    finally:
        first.close()
        second.close()


def test_missing_command_fields_name_the_field(call, workspace: Path) -> None:
    assert "`file_text`" in error(call(command="create", path="a.txt"))
    (workspace / "a.txt").write_text("a\n")
    assert "`old_str`" in error(call(command="str_replace", path="a.txt"))
    assert "`insert_line`" in error(call(command="insert", path="a.txt", new_str="b"))
    assert "`new_str`" in error(call(command="insert", path="a.txt", insert_line=0))
    text = error(call(command="move", path="a.txt"))
    assert "command" in text and "str_replace" in text
    assert (workspace / "a.txt").read_text() == "a\n"


def test_fields_a_command_does_not_use_are_reported(call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\n")
    text = ok(call(command="view", path="a.txt", old_str="a"))
    assert "`old_str` was ignored" in text


@pytest.mark.asyncio
async def test_async_hosts_and_concurrent_calls(editor, workspace: Path) -> None:
    import asyncio

    (workspace / "c.txt").write_text("".join(f"k{i}\n" for i in range(20)))
    results = await asyncio.gather(
        *(
            editor.acall(
                {
                    "command": "str_replace",
                    "path": "c.txt",
                    "old_str": f"k{i}\n",
                    "new_str": f"v{i}\n",
                }
            )
            for i in range(20)
        )
    )
    assert [r.is_error for r in results] == [False] * 20
    assert (workspace / "c.txt").read_text() == "".join(f"v{i}\n" for i in range(20))
    undone = [await editor.acall({"command": "undo_edit", "path": "c.txt"}) for _ in range(10)]
    assert not any(r.is_error for r in undone)
    assert (workspace / "c.txt").read_text().count("k") == 10
