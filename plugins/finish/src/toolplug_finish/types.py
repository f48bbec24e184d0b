"""The finish tool's types: its action, its observation, and the description a model reads."""

from __future__ import annotations

from pydantic import Field, field_validator
from toolplug import Action, Observation

DESCRIPTION = """\
Finish the task and hand your final answer to the user. Call it once, when the work \
is done or cannot be done; no tool call follows it."""


class FinishAction(Action):
    """The input of the finish tool: the message for the user."""

    message: str = Field(
        description=(
            "The answer, or a summary that stands on its own: what was done, what changed "
            "and what is still open."
        )
    )

    @field_validator("message")
    @classmethod
    def _not_blank(cls, message: str) -> str:
        if not message.strip():
            raise ValueError(
                "the message is empty; write the final answer or a summary for the user"
            )
        return message


class FinishObservation(Observation):
    """The result of a finish call: the task is finished, with the final message."""

    # Hosts test `finished` (or `toolplug_finish.is_finished`) to end their loop. The
    # class docstring above is the outputSchema's description, hence this comment.

    finished: bool = Field(default=True, description="True: the agent has finished the task.")
    message: str = Field(description="The final message for the user, exactly as sent.")
