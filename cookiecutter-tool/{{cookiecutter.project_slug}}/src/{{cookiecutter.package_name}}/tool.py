{%- set P = cookiecutter.__class_prefix -%}
{%- set stateful = cookiecutter.kind == "class" -%}
{%- set fn = cookiecutter.tool_name | py_name -%}
{%- if stateful -%}
"""The {{ cookiecutter.tool_name }} tool itself: the types and the executor, tied together.

It imports the types and the executor; neither of them imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field
from toolplug import ToolAnnotations, ToolContext, ToolDefinition

from {{ cookiecutter.package_name }}.executor import {{ P }}Executor
from {{ cookiecutter.package_name }}.types import (
    DESCRIPTION,
    {{ P }}Action,
    {{ P }}Observation,
)

#: Behaviour hints for hosts (MCP annotations). This example changes nothing.
ANNOTATIONS = ToolAnnotations(readOnlyHint=True, idempotentHint=False, openWorldHint=False)


class {{ P }}Tool(ToolDefinition[{{ P }}Action, {{ P }}Observation]):
    """The {{ cookiecutter.tool_name }} tool: created per host session, with its own executor."""

    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        max_chars: Annotated[
            int,
            Field(
                ge=1,
                description="Longest text a call takes; longer ones get an error observation.",
            ),
        ] = 100_000,
    ) -> Sequence[ToolDefinition[Any, Any]]:
        """Build the tool for one session.

        ``context`` carries the host's workspace, environment and limits. The keyword
        arguments are the tool's params (``Tool("{{ cookiecutter.tool_name }}", {"max_chars": 500})``),
        each described in its annotation as an action's fields are. The registry checks
        them against the annotations before this runs (params not listed here, a wrong
        type, a value out of its ``Field`` bounds: each refused with a clear message),
        and ``toolplug tools --params`` lists them with their descriptions. Check here
        only what an annotation cannot say (a path that must exist, say): a
        ``ValueError`` raised here reaches the user as a params error too.
        """
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
{%- else -%}
"""The {{ cookiecutter.tool_name }} tool: a typed function, made a tool by ``@tool``.

The parameters are the tool's input (the model fills them in; the ``Args:`` section
describes each), the return annotation its output type. It imports the types only.
"""

from __future__ import annotations

from toolplug import TextContent, ToolAnnotations, tool

from {{ cookiecutter.package_name }}.types import DESCRIPTION, {{ P }}Observation

#: The longest text a call takes.
MAX_CHARS = 100_000


@tool(
    name="{{ cookiecutter.tool_name }}",
    description=DESCRIPTION,
    annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False),
)
def {{ fn }}(text: str) -> {{ P }}Observation:
    """Count the words and characters of a text.

    Args:
        text: The text to count the words and characters of.
    """
    if len(text) > MAX_CHARS:
        # The model reads this message in an error observation: say what to do instead.
        raise ValueError(
            f"The text has {len(text)} characters; at most {MAX_CHARS} are taken. "
            "Send a shorter text."
        )
    words = len(text.split())
    return {{ P }}Observation(
        content=[TextContent(text=f"{words} words, {len(text)} characters.")],
        words=words,
        characters=len(text),
    )
{%- endif %}
