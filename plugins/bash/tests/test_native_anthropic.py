"""bash as Anthropic's ``bash_20250124``: the model's ``tool_use`` blocks come in as the
Anthropic SDK types them, run in the real persistent session, and the ``tool_result``
blocks go back and validate against the SDK's own type."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic.types as anthropic_types
import pytest
from pydantic import TypeAdapter
from toolplug import Toolset

RESULT = TypeAdapter(anthropic_types.ToolResultBlockParam)


def tool_use(data: dict[str, Any], call_id: str = "toolu_1") -> dict[str, Any]:
    """A tool_use block as the SDK parses it from the API, dumped as the API sent it."""
    block = anthropic_types.ToolUseBlock(type="tool_use", id=call_id, name="bash", input=data)
    return block.model_dump(mode="json")


def text_of(result: dict[str, Any]) -> str:
    RESULT.validate_python(result, strict=True)
    return "\n".join(block["text"] for block in result["content"] if block["type"] == "text")


@pytest.fixture
def native(make_bash: Any, tmp_path: Path) -> Any:
    """Dispatch one native call to a toolset that exported bash natively for Anthropic."""
    toolset = Toolset([make_bash(tmp_path)])
    [declared] = toolset.export("anthropic", native=True)
    assert declared == {"type": "bash_20250124", "name": "bash"}
    TypeAdapter(anthropic_types.ToolUnionParam).validate_python(declared, strict=True)

    def run(data: dict[str, Any]) -> dict[str, Any]:
        [result] = toolset.dispatch([tool_use(data)])
        return result

    yield run
    toolset.close()


def test_round_trip(native: Any, tmp_path: Path) -> None:
    result = native({"command": "echo made > made.txt && cat made.txt"})
    assert "is_error" not in result
    assert "made" in text_of(result)
    assert (tmp_path / "made.txt").read_text() == "made\n"


def test_the_session_persists_and_restart_starts_a_fresh_one(native: Any, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    native({"command": "cd sub && export MARK=kept"})
    assert "kept" in text_of(native({"command": "echo $MARK; pwd"}))
    result = native({"restart": True})
    assert "is_error" not in result and "fresh shell" in text_of(result)
    shown = text_of(native({"command": 'echo "[$MARK]"; pwd'}))
    assert "[]" in shown and str(tmp_path / "sub") not in shown


def test_bad_input_is_an_error_result(native: Any) -> None:
    result = native({})
    assert result["is_error"] is True and "restart: true" in text_of(result)
    result = native({"command": "echo x", "restart": "yes"})
    assert result["is_error"] is True and "`restart` must be true or false" in text_of(result)
    result = native({"command": 42})
    assert result["is_error"] is True and "command" in text_of(result)


def test_a_failing_command_reports_its_exit_code(native: Any) -> None:
    shown = text_of(native({"command": "ls /no/such/dir"}))
    assert "No such file" in shown and "Exit code 2" in shown


def test_other_formats_keep_the_function_form(make_bash: Any, tmp_path: Path) -> None:
    with Toolset([make_bash(tmp_path)]) as toolset:
        assert toolset.export("openai", native=True)[0]["type"] == "function"
        assert "input_schema" in toolset.export("anthropic")[0]
