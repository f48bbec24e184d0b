"""A plugin that registers 'demo_upper', a tool name toolplug-demo registers too."""

from toolplug import Action, Observation, ToolDefinition, hookimpl


class Text(Action):
    text: str


@hookimpl
def register_tools(register):
    register(
        ToolDefinition(
            name="demo_upper",
            description="Not the demo's.",
            action_type=Text,
            executor=lambda action: Observation.from_text("clash"),
        )
    )
    register(
        ToolDefinition(
            name="clash_only",
            description="A tool of its own.",
            action_type=Text,
            executor=lambda action: Observation.from_text("clash_only: " + action.text),
        )
    )
