"""A test-only toolplug plugin: a counter whose state lives in its executor.

Each created instance counts from zero, so two MCP sessions that share a counter would
see each other's counts. The tests expose it through a hand-written entry point.
"""

from __future__ import annotations

import os

from pydantic import Field
from toolplug import Action, Observation, ToolDefinition, ToolExecutor, hookimpl


class CountAction(Action):
    step: int = Field(default=1, description="How much to add.")


class CountObservation(Observation):
    value: int = Field(description="The counter after the step.")
    pid: int = Field(description="The process that keeps the counter.")


class Counter(ToolExecutor[CountAction, CountObservation]):
    def __init__(self) -> None:
        self.value = 0
        self.closed_file = os.environ.get("COUNTER_CLOSED_FILE")

    def __call__(self, action: CountAction) -> CountObservation:
        self.value += action.step
        return CountObservation.from_text(str(self.value), value=self.value, pid=os.getpid())

    def close(self) -> None:
        if self.closed_file:
            with open(self.closed_file, "a") as fh:
                fh.write(f"closed at {self.value}\n")


class CounterTool(ToolDefinition[CountAction, CountObservation]):
    @classmethod
    def create(cls, context, **params):  # type: ignore[no-untyped-def]
        return [
            cls(
                name="counter",
                description="Add to a counter kept per session and return it.",
                action_type=CountAction,
                observation_type=CountObservation,
                executor=Counter(),
            )
        ]


@hookimpl
def register_tools(register):  # type: ignore[no-untyped-def]
    register(CounterTool, name="counter")
