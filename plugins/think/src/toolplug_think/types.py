"""The think tool's types: its action, its observation, and the description a model reads."""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation

DESCRIPTION = """\
Think out loud. Nothing in the workspace changes and nothing new is fetched: the \
thought is only logged, so it is always safe to call.

Use it when writing the reasoning down helps before acting:
- planning a task with several steps, or deciding which tool to call next;
- weighing options when more than one approach could work;
- checking the results of earlier tool calls against what the task asks for, \
before you report back;
- keeping track of rules or constraints that apply to what you are about to do.

Skip it for simple steps whose next action is obvious."""


class ThinkAction(Action):
    """The input of the think tool: one thought."""

    thought: str = Field(
        description=(
            "Your reasoning, in free text: a plan, the options and their trade-offs, "
            "or a check of what you have done so far."
        )
    )


class ThinkObservation(Observation):
    """The result of a think call: the thought that was logged, for hosts to display."""

    thought: str = Field(description="The thought that was logged, exactly as sent.")
