{%- set P = cookiecutter.__class_prefix -%}
{%- set stateful = cookiecutter.kind == "stateful" -%}
"""The {{ cookiecutter.tool_name }} tool itself: the types and the executor, tied together.

It imports the types and the executor; neither of them imports it.
"""

from __future__ import annotations
{% if stateful %}
from collections.abc import Sequence
from typing import Any
{% endif %}
from toolplug import ToolAnnotations, {% if stateful %}ToolContext, {% endif %}ToolDefinition

from {{ cookiecutter.package_name }}.executor import {{ P }}Executor
from {{ cookiecutter.package_name }}.types import (
    DESCRIPTION,
    {{ P }}Action,
    {{ P }}Observation,
)

#: Behaviour hints for hosts (MCP annotations). This example changes nothing.
ANNOTATIONS = ToolAnnotations(
    readOnlyHint=True,
    idempotentHint={{ "False" if stateful else "True" }},
    openWorldHint=False,
)
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
{{ cookiecutter.tool_name }}_tool: ToolDefinition[{{ P }}Action, {{ P }}Observation] = ToolDefinition(
    name="{{ cookiecutter.tool_name }}",
    description=DESCRIPTION,
    action_type={{ P }}Action,
    observation_type={{ P }}Observation,
    executor={{ P }}Executor(),
    annotations=ANNOTATIONS,
)
"""The tool, ready to use: stateless, so one instance serves every session."""
{%- endif %}
