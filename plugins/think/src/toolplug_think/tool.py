"""The think tool itself: its models and its executor, tied together once."""

from __future__ import annotations

from toolplug import ToolAnnotations, ToolDefinition

from toolplug_think.executor import ThinkExecutor
from toolplug_think.types import DESCRIPTION, ThinkAction, ThinkObservation

think_tool: ToolDefinition[ThinkAction, ThinkObservation] = ToolDefinition(
    name="think",
    title="Think",
    description=DESCRIPTION,
    action_type=ThinkAction,
    observation_type=ThinkObservation,
    executor=ThinkExecutor(),
    annotations=ToolAnnotations(
        title="Think",
        readOnlyHint=True,
        idempotentHint=True,
        openWorldHint=False,
    ),
)
"""The think tool, ready to use: stateless, so one instance serves every session."""
