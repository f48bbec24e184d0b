"""A plugin whose entry-point name, 'twin', another distribution also uses."""

from toolplug import Action, Observation, ToolDefinition, hookimpl


class Nothing(Action):
    pass


twin = ToolDefinition(
    name="twin",
    description="Say which distribution answered.",
    action_type=Nothing,
    executor=lambda action: Observation.from_text("toolplug-twin-two"),
)


@hookimpl
def register_tools(register):
    register(twin)
