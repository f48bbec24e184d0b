"""The executor of an MCP tool: send the call to the server, convert what comes back."""

from __future__ import annotations

from typing import Any

from toolplug import Observation, ToolExecutor
from toolplug.loop import arun

from toolplug_mcp.connection import (
    CallRefused,
    CallTimedOut,
    ServerConnection,
    ServerGone,
    ServerPool,
)
from toolplug_mcp.results import to_observation


class McpExecutor(ToolExecutor[Any, Observation]):
    """Calls one tool of one MCP server over the pool's shared connection.

    ``__call__`` is native async; whatever loop it is awaited on, the call itself runs
    on the client loop that owns the connection. Closing releases the executor's hold
    on the pool (the last release ends the server processes).
    """

    def __init__(self, pool: ServerPool, connection: ServerConnection, remote_name: str) -> None:
        self.pool = pool
        self.connection = connection
        self.remote_name = remote_name
        pool.acquire()
        self._released = False

    async def __call__(self, action: Any) -> Observation:
        return await arun(self._call(action.arguments()))

    async def _call(self, arguments: dict[str, Any]) -> Observation:
        try:
            result = await self.connection.call_tool(
                self.remote_name, arguments, self.connection.spec.timeout
            )
        except (ServerGone, CallTimedOut, CallRefused) as exc:
            return Observation.error(str(exc))
        return to_observation(result)

    def close(self) -> None:
        """Release the pool (once)."""
        if not self._released:
            self._released = True
            self.pool.release()
