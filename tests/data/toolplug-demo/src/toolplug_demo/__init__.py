"""A small real plugin: one stateless tool and one stateful tool with params."""

from pydantic import Field
from toolplug import Action, Observation, ToolAnnotations, ToolDefinition, ToolExecutor, hookimpl


class UpperAction(Action):
    text: str = Field(description="Text to upper-case.")


upper = ToolDefinition(
    name="demo_upper",
    description="Upper-case a text.",
    action_type=UpperAction,
    executor=lambda action: Observation.from_text(action.text.upper()),
    annotations=ToolAnnotations(readOnlyHint=True),
)


class Tally(ToolExecutor):
    def __init__(self, step: int) -> None:
        self.total = 0
        self.step = step

    def __call__(self, action: UpperAction) -> Observation:
        self.total += self.step
        return Observation.from_text(f"{self.total}")


class TallyTool(ToolDefinition):
    @classmethod
    def create(cls, context, *, step: int = 1):
        return [
            cls(
                name="demo_tally",
                description="Add step to a running total.",
                action_type=UpperAction,
                executor=Tally(step),
            )
        ]


@hookimpl
def register_tools(register):
    register(upper, aliases=["shout"])
    register(TallyTool, name="demo_tally")
