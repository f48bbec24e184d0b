"""Native forms (toolplug.formats.forms): a tool exported in a provider's own trained
shape, its calls read back and answered in that shape, through the same path as any call.

The tool is real (it appends to a file in a tmp folder); the provider blocks are built
with the SDKs' own types and the results validated against them.
"""

from __future__ import annotations

import asyncio
import json
import threading
import types
from pathlib import Path
from typing import Any

import anthropic.types as anthropic_types
import pytest
from pydantic import Field, TypeAdapter
from toolplug import Action, Observation, ToolDefinition, Toolset, hookimpl
from toolplug.dispatch import dispatch
from toolplug.errors import ArgumentError, DispatchError, ToolError
from toolplug.formats import NativeForm, default_formats
from toolplug.formats.base import ToolFormat
from toolplug.model import ToolCall
from toolplug.testing import registry_from, validate_observation_exports, validate_tool_exports


class AppendAction(Action):
    line: str = Field(description="The line to append.")
    fresh: bool = Field(default=False, description="Empty the file first.")


class ShellLikeForm(NativeForm):
    """Anthropic's bash declaration on a tool that appends lines: ``command`` is the
    line, ``restart`` empties the file."""

    def __init__(self) -> None:
        super().__init__(
            "anthropic",
            {"type": "bash_20250124", "name": "bash"},
            sdk_type=("anthropic.types", "ToolBash20250124Param", "anthropic"),
        )

    def arguments(self, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("restart"):
            return {"line": "", "fresh": True}
        if not isinstance(data.get("command"), str):
            raise ArgumentError("give `command`, the text to run (or `restart: true`)")
        return {"line": data["command"]}


def append_tool(path: Path, **forms: NativeForm) -> ToolDefinition[AppendAction, Observation]:
    def run(action: AppendAction) -> Observation:
        if action.fresh:
            path.write_text("")
            return Observation.from_text("emptied")
        with path.open("a") as f:
            f.write(action.line + "\n")
        return Observation.from_text(f"appended {action.line}")

    return ToolDefinition(
        name="append_line",
        description="Append a line to the log.",
        action_type=AppendAction,
        executor=run,
        native_forms=forms or {"anthropic": ShellLikeForm()},
    )


def tool_use(name: str, data: Any, call_id: str = "toolu_01") -> dict[str, Any]:
    """A tool_use block as the Anthropic SDK types it, dumped as the API sends it (input
    the SDK would refuse, as a host reading raw JSON would get it)."""
    if not isinstance(data, dict):
        return {"type": "tool_use", "id": call_id, "name": name, "input": data}
    block = anthropic_types.ToolUseBlock(id=call_id, name=name, input=data, type="tool_use")
    return block.model_dump(mode="json")


def check_result(result: Any) -> None:
    TypeAdapter(anthropic_types.ToolResultBlockParam).validate_python(result, strict=True)


def test_export_is_unchanged_without_native(tmp_path: Path) -> None:
    toolset = Toolset([append_tool(tmp_path / "log")])
    [declared] = toolset.export("anthropic")
    assert declared["name"] == "append_line" and "input_schema" in declared
    assert toolset.native_exports() == {}


def test_native_export_declares_the_form_instead_of_the_function(tmp_path: Path) -> None:
    toolset = Toolset([append_tool(tmp_path / "log")])
    exported = toolset.export("anthropic", native=True)
    assert exported == [{"type": "bash_20250124", "name": "bash"}]
    TypeAdapter(anthropic_types.ToolUnionParam).validate_python(exported[0], strict=True)
    # the other formats have no form for it: function declarations, as before
    assert toolset.export("openai", native=True)[0]["function"]["name"] == "append_line"
    # per tool: a name that is not this tool's leaves it a function
    assert toolset.export("anthropic", native={"other"})[0]["name"] == "append_line"
    assert toolset.export("anthropic", native={"append_line"})[0]["type"] == "bash_20250124"
    assert toolset.to_anthropic_tools(native=True) == exported
    assert toolset.to_responses_tools(native=True)[0]["name"] == "append_line"


def test_native_call_round_trip(tmp_path: Path) -> None:
    log = tmp_path / "log"
    with Toolset([append_tool(log)]) as toolset:
        toolset.export("anthropic", native=True)
        [result] = toolset.dispatch([tool_use("bash", {"command": "hello"})])
        assert log.read_text() == "hello\n"
        check_result(result)
        assert result["tool_use_id"] == "toolu_01"
        assert result["content"] == [{"type": "text", "text": "appended hello"}]
        [result] = toolset.dispatch([tool_use("bash", {"restart": True})])
        assert log.read_text() == "" and "is_error" not in result


def test_bad_native_input_is_an_error_result_the_model_can_act_on(tmp_path: Path) -> None:
    log = tmp_path / "log"
    with Toolset([append_tool(log)]) as toolset:
        toolset.export("anthropic", native=True)
        results = toolset.dispatch(
            [
                tool_use("bash", {"cmd": "typo"}, "toolu_1"),
                tool_use("bash", "[1, 2]", "toolu_2"),
                tool_use("bash", "{not json", "toolu_3"),
            ]
        )
    assert not log.exists()
    for result in results:
        check_result(result)
        assert result["is_error"] is True
    assert "give `command`" in results[0]["content"][0]["text"]
    assert "JSON object" in results[1]["content"][0]["text"]
    assert "not valid JSON" in results[2]["content"][0]["text"]


def test_calls_are_native_only_after_a_native_export(tmp_path: Path) -> None:
    log = tmp_path / "log"
    with Toolset([append_tool(log)]) as toolset:
        [result] = toolset.dispatch([tool_use("bash", {"command": "x"})])
        assert result["is_error"] is True and "append_line" in result["content"][0]["text"]
        toolset.export("anthropic", native=True)
        toolset.export("anthropic")  # the last export is what counts
        [result] = toolset.dispatch([tool_use("bash", {"command": "x"})])
        assert result["is_error"] is True
        # the host may say so outright
        [result] = toolset.dispatch([tool_use("bash", {"command": "x"})], native=True)
        assert "is_error" not in result
    assert log.read_text() == "x\n"


def test_dispatch_native_on_a_plain_mapping(tmp_path: Path) -> None:
    tool = append_tool(tmp_path / "log")
    [result] = dispatch({tool.name: tool}, [tool_use("bash", {"command": "a"})], native=True)
    check_result(result)
    assert (tmp_path / "log").read_text() == "a\n"


def test_native_calls_keep_the_output_budget(tmp_path: Path) -> None:
    """The same path as any call: the toolset's budget cuts a native call's result."""
    with Toolset([append_tool(tmp_path / "log")], budget=200) as toolset:
        toolset.export("anthropic", native=True)
        [result] = toolset.dispatch([tool_use("bash", {"command": "y" * 5000})])
    text = result["content"][0]["text"]
    assert len(text) <= 200 and "cut here by the output budget" in text


class ClaimingForm(NativeForm):
    """A form for a provider whose native calls are typed items (like Responses'
    ``shell_call``): it claims them, and answers with its own item type."""

    def __init__(self) -> None:
        super().__init__("responses", {"type": "append_tool"}, call_name="append")

    def read_call(self, item: dict[str, Any], index: int) -> ToolCall | None:
        if item.get("type") != "append_call":
            return None
        return ToolCall(item["call_id"], self.call_name, {"line": item["text"]})

    def render_result(self, call: ToolCall, observation: Observation, fmt: ToolFormat) -> Any:
        return {"type": "append_call_output", "call_id": call.id, "output": observation.text}


def test_a_form_claims_typed_call_items(tmp_path: Path) -> None:
    log = tmp_path / "log"
    with Toolset([append_tool(log, responses=ClaimingForm())]) as toolset:
        assert toolset.export("responses", native=True) == [{"type": "append_tool"}]
        response = {
            "output": [{"type": "reasoning"}, {"type": "append_call", "call_id": "c1", "text": "z"}]
        }
        assert toolset.dispatch(response) == [
            {"type": "append_call_output", "call_id": "c1", "output": "appended z"}
        ]
        with pytest.raises(DispatchError, match="has no 'call_id'"):
            toolset.dispatch([{"type": "append_call", "text": "z"}])
    assert log.read_text() == "z\n"


class BrokenRender(ShellLikeForm):
    def render_result(self, call: ToolCall, observation: Observation, fmt: ToolFormat) -> Any:
        if not observation.is_error:
            raise RuntimeError("no shape for this")
        return super().render_result(call, observation, fmt)


def test_a_form_that_fails_to_render_answers_with_an_error(tmp_path: Path) -> None:
    with Toolset([append_tool(tmp_path / "log", anthropic=BrokenRender())]) as toolset:
        toolset.export("anthropic", native=True)
        [result] = toolset.dispatch([tool_use("bash", {"command": "q"})])
    check_result(result)
    assert result["is_error"] is True and "could not be rendered" in result["content"][0]["text"]


def test_deferred_native_tools(tmp_path: Path) -> None:
    with Toolset([append_tool(tmp_path / "log")]) as toolset:
        toolset.defer("append_line")
        exported = toolset.export("anthropic", native=True)
        assert exported[0] == {"type": "bash_20250124", "name": "bash", "defer_loading": True}
        assert exported[1]["type"] == "tool_search_tool_bm25_20251119"
        default_formats()["anthropic"].check_tool(exported[1])
        TypeAdapter(anthropic_types.ToolUnionParam).validate_python(exported[0], strict=True)


def test_deferred_native_tools_where_the_provider_does_not_search(tmp_path: Path) -> None:
    form = NativeForm(
        "openai", {"type": "function", "function": {"name": "append"}}, call_name="append"
    )
    with Toolset([append_tool(tmp_path / "log", openai=form)]) as toolset:
        toolset.defer("append_line")
        exported = toolset.export("openai", native=True)
        assert [e["function"]["name"] for e in exported] == ["search_tools"]
        [found] = toolset.dispatch([ToolCall("s1", "search_tools", {"query": "append line"})])
        assert not found[1].is_error, found[1].text
        exported = toolset.export("openai", native=True)
        assert [e["function"]["name"] for e in exported] == ["append", "search_tools"]


def test_two_tools_with_one_native_name_are_refused(tmp_path: Path) -> None:
    first = append_tool(tmp_path / "a")
    second = append_tool(tmp_path / "b")
    second.name = "other"
    toolset = Toolset([first, second])
    with pytest.raises(ToolError, match="both have a anthropic native form called 'bash'"):
        toolset.export("anthropic", native=True)
    assert toolset.export("anthropic", native={"other"})[0]["name"] == "bash"
    with pytest.raises(DispatchError, match="called 'bash'"):
        dispatch(dict(toolset.items()), [tool_use("bash", {"command": "x"})], native=True)


def test_forms_are_keyed_by_their_format(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="key each form by its format"):
        append_tool(tmp_path / "log", openai=ShellLikeForm())
    with pytest.raises(ValueError, match="the name its calls carry"):
        NativeForm("anthropic", {"type": "x"})


def test_conformance_checks_cover_native_forms(tmp_path: Path) -> None:
    tool = append_tool(tmp_path / "log")
    validate_tool_exports(tool)
    validate_observation_exports(Observation.from_text("ok"), native_forms=[ShellLikeForm()])

    class WrongDeclaration(ShellLikeForm):
        def declare(self, tool: Any, **options: Any) -> dict[str, Any]:
            return {"type": "bash_20250124", "name": "shell"}

    with pytest.raises(AssertionError, match="native"):
        validate_tool_exports(append_tool(tmp_path / "log", anthropic=WrongDeclaration()))

    class WrongResult(ShellLikeForm):
        def render_result(self, call: ToolCall, observation: Observation, fmt: Any) -> Any:
            return {"type": "tool_result", "tool_use_id": call.id, "content": [{"text": 1}]}

    with pytest.raises(AssertionError, match="native"):
        validate_observation_exports(Observation.from_text("ok"), native_forms=[WrongResult()])


def test_json_string_input_is_read(tmp_path: Path) -> None:
    with Toolset([append_tool(tmp_path / "log")]) as toolset:
        toolset.export("anthropic", native=True)
        [result] = toolset.dispatch([tool_use("bash", json.dumps({"command": "s"}))])
    assert "is_error" not in result and (tmp_path / "log").read_text() == "s\n"


class RefuseFreshLines:
    """A guard plugin: refuses every call that would empty the log, whatever its shape."""

    __name__ = "refuse_fresh"

    @hookimpl(tryfirst=True)
    def tool_call(self, tool: Any, action: Any) -> Observation | None:
        if getattr(action, "fresh", False):
            return Observation.error("Emptying the log is not allowed here.")
        return None


def test_native_calls_go_through_the_call_hooks(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text("kept\n")
    tool = append_tool(log)
    plugin = types.SimpleNamespace(
        __name__="appender", register_tools=hookimpl(lambda register: register(tool))
    )
    registry = registry_from(plugin, RefuseFreshLines())
    with Toolset(registry.resolve("append_line")) as toolset:
        toolset.export("anthropic", native=True)
        [refused, done] = toolset.dispatch(
            [tool_use("bash", {"restart": True}, "t1"), tool_use("bash", {"command": "x"}, "t2")]
        )
    check_result(refused)
    assert refused["is_error"] is True and "not allowed" in refused["content"][0]["text"]
    assert "is_error" not in done
    assert log.read_text() == "kept\nx\n"


def test_a_native_name_that_a_function_tool_has_is_refused(tmp_path: Path) -> None:
    other = append_tool(tmp_path / "other", openai=NativeForm("openai", {"name": "x"}))
    other.name = "bash"  # a function tool named as the first tool's native form
    toolset = Toolset([append_tool(tmp_path / "log"), other])
    with pytest.raises(ToolError, match="also the names of tools exported as functions"):
        toolset.export("anthropic", native=True)
    assert [e["name"] for e in toolset.export("anthropic")] == ["append_line", "bash"]


class WaitingRender(ShellLikeForm):
    """A form whose rendering waits for the event loop to move (as bash's shell form
    waits for an interrupted command): on the loop itself it could only time out."""

    def __init__(self, loop_moved: threading.Event) -> None:
        super().__init__()
        self.loop_moved = loop_moved

    def render_result(self, call: ToolCall, observation: Observation, fmt: ToolFormat) -> Any:
        moved = self.loop_moved.wait(30)
        return fmt.render_result(call, Observation.from_text(f"loop moved: {moved}"))


async def test_adispatch_renders_native_results_off_the_loop(tmp_path: Path) -> None:
    loop_moved = threading.Event()
    with Toolset([append_tool(tmp_path / "log", anthropic=WaitingRender(loop_moved))]) as toolset:
        toolset.export("anthropic", native=True)
        dispatching = asyncio.ensure_future(toolset.adispatch([tool_use("bash", {"command": "q"})]))
        while not dispatching.done() and not loop_moved.is_set():
            await asyncio.sleep(0.01)
            if (tmp_path / "log").exists():  # the call ran: rendering may have begun
                loop_moved.set()
        [result] = await dispatching
    check_result(result)
    assert result["content"][0]["text"] == "loop moved: True"


@pytest.mark.parametrize(
    ("item", "tool"),
    [
        ({"type": "shell_call", "call_id": "c1", "action": {"commands": ["ls"]}}, "shell"),
        (
            {"type": "apply_patch_call", "call_id": "c1", "operation": {"type": "delete_file"}},
            "apply_patch",
        ),
        ({"type": "custom_tool_call", "call_id": "c1", "name": "x", "input": "y"}, "custom"),
    ],
)
def test_a_typed_call_no_form_claims_is_a_dispatch_error(
    tmp_path: Path, item: dict[str, Any], tool: str
) -> None:
    """Left unanswered, the next request would be refused for the missing output."""
    with Toolset([append_tool(tmp_path / "log")]) as toolset:
        toolset.export("responses")
        with pytest.raises(DispatchError, match=f"for the Responses {tool} tool, but no tool"):
            toolset.dispatch([item], format="responses")
        with pytest.raises(DispatchError, match="native=True"):
            toolset.dispatch({"output": [item]})
