"""Behaviour of the think tool, called the ways hosts call it."""

from __future__ import annotations

import logging

import pytest
import toolplug_think
from toolplug import Observation, Tool, ToolParamsError, Toolset
from toolplug.formats import export_tool, render
from toolplug.testing import registry_from, validate_observation_exports
from toolplug_think import CONFIRMATION, ThinkObservation, think_tool


def test_a_thought_is_confirmed_to_the_model_and_given_back_to_the_host() -> None:
    observation = think_tool.call({"thought": "Option A is simpler; B is faster."})

    assert isinstance(observation, ThinkObservation)
    assert not observation.is_error
    assert observation.text == CONFIRMATION
    assert observation.thought == "Option A is simpler; B is faster."
    result = render(observation, "mcp")
    assert result["structuredContent"] == {
        "text": CONFIRMATION,
        "thought": "Option A is simpler; B is faster.",
    }
    validate_observation_exports(observation)


def test_a_long_multilingual_thought_comes_back_whole() -> None:
    thought = ("Étape 1 — lire le fichier; 手順 2: テストを実行 🙂\n" * 5000).strip()

    observation = think_tool.call({"thought": thought})

    assert observation.thought == thought


def test_arguments_sent_as_a_json_string_work() -> None:
    observation = think_tool.call('{"thought": "plan: read, edit, test"}')

    assert observation.thought == "plan: read, edit, test"


def test_the_thought_is_logged_for_the_host(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="toolplug.think"):
        think_tool.call({"thought": "check the exit code"})

    assert any("check the exit code" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, "thought: this required field is missing"),
        ({"thought": 42}, "thought: Input should be a valid string"),
        ('{"thought": "unclosed', "not valid JSON"),
    ],
)
def test_bad_arguments_give_an_error_the_model_can_act_on(arguments: object, expected: str) -> None:
    observation = think_tool.call(arguments)

    assert observation.is_error
    assert type(observation) is Observation
    assert expected in observation.text
    assert "think" in observation.text


def test_an_unknown_field_is_dropped_with_a_note() -> None:
    observation = think_tool.call({"thought": "ok", "mood": "calm"})

    assert not observation.is_error
    assert observation.thought == "ok"
    assert "mood" in render(observation, "mcp")["content"][0]["text"]


async def test_acall_from_an_async_host() -> None:
    observation = await think_tool.acall({"thought": "async plan"})

    assert isinstance(observation, ThinkObservation)
    assert observation.thought == "async plan"


def test_the_registry_refuses_params_for_think() -> None:
    registry = registry_from(toolplug_think)

    with pytest.raises(ToolParamsError, match="tool 'think' takes no params, got: depth"):
        registry.resolve(Tool("think", {"depth": 3}))


def test_annotations_say_read_only_idempotent_closed_world() -> None:
    annotations = export_tool(think_tool, "mcp")["annotations"]

    assert annotations == {
        "title": "Think",
        "readOnlyHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }


def test_the_exported_description_tells_when_to_think() -> None:
    description = export_tool(think_tool, "anthropic")["description"]

    for use in ("plan several steps", "weigh approaches", "check earlier results"):
        assert use in description


def test_a_toolset_from_the_installed_entry_point_calls_think() -> None:
    with Toolset.load(["think"], plugins=["think"]) as tools:
        assert list(tools) == ["think"]
        observation = tools.call("think", {"thought": "from the toolset"})

    assert observation.thought == "from the toolset"
