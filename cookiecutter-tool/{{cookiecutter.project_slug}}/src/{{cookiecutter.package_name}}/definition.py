{%- set P = cookiecutter.__class_prefix -%}
{%- set stateful = cookiecutter.kind == "stateful" -%}
"""The {{ cookiecutter.tool_name }} tool: its action, its observation, and the tool itself."""

from __future__ import annotations
{% if stateful %}
from collections.abc import Sequence
from typing import Any
{% endif %}
from pydantic import Field
from toolplug import Action, Observation, ToolAnnotations, {% if stateful %}ToolContext, {% endif %}ToolDefinition

#: What a model reads about the tool in every export: say what it does and when to use it.
DESCRIPTION = "{{ cookiecutter.description | string_body }}"

#: Behaviour hints for hosts (MCP annotations). This example changes nothing.
ANNOTATIONS = ToolAnnotations(
    readOnlyHint=True,
    idempotentHint={{ "False" if stateful else "True" }},
    openWorldHint=False,
)


class {{ P }}Action(Action):
    """The input of the {{ cookiecutter.tool_name }} tool."""

    # Every field needs a description: it is what the model reads in the schema.
    text: str = Field(description="The text to count the words and characters of.")


class {{ P }}Observation(Observation):
    """The result of a {{ cookiecutter.tool_name }} call: the counts, as typed fields."""

    # Typed fields are the MCP structuredContent: hosts read them without parsing text.
    words: int = Field(description="How many words the text has (split on whitespace).")
    characters: int = Field(description="How many characters the text has.")
{%- if stateful %}
    total_words: int = Field(
        description="Words counted in this session so far, this call included."
    )
{%- endif %}
{% if stateful %}

class {{ P }}Tool(ToolDefinition[{{ P }}Action, {{ P }}Observation]):
    """The {{ cookiecutter.tool_name }} tool: created per host session, with its own executor."""

    @classmethod
    def create(
        cls, context: ToolContext, *, max_chars: int = 100_000
    ) -> Sequence[ToolDefinition[Any, Any]]:
        """Build the tool for one session.

        ``context`` carries the host's workspace, environment and limits. The keyword
        arguments are the tool's params (``Tool("{{ cookiecutter.tool_name }}", {"max_chars": 500})``);
        the registry refuses params that are not listed here, and a ``ValueError``
        raised here reaches the user as a clear params error.
        """
        if max_chars < 1:
            raise ValueError(f"max_chars must be at least 1, got {max_chars}")
        # impl imports the models above, so it is imported once they exist.
        from {{ cookiecutter.package_name }}.impl import {{ P }}Executor

        return [
            cls(
                name="{{ cookiecutter.tool_name }}",
                description=DESCRIPTION,
                action_type={{ P }}Action,
                observation_type={{ P }}Observation,
                executor={{ P }}Executor(max_chars=max_chars),
                annotations=ANNOTATIONS,
            )
        ]
{%- else %}

def _build_tool() -> ToolDefinition[{{ P }}Action, {{ P }}Observation]:
    # impl imports the models above, so it is imported once they exist.
    from {{ cookiecutter.package_name }}.impl import {{ P }}Executor

    return ToolDefinition(
        name="{{ cookiecutter.tool_name }}",
        description=DESCRIPTION,
        action_type={{ P }}Action,
        observation_type={{ P }}Observation,
        executor={{ P }}Executor(),
        annotations=ANNOTATIONS,
    )


{{ cookiecutter.tool_name }}_tool = _build_tool()
"""The tool, ready to use: stateless, so one instance serves every session."""
{%- endif %}
