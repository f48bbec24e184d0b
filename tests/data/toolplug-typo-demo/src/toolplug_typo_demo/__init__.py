"""A plugin with a misspelled hook: `register_tool` where `register_tools` is meant."""

from toolplug import Action, Observation, ToolDefinition, hookimpl


class Nothing(Action):
    pass


typo = ToolDefinition(
    name="typo_tool",
    description="Never registered.",
    action_type=Nothing,
    executor=lambda action: Observation.from_text("unreachable"),
)


@hookimpl
def register_tool(register):
    register(typo)
