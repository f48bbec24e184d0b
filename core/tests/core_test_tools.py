"""Small real tools the core tests share."""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation, ToolAnnotations, ToolDefinition


class EchoAction(Action):
    text: str = Field(description="The text to echo back.")
    times: int = Field(default=1, ge=1, description="How many times to repeat it.")


class EchoObservation(Observation):
    echoed: str = Field(description="The echoed text.")


def run_echo(action: EchoAction) -> EchoObservation:
    out = action.text * action.times
    return EchoObservation.from_text(out, echoed=out)


def make_echo_tool() -> ToolDefinition[EchoAction, EchoObservation]:
    """A read-only tool that repeats its text."""
    return ToolDefinition(
        name="echo",
        description="Echo the text back.",
        action_type=EchoAction,
        observation_type=EchoObservation,
        executor=run_echo,
        annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True),
    )


#: Source of a small plugin module that registers a `shout` tool.
GOOD = """
from pydantic import Field
from toolplug import Action, Observation, ToolDefinition, hookimpl

class Shout(Action):
    text: str = Field(description="Text to shout.")

@hookimpl
def register_tools(register):
    register(ToolDefinition(name="shout", description="Shout.", action_type=Shout,
                            executor=lambda a: Observation.from_text(a.text.upper())))
"""
