"""What the server says about itself, and how it answers what it does not serve.

fastmcp builds a general server: it advertises prompts and resources whether or not
anything is behind them, and names itself with fastmcp's version. toolplug
serves tools only, so this module makes the handshake say so:

- :class:`AdvertiseServed` puts exactly :data:`SERVED_CAPABILITIES` in the answer to
  ``initialize`` (and ``server/discover``); ``serverInfo`` is ``toolplug`` with
  :func:`server_version` (given to ``FastMCP`` in
  :func:`~toolplug_mcp.server.serve.build_server`).
- :class:`UnknownToolIsInvalidParams` answers a call of a tool the server does not
  have with the JSON-RPC error ``-32602``, as the 2025-11-25 specification lists it
  for unknown tools (fastmcp answers with an ``isError`` result).
- :class:`HandshakeOnly` keeps HTTP clients on session-based MCP, so that a client's
  tools keep their state from one call to the next.

Clients that list prompts or resources anyway still get empty lists: some hosts ask
every server for them, whatever it advertises.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import mcp_types
from fastmcp.exceptions import DisabledError, NotFoundError
from fastmcp.server.middleware import Middleware
from mcp import MCPError

from toolplug_mcp.server.sessions import connection_of

#: The capabilities ``toolplug mcp serve`` declares: tools, whose list never changes
#: while it runs (so no ``listChanged``; see :data:`DEFERRING_CAPABILITIES`), and
#: logging (tools' log messages are sent as ``notifications/message``; see
#: :mod:`~toolplug_mcp.server.relay`).
SERVED_CAPABILITIES: dict[str, Any] = mcp_types.ServerCapabilities(
    tools=mcp_types.ToolsCapability(), logging=mcp_types.LoggingCapability()
).model_dump(by_alias=True, mode="json", exclude_none=True)


def server_version() -> str:
    """toolplug-mcp's version, for ``serverInfo`` (read from the installed distribution,
    since no module of the plugin imports its own package)."""
    try:
        return version("toolplug-mcp")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


#: The requests whose answer carries the server's capabilities.
_CAPABILITY_ANSWERS = frozenset({"initialize", "server/discover"})


#: :data:`SERVED_CAPABILITIES` of a server with deferred tools (``--defer``): the tool
#: list of a session changes as its searches reveal tools (``listChanged``).
DEFERRING_CAPABILITIES: dict[str, Any] = {
    **SERVED_CAPABILITIES,
    "tools": {**SERVED_CAPABILITIES["tools"], "listChanged": True},
}


class AdvertiseServed:
    """Low-level server middleware: advertise :data:`SERVED_CAPABILITIES` (or, with
    deferred tools, :data:`DEFERRING_CAPABILITIES`), nothing more.

    Installed on the MCP SDK server under fastmcp (``Server.middleware``), where it
    sees the answer to ``initialize`` as the dictionary sent on the wire.
    """

    def __init__(self, capabilities: Mapping[str, Any] = SERVED_CAPABILITIES) -> None:
        self.capabilities = dict(capabilities)

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        """Pass every request on; replace the capabilities in the handshake's answer."""
        result = await call_next(ctx)
        if ctx.method in _CAPABILITY_ANSWERS and isinstance(result, Mapping):
            result = {**result, "capabilities": dict(self.capabilities)}
        return result


class UnknownToolIsInvalidParams(Middleware):
    """A call of a tool the server does not have: JSON-RPC ``-32602``, not a result."""

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        """Run the call; turn fastmcp's "no such tool" into the protocol error."""
        try:
            return await call_next(context)
        except (NotFoundError, DisabledError) as exc:
            name = context.message.name
            raise MCPError(
                code=mcp_types.INVALID_PARAMS,
                message=f"Unknown tool: {name!r}",
                data={"name": name},
            ) from exc


class HandshakeOnly(Middleware):
    """Over HTTP, serve session-based MCP only: tools keep per-session state.

    The stateless ``server/discover`` probe is declined (a client then falls back to
    the ``initialize`` handshake), and a tool call that belongs to no session (a
    single-exchange 2026 request) is refused rather than given tools that would be
    thrown away when it returns.
    """

    async def on_discover(self, context: Any, call_next: Any) -> Any:
        """Decline the probe, so that the client opens a session."""
        raise MCPError(
            code=mcp_types.METHOD_NOT_FOUND,
            message="toolplug serves session-based MCP (tools keep per-session state)",
        )

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        """Refuse a call outside an MCP session; run any other."""
        connection = connection_of(context.fastmcp_context)
        if connection is None or connection.session_id is None:
            raise MCPError(
                code=mcp_types.INVALID_REQUEST,
                message="toolplug serves session-based MCP: open a session with "
                "'initialize' first (tools keep their state across a session's calls)",
            )
        return await call_next(context)


def install(server: Any, *, list_changes: bool = False) -> None:
    """Give a fastmcp server the seams of every transport (HTTP adds :class:`HandshakeOnly`).

    ``list_changes``: a session's tool list changes (deferred tools are revealed).
    """
    # fastmcp offers no public handle on the SDK server it wraps; its middleware list
    # is the SDK's public way to see a request's answer as the wire dictionary.
    capabilities = DEFERRING_CAPABILITIES if list_changes else SERVED_CAPABILITIES
    server._mcp_server.middleware.append(AdvertiseServed(capabilities))
    server.add_middleware(UnknownToolIsInvalidParams())
