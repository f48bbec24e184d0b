"""Deferred tools over ``toolplug mcp serve`` (``--defer``, ``--defer-above``).

MCP has no tool search of its own, so the server does what toolplug's local formats do
(:mod:`toolplug.deferral`): ``tools/list`` leaves the deferred tools out and lists
``search_tools``; a call of ``search_tools`` reveals the tools it finds to that session
alone, and the server then sends the session ``notifications/tools/list_changed`` (the
capability says ``listChanged``), so a client that follows it lists the tools again
and finds them there. Each session's toolset keeps what it revealed: another client
still sees the short list.

A deferred tool is still served: a client that calls it by name (it knew the name
from elsewhere) gets its result, as the local formats' dispatch does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mcp_types
from fastmcp.server.middleware import Middleware
from toolplug import Deferral, ToolDefinition, Toolset

from toolplug_mcp.server.sessions import SessionToolsets, connection_of

#: The name of the local search tool (toolplug.deferral.SEARCH_TOOL).
SEARCH_TOOL = "search_tools"


def deferred_names(
    rule: Deferral, templates: Sequence[ToolDefinition[Any, Any]], factories: dict[str, str]
) -> frozenset[str]:
    """The served tools ``rule`` defers, as each session's toolset will defer them."""
    total = len(templates)
    return frozenset(
        t.name for t in templates if rule.chooses(t.name, factories.get(t.name), total)
    )


def search_tool(rule: Deferral) -> ToolDefinition[Any, Any]:
    """``search_tools``'s definition under ``rule``, for its MCP listing (every session
    calls its own toolset's)."""
    probe = Toolset(budget=None).defer(rule)
    found = probe.find(SEARCH_TOOL)
    assert found is not None  # a toolset with a deferral always has it
    return found


def revealed(toolset: Toolset) -> frozenset[str]:
    """The deferred tools ``toolset``'s searches have revealed."""
    return toolset.deferral.revealed if toolset.deferral is not None else frozenset()


async def announce_if_revealed(context: Any, before: frozenset[str], toolset: Toolset) -> None:
    """After a ``search_tools`` call: tell the session its tool list changed, when the
    call revealed a tool it did not see before."""
    if revealed(toolset) - before:
        await context.send_notification(mcp_types.ToolListChangedNotification())


class HideDeferred(Middleware):
    """``tools/list``: the deferred tools a session has not revealed are left out."""

    def __init__(self, sessions: SessionToolsets, deferred: frozenset[str]) -> None:
        self.sessions = sessions
        self.deferred = deferred

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        """List every tool, then drop the session's hidden ones."""
        listed = await call_next(context)
        shown = await self._revealed(context.fastmcp_context)
        return [t for t in listed if t.name not in self.deferred or t.name in shown]

    async def _revealed(self, fastmcp_context: Any) -> frozenset[str]:
        """What the session's searches revealed; nothing before its first call (its tools
        are made then)."""
        if self.sessions.shared:
            tools = self.sessions.only()
        else:
            connection = connection_of(fastmcp_context)
            if connection is None:
                return frozenset()
            tools = self.sessions.for_connection(connection)
        toolset = tools.loaded()
        return revealed(toolset) if toolset is not None else frozenset()
