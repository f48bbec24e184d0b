"""The finish tool's executor, and the test a host runs on what came back."""

from __future__ import annotations

from toolplug import Observation, TextContent, ToolExecutor

from toolplug_finish.types import FinishAction, FinishObservation

#: What the model reads back; the message itself goes to the host in a typed field.
CONFIRMATION = "The task is marked as finished; your message goes to the user."


class FinishExecutor(ToolExecutor[FinishAction, FinishObservation]):
    """Marks the task finished and carries the final message to the host."""

    def __call__(self, action: FinishAction) -> FinishObservation:
        return FinishObservation(
            content=[TextContent(text=CONFIRMATION)],
            finished=True,
            message=action.message,
        )


def is_finished(observation: Observation) -> bool:
    """Whether an observation from any tool says the agent has finished.

    True only for a successful finish call: an error observation (bad arguments, a
    refusal by a ``tool_call`` hook) does not end the task.
    """
    return (
        isinstance(observation, FinishObservation)
        and observation.finished
        and not observation.is_error
    )
