"""A test-only toolplug plugin: a ``gated`` tool, and a ``tool_call`` hook that asks the
calling MCP client before it runs, with the approver ``toolplug mcp serve --policy``
gives the policy plugin (called as that plugin calls it: in the hook, an awaitable
waited for with ``run_awaitable``)."""

from __future__ import annotations

from toolplug import Action, Observation, ToolDefinition, hookimpl
from toolplug.loop import run_awaitable
from toolplug_mcp.server.approval import elicit_approval


class GatedAction(Action):
    command: str | None = None


@hookimpl
def register_tools(register):  # type: ignore[no-untyped-def]
    register(
        ToolDefinition(
            name="gated",
            description="Runs only when the client's user allows it.",
            action_type=GatedAction,
            executor=lambda action: Observation.from_text("ran"),
        )
    )


@hookimpl(tryfirst=True)
def tool_call(tool, action):  # type: ignore[no-untyped-def]
    if tool.name != "gated":
        return None
    answer = elicit_approval(tool, action, "a test rule")
    if not isinstance(answer, bool):
        answer = run_awaitable(answer)
    return None if answer else Observation.error("refused by the user")
