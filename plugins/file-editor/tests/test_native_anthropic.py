"""file_editor as Anthropic's ``text_editor_20250728``: the model's ``tool_use`` blocks
come in as the Anthropic SDK types them, the files change, and the ``tool_result``
blocks go back and validate against the SDK's own type."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic.types as anthropic_types
import pytest
from conftest import make_editor
from pydantic import TypeAdapter
from toolplug import Toolset

RESULT = TypeAdapter(anthropic_types.ToolResultBlockParam)
NAME = "str_replace_based_edit_tool"


def tool_use(data: dict[str, Any], call_id: str = "toolu_1", name: str = NAME) -> dict[str, Any]:
    """A tool_use block as the SDK parses it from the API, dumped as the API sent it."""
    block = anthropic_types.ToolUseBlock(type="tool_use", id=call_id, name=name, input=data)
    return block.model_dump(mode="json")


def text_of(result: dict[str, Any]) -> str:
    RESULT.validate_python(result, strict=True)
    return "\n".join(block["text"] for block in result["content"] if block["type"] == "text")


@pytest.fixture
def native(workspace: Path) -> Any:
    """A toolset that exported file_editor natively for Anthropic; ``native(input)``
    dispatches one call and returns its tool_result."""
    toolset = Toolset([make_editor(workspace, max_view_chars=400)])
    toolset.export("anthropic", native=True)

    def run(data: dict[str, Any]) -> dict[str, Any]:
        [result] = toolset.dispatch([tool_use(data)])
        return result

    run.toolset = toolset  # type: ignore[attr-defined]
    yield run
    toolset.close()


def test_declared_as_the_text_editor(workspace: Path) -> None:
    with Toolset([make_editor(workspace, max_view_chars=5000)]) as toolset:
        [declared] = toolset.export("anthropic", native=True)
        assert declared == {
            "type": "text_editor_20250728",
            "name": NAME,
            "max_characters": 5000,
        }
        TypeAdapter(anthropic_types.ToolUnionParam).validate_python(declared, strict=True)
        # every other format, and anthropic without native=: the function tool
        assert toolset.export("anthropic")[0]["name"] == "file_editor"
        assert toolset.export("responses", native=True)[0]["name"] == "file_editor"


def test_round_trip_of_every_command(native: Any, workspace: Path) -> None:
    result = native({"command": "create", "path": "app.py", "file_text": "a = 1\nb = 2\n"})
    assert "is_error" not in result and "Created app.py" in text_of(result)
    assert (workspace / "app.py").read_text() == "a = 1\nb = 2\n"

    shown = text_of(native({"command": "view", "path": "app.py"}))
    assert "     1\ta = 1\n     2\tb = 2" in shown  # numbered as cat -n

    assert "2\tb = 2" in text_of(
        native({"command": "view", "path": "app.py", "view_range": [2, -1]})
    )

    result = native(
        {"command": "str_replace", "path": "app.py", "old_str": "b = 2", "new_str": "b = 3"}
    )
    assert "is_error" not in result, text_of(result)
    assert (workspace / "app.py").read_text() == "a = 1\nb = 3\n"

    # the version's insert names the lines insert_text
    result = native(
        {"command": "insert", "path": "app.py", "insert_line": 0, "insert_text": "# top"}
    )
    assert "is_error" not in result, text_of(result)
    assert (workspace / "app.py").read_text() == "# top\na = 1\nb = 3\n"

    listing = text_of(native({"command": "view", "path": "."}))
    assert "app.py" in listing


def test_errors_are_results_in_words(native: Any, workspace: Path) -> None:
    result = native({"command": "view", "path": "missing.py"})
    assert result["is_error"] is True and "missing.py does not exist" in text_of(result)

    (workspace / "twice.txt").write_text("x\nx\n")
    result = native({"command": "str_replace", "path": "twice.txt", "old_str": "x", "new_str": "y"})
    assert result["is_error"] is True and "twice.txt" in text_of(result)
    assert (workspace / "twice.txt").read_text() == "x\nx\n"

    result = native({"command": "delete", "path": "twice.txt"})
    assert result["is_error"] is True
    assert "it must be one of view, create, str_replace, insert" in text_of(result)
    assert (workspace / "twice.txt").exists()

    result = native({"path": "twice.txt"})
    assert result["is_error"] is True and "`command` is missing" in text_of(result)


def test_view_keeps_to_max_characters(native: Any, workspace: Path) -> None:
    (workspace / "long.txt").write_text("".join(f"line {i}\n" for i in range(500)))
    result = native({"command": "view", "path": "long.txt"})
    shown = text_of(result)
    assert "is_error" not in result
    assert "line 0" in shown and "line 499" not in shown
    assert "cut after line" in shown and "400 characters" in shown


def test_undo_edit_is_carried_out_though_not_declared(native: Any, workspace: Path) -> None:
    native({"command": "create", "path": "u.txt", "file_text": "one\n"})
    native({"command": "str_replace", "path": "u.txt", "old_str": "one", "new_str": "two"})
    result = native({"command": "undo_edit", "path": "u.txt"})
    assert "is_error" not in result, text_of(result)
    assert (workspace / "u.txt").read_text() == "one\n"


def test_host_undo_through_the_function_form(native: Any, workspace: Path) -> None:
    """The documented way for a host to undo the model's native edits."""
    native({"command": "create", "path": "h.txt", "file_text": "one\n"})
    native({"command": "str_replace", "path": "h.txt", "old_str": "one", "new_str": "two"})
    undone = native.toolset.call("file_editor", {"command": "undo_edit", "path": "h.txt"})
    assert not undone.is_error, undone.text
    assert (workspace / "h.txt").read_text() == "one\n"


def test_native_calls_stay_in_the_workspace(native: Any, workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s")
    (workspace / "out").symlink_to(tmp_path)
    for path in ("../secret.txt", str(tmp_path / "secret.txt"), "out/secret.txt"):
        result = native({"command": "view", "path": path})
        assert result["is_error"] is True, path
        assert "outside the workspace" in text_of(result) or "link" in text_of(result)
    result = native({"command": "create", "path": "out/new.txt", "file_text": "x"})
    assert result["is_error"] is True and not (tmp_path / "new.txt").exists()


def test_a_function_call_under_the_alias_still_works_without_native(workspace: Path) -> None:
    with Toolset.load(["file_editor"], workspace=workspace) as toolset:
        toolset.export("anthropic")
        [result] = toolset.dispatch(
            [tool_use({"command": "create", "path": "f.txt", "file_text": "f\n"})]
        )
        assert "is_error" not in result, text_of(result)
    assert (workspace / "f.txt").read_text() == "f\n"
