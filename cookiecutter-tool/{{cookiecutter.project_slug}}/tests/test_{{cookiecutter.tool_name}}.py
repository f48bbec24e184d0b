{%- set P = cookiecutter.__class_prefix -%}
{%- set stateful = cookiecutter.kind == "class" -%}
"""Behaviour of the {{ cookiecutter.tool_name }} tool. Keep these in step with your logic."""

from __future__ import annotations
{% if stateful %}
from pathlib import Path
{% endif %}
import pytest
from toolplug import Tool, {% if stateful %}ToolContext, {% endif %}ToolParamsError, ToolRegistry
from toolplug.formats import export_tool
from toolplug.testing import validate_observation_exports, validate_tool_exports

NAME = "{{ cookiecutter.tool_name }}"


@pytest.fixture
def registry() -> ToolRegistry:
    """The plugin loaded the way hosts load it: through its installed entry point."""
    return ToolRegistry.from_plugins([NAME])


def test_the_plugin_is_discovered_through_its_entry_point(registry: ToolRegistry) -> None:
    (report,) = [r for r in registry.reports if r.name == NAME]
    assert report.status == "ok", report.error
    assert report.distribution == "{{ cookiecutter.project_slug }}"
    assert report.tools == [NAME]


def test_a_call_returns_typed_counts(registry: ToolRegistry) -> None:
    (tool,) = registry.resolve(NAME)
    try:
        observation = tool.call({"text": "to be or not"})
    finally:
        tool.close()

    assert not observation.is_error, observation.text
    assert observation.words == 4
    assert observation.characters == 12
    assert observation.text == "4 words, 12 characters."
    validate_observation_exports(observation)


@pytest.mark.parametrize("arguments", [{}, {"text": 12}, "not json", '["a list"]'])
def test_bad_arguments_give_an_error_observation(registry: ToolRegistry, arguments: object) -> None:
    (tool,) = registry.resolve(NAME)
    try:
        observation = tool.call(arguments)
    finally:
        tool.close()

    assert observation.is_error
    assert NAME in observation.text
    validate_observation_exports(observation)


def test_exports_validate_in_every_provider_format(registry: ToolRegistry) -> None:
    (tool,) = registry.resolve(NAME)
    try:
        validate_tool_exports(tool)
        assert export_tool(tool, "mcp")["outputSchema"]["properties"]["words"]["type"] == "integer"
    finally:
        tool.close()
{% if stateful %}

def test_the_total_grows_within_a_session_and_not_across(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    context = ToolContext(workspace=tmp_path)
    (first,) = registry.resolve(NAME, context)
    (second,) = registry.resolve(NAME, context)
    try:
        first.call({"text": "a b"})
        again = first.call({"text": "c d e"})
        elsewhere = second.call({"text": "f"})
    finally:
        first.close()
        second.close()

    assert again.total_words == 5
    assert elsewhere.total_words == 1


def test_a_text_over_the_limit_is_refused_with_a_hint(registry: ToolRegistry) -> None:
    (tool,) = registry.resolve(Tool(NAME, {"max_chars": 5}))
    try:
        observation = tool.call({"text": "longer than five"})
    finally:
        tool.close()

    assert observation.is_error
    assert "at most 5" in observation.text


def test_a_closed_tool_answers_with_an_error(registry: ToolRegistry) -> None:
    (tool,) = registry.resolve(NAME)
    tool.close()

    observation = tool.call({"text": "late"})

    assert observation.is_error
    assert "closed" in observation.text


def test_bad_params_are_refused_clearly(registry: ToolRegistry) -> None:
    with pytest.raises(ToolParamsError, match="max_chars: .* greater than or equal to 1"):
        registry.resolve(Tool(NAME, {"max_chars": 0}))
    with pytest.raises(ToolParamsError, match="it takes: max_chars"):
        registry.resolve(Tool(NAME, {"colour": "red"}))
{%- else %}

def test_params_are_refused(registry: ToolRegistry) -> None:
    with pytest.raises(ToolParamsError, match="takes no params"):
        registry.resolve(Tool(NAME, {"colour": "red"}))
{%- endif %}
