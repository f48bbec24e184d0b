"""Following a server's ``notifications/tools/list_changed`` into the toolsets.

A server may add, remove or change tools while it runs, and say so with
``notifications/tools/list_changed``. A :class:`ToolsFollower` (one per pool) lists the
server's tools again and brings each toolset holding the pool's tools up to date with
:meth:`toolplug.Toolset.update`: new tools appear (named as at load, taking no name
another tool of the toolset has), removed ones go, and a tool whose listing changed
(its schema, description or annotations) is replaced. The host sees what changed in
``toolset.changes()``.

A toolset is followed from the moment it takes one of the pool's server tools (the
core calls ``McpTool.added_to``); the new tools are made like that first one, going
through the same ``tool_call`` hooks. Everything here runs on the client loop.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolplug_mcp.client.connection import ServerConnection, ServerPool
from toolplug_mcp.client.executor import McpExecutor
from toolplug_mcp.errors import RequestFailed

if TYPE_CHECKING:
    from toolplug import ToolDefinition, Toolset

log = logging.getLogger("toolplug.mcp")

#: ``plan(pool, taken)``: the exported name, connection and listed tool of every tool
#: of the pool's servers, avoiding the names in ``taken``.
Plan = Callable[[ServerPool, set[str]], list[tuple[str, ServerConnection, Any]]]


class ToolsFollower:
    """Keeps the toolsets that hold a pool's tools in step with its servers' listings."""

    def __init__(self, pool: ServerPool, plan: Plan) -> None:
        self.pool = pool
        self._plan = plan
        # Each followed toolset, and the first of the pool's tools it took (new tools
        # are made like it).
        self._followed: list[tuple[weakref.ref[Toolset], Any]] = []
        self._dirty: set[str] = set()
        self._running: dict[str, asyncio.Task[None]] = {}
        for connection in pool.connections.values():
            connection.on_tools_changed = self.changed

    def follow(self, toolset: Toolset, model: Any) -> None:
        """Follow ``toolset``; ``model`` (an ``McpTool`` in it) makes the new tools."""
        self._followed = [(ref, m) for ref, m in self._followed if ref() is not None]
        if not any(ref() is toolset for ref, _ in self._followed):
            self._followed.append((weakref.ref(toolset), model))

    def changed(self, connection: ServerConnection) -> None:
        """The server said its tool list changed: list it again, soon (on the loop).

        Notifications that arrive while a listing runs make one more listing after it,
        so that the last change is never missed.
        """
        name = connection.spec.name
        self._dirty.add(name)
        if name not in self._running:
            task = asyncio.get_running_loop().create_task(self._refresh(connection))
            self._running[name] = task

    async def _refresh(self, connection: ServerConnection) -> None:
        name = connection.spec.name
        try:
            while name in self._dirty:
                self._dirty.discard(name)
                try:
                    await connection.list_tools()
                except RequestFailed as exc:
                    log.warning("MCP server '%s': tools not listed again: %s", name, exc)
                    return
                for ref, model in list(self._followed):
                    toolset = ref()
                    if toolset is not None:
                        self._bring(toolset, model)
        except Exception:  # never let a failure end silently in an unawaited task
            log.warning("MCP server '%s': following its tool list failed", name, exc_info=True)
        finally:
            del self._running[name]

    def _bring(self, toolset: Toolset, model: Any) -> None:
        """Update one toolset to the pool's current listings."""
        # The pool's server tools in the toolset: McpTools (typed loosely, as
        # toolplug_mcp.client.tool imports this module).
        mine: dict[str, Any] = {
            name: tool
            for name, tool in toolset.items()
            if isinstance(tool.executor, McpExecutor) and tool.executor.pool is self.pool
        }
        taken = {name for name in toolset if name not in mine}
        planned = self._plan(self.pool, taken)
        add: list[ToolDefinition[Any, Any]] = []
        remove = [name for name in mine if name not in {n for n, _, _ in planned}]
        for name, connection, remote in planned:
            old = mine.get(name)
            if old is not None and not old.differs(connection, remote):
                continue
            if old is not None:
                remove.append(name)
            add.append(model.like(name, remote, connection))
        if not add and not remove:
            return
        changes = toolset.update(add=add, remove=remove)
        for change in changes:
            log.info("MCP tool '%s' %s (the server's tool list changed)", change.name, change.kind)
