"""The finish tool itself: its models and its executor, tied together once."""

from __future__ import annotations

from toolplug import ToolAnnotations, ToolDefinition

from toolplug_finish.executor import FinishExecutor
from toolplug_finish.types import DESCRIPTION, FinishAction, FinishObservation

finish_tool: ToolDefinition[FinishAction, FinishObservation] = ToolDefinition(
    name="finish",
    title="Finish",
    description=DESCRIPTION,
    action_type=FinishAction,
    observation_type=FinishObservation,
    executor=FinishExecutor(),
    annotations=ToolAnnotations(title="Finish", readOnlyHint=True, openWorldHint=False),
)
"""The finish tool, ready to use: stateless, so one instance serves every session."""
