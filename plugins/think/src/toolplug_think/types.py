"""The think tool's types: its action, its observation, and the description a model reads."""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation

DESCRIPTION = """\
Think out loud: the thought is only logged, and nothing changes, so it is always safe. \
Use it to plan several steps, weigh approaches, check earlier results against the \
task before reporting, or keep track of rules that apply. Skip it when the next step \
is obvious."""


class ThinkAction(Action):
    """The input of the think tool: one thought."""

    thought: str = Field(description="Your reasoning, in free text.")


class ThinkObservation(Observation):
    """The result of a think call: the thought that was logged, for hosts to display."""

    thought: str = Field(description="The thought that was logged, exactly as sent.")
