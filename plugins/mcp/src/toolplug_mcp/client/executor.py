"""The executor of an MCP tool: send the call to the server, convert what comes back."""

from __future__ import annotations

from typing import Any

from toolplug import Observation, TextContent, ToolExecutor
from toolplug.loop import arun

from toolplug_mcp.client.connection import ServerConnection, ServerPool
from toolplug_mcp.client.results import to_observation
from toolplug_mcp.errors import RequestFailed


class ServerExecutor(ToolExecutor[Any, Observation]):
    """An executor that talks to one server of a pool, holding the pool while it lives.

    Closing releases the executor's hold on the pool (the last release ends the server
    processes).
    """

    def __init__(self, pool: ServerPool, connection: ServerConnection) -> None:
        self.pool = pool
        self.connection = connection
        pool.acquire()
        self._released = False

    def close(self) -> None:
        """Release the pool (once)."""
        if not self._released:
            self._released = True
            self.pool.release()


class McpExecutor(ServerExecutor):
    """Calls one tool of one MCP server over the pool's shared connection.

    ``__call__`` is native async; whatever loop it is awaited on, the call itself runs
    on the client loop that owns the connection.
    """

    def __init__(
        self,
        pool: ServerPool,
        connection: ServerConnection,
        remote_name: str,
        tool_name: str | None = None,
    ) -> None:
        super().__init__(pool, connection)
        self.remote_name = remote_name
        #: The tool's toolplug name (the server's progress and logs are marked with it).
        self.tool_name = tool_name or remote_name

    async def __call__(self, action: Any) -> Observation:
        return await arun(self._call(action.arguments()))

    async def _call(self, arguments: dict[str, Any]) -> Observation:
        notes: list[str] = []
        try:
            result = await self.connection.call_tool(
                self.remote_name,
                arguments,
                self.connection.spec.timeout,
                notes,
                tool=self.tool_name,
            )
        except RequestFailed as exc:
            return with_notes(Observation.error(str(exc)), notes)
        return with_notes(to_observation(result), notes)


def with_notes(observation: Observation, notes: list[str]) -> Observation:
    """The observation with a note in front, when there is one (as the core adds its
    own notes about repaired arguments)."""
    if not notes:
        return observation
    note = TextContent(text="Note: " + "; ".join(notes) + ".")
    return observation.model_copy(update={"content": [note, *observation.content]})
