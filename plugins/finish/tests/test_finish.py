"""Behaviour of the finish tool, called the ways hosts call it."""

from __future__ import annotations

import pytest
import toolplug_finish
from toolplug import Observation, Tool, ToolDefinition, ToolParamsError, Toolset, hookimpl
from toolplug.formats import export_tool, render
from toolplug.testing import registry_from, validate_observation_exports
from toolplug_finish import CONFIRMATION, FinishObservation, finish_tool, is_finished


def test_finishing_sets_the_typed_flag_and_carries_the_message() -> None:
    observation = finish_tool.call({"message": "All 12 tests pass."})

    assert isinstance(observation, FinishObservation)
    assert observation.finished is True
    assert observation.message == "All 12 tests pass."
    assert observation.text == CONFIRMATION
    assert is_finished(observation)
    validate_observation_exports(observation)


def test_mcp_structured_content_has_the_flag_and_the_message() -> None:
    result = render(finish_tool.call({"message": "done"}), "mcp")

    assert result["isError"] is False
    assert result["structuredContent"] == {
        "text": CONFIRMATION,
        "finished": True,
        "message": "done",
    }


def test_the_output_schema_describes_the_typed_fields() -> None:
    schema = export_tool(finish_tool, "mcp")["outputSchema"]

    assert schema["properties"]["finished"]["type"] == "boolean"
    assert schema["properties"]["message"]["type"] == "string"
    assert schema["required"] == ["text", "message"]


def test_a_long_multiline_message_comes_back_whole() -> None:
    message = "## Summary\n" + "\n".join(f"- changed file_{i}.py — ok ✓" for i in range(20000))

    observation = finish_tool.call({"message": message})

    assert observation.message == message


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, "message: this required field is missing"),
        ({"message": "   \n"}, "the message is empty"),
        ({"message": ["a", "b"]}, "message: Input should be a valid string"),
        ("finish now", "not valid JSON"),
    ],
)
def test_bad_arguments_do_not_finish_and_say_why(arguments: object, expected: str) -> None:
    observation = finish_tool.call(arguments)

    assert observation.is_error
    assert expected in observation.text
    assert not is_finished(observation)
    validate_observation_exports(observation)


def test_is_finished_is_false_for_other_tools_observations() -> None:
    assert not is_finished(Observation.from_text("exit code 0"))
    assert not is_finished(Observation.error("failed"))


def test_a_failed_finish_observation_is_not_finished() -> None:
    failed = FinishObservation(message="partial", is_error=True)

    assert not is_finished(failed)


async def test_acall_from_an_async_host() -> None:
    observation = await finish_tool.acall({"message": "async done"})

    assert is_finished(observation)


def test_the_registry_refuses_params_for_finish() -> None:
    registry = registry_from(toolplug_finish)

    with pytest.raises(ToolParamsError, match="tool 'finish' takes no params, got: verbose"):
        registry.resolve(Tool("finish", {"verbose": True}))


def test_annotations_say_read_only_closed_world() -> None:
    annotations = export_tool(finish_tool, "mcp")["annotations"]

    assert annotations == {"title": "Finish", "readOnlyHint": True, "openWorldHint": False}


class RefuseFinishing:
    """A policy plugin that does not let the agent stop yet."""

    @hookimpl
    def tool_call(self, tool: ToolDefinition, action: object) -> Observation | None:
        if tool.name == "finish":
            return Observation.error("Not yet: run the tests first.")
        return None


def test_a_finish_refused_by_a_tool_call_hook_does_not_end_the_loop() -> None:
    registry = registry_from(toolplug_finish, RefuseFinishing())
    (tool,) = registry.resolve("finish")

    observation = tool.call({"message": "done"})

    assert observation.is_error
    assert "run the tests first" in observation.text
    assert not is_finished(observation)


def test_a_host_loop_ends_on_finish() -> None:
    calls = [("finish", '{"message": "first"}'), ("finish", '{"message": "never reached"}')]
    with Toolset.load(["finish"], plugins=["finish"]) as tools:
        seen = []
        for name, arguments in calls:
            observation = tools.call(name, arguments)
            seen.append(observation)
            if is_finished(observation):
                break

    assert len(seen) == 1
    assert seen[0].message == "first"
