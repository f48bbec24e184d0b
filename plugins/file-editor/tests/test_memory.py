"""The ``memory`` tool: the commands on real files under the host's folder, as a
function tool and as Anthropic's ``memory_20250818`` (``tool_use`` in, ``tool_result``
out, both checked against the Anthropic SDK's types)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic.types as anthropic_types
import pytest
import toolplug_file_editor.memory_plugin
from conftest import error, ok
from pydantic import TypeAdapter
from toolplug import Tool, ToolContext, Toolset
from toolplug.testing import ToolConformance, registry_from

RESULT = TypeAdapter(anthropic_types.ToolResultBlockParam)


def make_memory(workspace: Path, **params: Any) -> Any:
    registry = registry_from(toolplug_file_editor.memory_plugin)
    [tool] = registry.resolve(Tool("memory", params), ToolContext(workspace=workspace))
    return tool


@pytest.fixture
def memory(workspace: Path) -> Any:
    tool = make_memory(workspace)
    yield tool
    tool.close()


class TestMemoryConformance(ToolConformance):
    plugin = toolplug_file_editor.memory_plugin
    tool_name = "memory"
    entry_point = "memory"
    tool_params = {"folder": "mem"}
    valid_arguments = {"command": "create", "path": "/memories/a.md", "file_text": "a\n"}
    failing_call = {"command": "view", "path": "/memories/missing.md"}


def test_commands_on_real_files(memory: Any, workspace: Path) -> None:
    folder = workspace / "memories"
    assert "(empty)" in ok(memory.call({"command": "view", "path": "/memories"}))
    ok(memory.call({"command": "create", "path": "/memories/p/notes.md", "file_text": "a\nb\n"}))
    assert (folder / "p" / "notes.md").read_text() == "a\nb\n"
    listing = ok(memory.call({"command": "view", "path": "/memories"}))
    assert "/memories/p/notes.md" in listing and str(workspace) not in listing
    assert "     2\tb" in ok(memory.call({"command": "view", "path": "/memories/p/notes.md"}))

    shown = ok(
        memory.call(
            {
                "command": "str_replace",
                "path": "/memories/p/notes.md",
                "old_str": "b",
                "new_str": "c",
            }
        )
    )
    assert "undo_edit" not in shown  # the memory tool has no undo
    args = {"command": "insert", "path": "/memories/p/notes.md", "insert_line": 0}
    ok(memory.call({**args, "insert_text": "top"}))
    assert (folder / "p" / "notes.md").read_text() == "top\na\nc\n"

    ok(memory.call({"command": "rename", "old_path": "/memories/p", "new_path": "/memories/q/r"}))
    assert (folder / "q" / "r" / "notes.md").exists() and not (folder / "p").exists()
    text = ok(memory.call({"command": "delete", "path": "/memories/q"}))
    assert "1 file(s)" in text and not (folder / "q").exists()


def test_the_folder_is_the_hosts(tmp_path: Path, workspace: Path) -> None:
    elsewhere = tmp_path / "kept" / "memories"
    tool = make_memory(workspace, folder=str(elsewhere))
    try:
        ok(tool.call({"command": "create", "path": "/memories/x.md", "file_text": "x"}))
    finally:
        tool.close()
    assert (elsewhere / "x.md").read_text() == "x"
    assert not (workspace / "memories").exists()


def test_errors_say_what_to_do(memory: Any, workspace: Path) -> None:
    assert "does not exist" in error(memory.call({"command": "view", "path": "/memories/no.md"}))
    ok(memory.call({"command": "create", "path": "/memories/a.md", "file_text": "1"}))
    ok(memory.call({"command": "create", "path": "/memories/b.md", "file_text": "2"}))
    text = error(memory.call({"command": "create", "path": "/memories/a.md", "file_text": "3"}))
    assert "already exists" in text
    text = error(
        memory.call(
            {"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"}
        )
    )
    assert "already exists" in text and (workspace / "memories" / "a.md").read_text() == "1"
    assert "needs `old_path`" in error(memory.call({"command": "rename"}))
    assert "needs `path`" in error(memory.call({"command": "delete"}))
    text = error(memory.call({"command": "delete", "path": "/memories"}))
    assert "cannot be deleted" in text and (workspace / "memories").is_dir()
    text = error(
        memory.call({"command": "rename", "old_path": "/memories", "new_path": "/memories/x"})
    )
    assert "cannot be renamed" in text


def tool_use(data: dict[str, Any], call_id: str = "toolu_1") -> dict[str, Any]:
    block = anthropic_types.ToolUseBlock(type="tool_use", id=call_id, name="memory", input=data)
    return block.model_dump(mode="json")


def test_native_round_trip(workspace: Path) -> None:
    with Toolset([make_memory(workspace)]) as toolset:
        [declared] = toolset.export("anthropic", native=True)
        assert declared == {"type": "memory_20250818", "name": "memory"}
        TypeAdapter(anthropic_types.ToolUnionParam).validate_python(declared, strict=True)
        calls = [
            tool_use({"command": "create", "path": "/memories/n.md", "file_text": "hi\n"}, "t1"),
            tool_use({"command": "view", "path": "/memories/n.md"}, "t2"),
            tool_use({"command": "forget", "path": "/memories/n.md"}, "t3"),
            tool_use({"command": "view", "path": "/etc/passwd"}, "t4"),
        ]
        results = toolset.dispatch(calls)
        for result in results:
            RESULT.validate_python(result, strict=True)
        assert [r["tool_use_id"] for r in results] == ["t1", "t2", "t3", "t4"]
        assert "is_error" not in results[0] and "is_error" not in results[1]
        assert "1\thi" in results[1]["content"][0]["text"]
        assert results[2]["is_error"] is True
        assert (
            "one of view, create, str_replace, insert, delete, rename"
            in (results[2]["content"][0]["text"])
        )
        assert results[3]["is_error"] is True
        assert "not a memory path" in results[3]["content"][0]["text"]
        # every other format: a function tool with the same fields
        [function] = toolset.export("openai", native=True)
        assert function["function"]["name"] == "memory"
        assert {"command", "path", "old_path", "new_path", "insert_text"} <= set(
            function["function"]["parameters"]["properties"]
        )
    assert (workspace / "memories" / "n.md").read_text() == "hi\n"


def test_memory_and_the_editor_load_by_their_own_entry_points(workspace: Path) -> None:
    with Toolset.load(["memory"], workspace=workspace) as toolset:
        assert list(toolset) == ["memory"]
    with Toolset.load(["file_editor"], workspace=workspace) as toolset:
        assert "memory" not in toolset
