"""apply_patch as a Responses ``custom`` tool held to a Lark grammar (``responses_form=
"grammar"``): the freeform tool GPT-5 writes Codex patches into.

The grammar is checked with lark itself (the grammar syntax the API takes): it reads
the canonical patches of the conformance scenarios and refuses broken ones; calls come
as the openai SDK types ``custom_tool_call`` items and are answered with
``custom_tool_call_output`` items that validate against the SDK's input types.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lark
import pytest
import toolplug_file_editor
from openai.types.responses import ResponseCustomToolCall
from openai.types.responses.response_input_item_param import ResponseCustomToolCallOutputParam
from pydantic import TypeAdapter
from test_apply_patch import SCENARIOS, patch
from toolplug import Observation, Tool, ToolContext, Toolset
from toolplug.errors import DispatchError
from toolplug.testing import registry_from, validate_observation_exports, validate_tool_exports
from toolplug_file_editor.patch_forms import PATCH_GRAMMAR, GrammarApplyPatchForm
from toolplug_file_editor.patch_parse import parse

PARSER = lark.Lark(PATCH_GRAMMAR)


def load(workspace: Path) -> Toolset:
    registry = registry_from(toolplug_file_editor)
    params = {"responses_form": "grammar"}
    return Toolset(registry.resolve(Tool("apply_patch", params), ToolContext(workspace=workspace)))


def custom_call(text: str, call_id: str = "call_1", name: str = "apply_patch") -> dict[str, Any]:
    item = ResponseCustomToolCall(
        id=f"ctc_{call_id}", call_id=call_id, input=text, name=name, type="custom_tool_call"
    )
    return item.model_dump(mode="json", exclude_none=True, by_alias=True)


def valid(result: Any) -> dict[str, Any]:
    TypeAdapter(ResponseCustomToolCallOutputParam).validate_python(result, strict=True)
    assert isinstance(result, dict) and result["type"] == "custom_tool_call_output"
    return result


def test_export_is_a_grammar_custom_tool(workspace: Path) -> None:
    with load(workspace) as tools:
        validate_tool_exports(tools["apply_patch"])
        [declared] = tools.export("responses", native=True)
    assert declared["type"] == "custom" and declared["name"] == "apply_patch"
    assert declared["format"] == {"type": "grammar", "syntax": "lark", "definition": PATCH_GRAMMAR}
    validate_observation_exports(
        Observation.from_text("ok"), native_forms=[GrammarApplyPatchForm()]
    )


def test_round_trip(workspace: Path) -> None:
    (workspace / "app.py").write_text("x = 1\ny = 2\n")
    text = patch("*** Update File: app.py", "@@", "-x = 1", "+x = 10", "*** Add File: b.txt", "+b")
    with load(workspace) as tools:
        tools.export("responses", native=True)
        response = {
            "output": [{"type": "reasoning", "id": "rs_1", "summary": []}, custom_call(text)]
        }
        [result] = tools.dispatch(response)
        assert "M app.py" in valid(result)["output"] and "A b.txt" in result["output"]
        [failed] = tools.dispatch([custom_call(patch("*** Delete File: nope.txt"), "call_2")])
    assert (workspace / "app.py").read_text() == "x = 10\ny = 2\n"
    assert (workspace / "b.txt").read_text() == "b\n"
    assert valid(failed)["call_id"] == "call_2" and "nope.txt does not exist" in failed["output"]


def test_another_custom_tools_calls_are_not_claimed(workspace: Path) -> None:
    """A custom tool call of another name is not this tool's: nothing runs for it, and
    the host hears that no tool here answers it (unanswered, the next request fails)."""
    with load(workspace) as tools:
        tools.export("responses", native=True)
        other = custom_call(patch("*** Add File: x.txt", "+x"), name="other_tool")
        with pytest.raises(DispatchError, match="custom_tool_call for the Responses custom"):
            tools.dispatch([other])
    assert not (workspace / "x.txt").exists()


CANONICAL = [
    s for s in SCENARIOS if s.after is not None and s.patch.startswith("*** Begin Patch\n")
]


#: Working scenarios in the looser forms the tool reads and the grammar does not ask for.
LOOSER = {
    "update_first_hunk_without_at_at",
    "trailing_empty_context_line_stands_for_the_last_newline",
}


@pytest.mark.parametrize("scenario", CANONICAL, ids=lambda s: s.name)
def test_the_grammar_reads_the_working_scenarios(scenario: Any) -> None:
    """Every working scenario of the conformance set is in the grammar, except those
    written in the looser forms Codex also reads (no @@ on a first hunk, an empty line
    for an empty context line)."""
    if scenario.name in LOOSER:
        with pytest.raises(lark.exceptions.LarkError):
            PARSER.parse(scenario.patch)
    else:
        PARSER.parse(scenario.patch)


def test_the_grammar_reads_every_part_of_the_format() -> None:
    text = patch(
        "*** Add File: a b/new.txt",
        "+one",
        "+",
        "*** Delete File: old.txt",
        "*** Update File: src/app.py",
        "*** Move to: src/main.py",
        "@@ def greet():",
        " context",
        "-old",
        "+new",
        "@@",
        "+last",
        "*** End of File",
    )
    PARSER.parse(text)
    assert len(parse(text)) == 3


@pytest.mark.parametrize(
    "text",
    [
        "*** Add File: a\n+x\n*** End Patch\n",  # no Begin
        "*** Begin Patch\n*** End Patch\n",  # empty
        "*** Begin Patch\n*** Update File: a\n*** End Patch\n",  # no hunk, no move
        "*** Begin Patch\n*** Update File: a\n@@\nbare line\n*** End Patch\n",
        "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: a\n+x\n",  # no End
    ],
)
def test_the_grammar_refuses_broken_patches(text: str) -> None:
    with pytest.raises(lark.exceptions.LarkError):
        PARSER.parse(text)
