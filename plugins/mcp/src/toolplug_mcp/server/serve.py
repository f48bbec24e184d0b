"""Serving toolplug tools over MCP (``toolplug mcp serve``).

Every enabled tool is offered with its input schema, output schema, annotations and
structured results. Each MCP client session gets its own tool instances (its own bash
session, its own undo history): a :class:`~toolplug.Toolset` created on the session's
first call and closed when the session ends (the client's ``DELETE``, the session's
idle timeout, or the server's shutdown): see :mod:`~toolplug_mcp.server.sessions`.

Over HTTP the server speaks the session-based (handshake) MCP protocol: it declines
the stateless ``server/discover`` probe, so that every client, fastmcp's included, gets
a session whose tools keep their state from one call to the next. Over stdio the
process serves one client, which is one session whatever the protocol.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from typing import Any

import mcp_types
from fastmcp import FastMCP
from fastmcp.server.dependencies import get_context
from fastmcp.server.middleware import Middleware
from fastmcp.tools.base import Tool, ToolResult
from mcp import MCPError
from pydantic import PrivateAttr
from toolplug import Tool as ToolSpec, ToolContext, ToolDefinition, ToolError, ToolRegistry
from toolplug.formats import export_tool, render

from toolplug_mcp.server.security import TOKEN_ENV_VAR, BearerTokenMiddleware, is_loopback
from toolplug_mcp.server.sessions import DEFAULT_IDLE_TIMEOUT, SessionToolsets

log = logging.getLogger("toolplug.mcp")


class ServedTool(Tool):
    """A toolplug tool as a fastmcp tool: each call runs in the caller's session toolset."""

    _sessions: SessionToolsets = PrivateAttr()

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """Validate and run through toolplug's safe path; errors come back as results."""
        sessions = self._sessions
        session_id = "stdio" if sessions.single_client else get_context().session_id
        try:
            toolset = await sessions.get(session_id)
        except Exception as exc:
            text = f"The tools of this session could not be started: {exc}"
            return ToolResult(
                content=[mcp_types.TextContent(type="text", text=text)], is_error=True
            )
        observation = await toolset.acall(self.name, arguments)
        result = mcp_types.CallToolResult.model_validate(render(observation, "mcp"))
        return ToolResult(
            content=list(result.content),
            structured_content=result.structured_content,
            is_error=bool(result.is_error),
        )


def served_tool(definition: ToolDefinition[Any, Any], sessions: SessionToolsets) -> ServedTool:
    """The fastmcp tool that serves ``definition`` (its MCP export, unchanged)."""
    exported = export_tool(definition, "mcp")
    annotations = exported.get("annotations")
    tool = ServedTool(
        name=exported["name"],
        title=exported.get("title"),
        description=exported.get("description"),
        parameters=exported["inputSchema"],
        output_schema=exported.get("outputSchema"),
        annotations=mcp_types.ToolAnnotations.model_validate(annotations) if annotations else None,
        meta=exported.get("_meta"),
    )
    tool._sessions = sessions
    return tool


class _HandshakeOnly(Middleware):
    """Decline ``server/discover`` so that clients fall back to a session-based handshake."""

    async def on_discover(self, context: Any, call_next: Any) -> Any:
        raise MCPError(
            code=mcp_types.METHOD_NOT_FOUND,
            message="toolplug serves session-based MCP (tools keep per-session state)",
        )


def build_server(
    plugins: str | Iterable[str] | None = None,
    *,
    context: ToolContext | None = None,
    registry: ToolRegistry | None = None,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
) -> tuple[FastMCP, SessionToolsets, list[str]]:
    """A fastmcp server offering every enabled tool, and its session toolsets.

    Returns the server, the sessions (close them with ``close_all`` on shutdown), and
    the problems met while loading (a tool that cannot be created is left out).
    """
    registry = registry if registry is not None else ToolRegistry.from_plugins(plugins)
    context = context or ToolContext()
    problems = [
        f"plugin {r.name} is broken: {r.error}" for r in registry.reports if r.status == "broken"
    ]
    specs: list[ToolSpec] = []
    templates: list[ToolDefinition[Any, Any]] = []
    for entry in registry:
        try:
            created = registry.resolve(entry.name, context)
        except ToolError as exc:
            problems.append(f"{entry.name}: {exc}")
            continue
        specs.append(ToolSpec(entry.name))
        templates.extend(created)
    server = FastMCP("toolplug", instructions="Tools from installed toolplug plugins.")
    sessions = SessionToolsets(registry, specs, context, idle_timeout)
    try:
        for definition in templates:
            server.add_tool(served_tool(definition, sessions))
    finally:
        # The templates only gave the schemas; each session creates its own tools.
        for definition in templates:
            definition.close()
    return server, sessions, problems


class SessionEndMiddleware:
    """ASGI middleware: a ``DELETE`` that ends an MCP session closes that session's tools."""

    def __init__(self, app: Any, sessions: SessionToolsets) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)
        if scope["type"] == "http" and scope.get("method") == "DELETE":
            session_id = dict(scope.get("headers", [])).get(b"mcp-session-id")
            if session_id:
                await self.sessions.end(session_id.decode("latin-1"))


def http_app(
    server: FastMCP,
    sessions: SessionToolsets,
    *,
    token: str | None = None,
    allowed_origins: Sequence[str] | None = None,
    path: str = "/mcp",
) -> Any:
    """The Starlette app: Host/Origin checks (against DNS rebinding), token, session ends."""
    from starlette.middleware import Middleware as AsgiMiddleware

    # Over HTTP, sessions are what keeps one client's tools apart from another's.
    server.add_middleware(_HandshakeOnly())
    middleware = [AsgiMiddleware(SessionEndMiddleware, sessions=sessions)]
    if token:
        middleware.insert(0, AsgiMiddleware(BearerTokenMiddleware, token=token))
    return server.http_app(
        path=path,
        middleware=middleware,
        # Plain JSON answers: toolplug tools send no progress mid-call, and JSON is
        # cheaper than an SSE stream per request.
        json_response=True,
        host_origin_protection="auto",
        allowed_origins=list(allowed_origins) if allowed_origins else None,
        session_idle_timeout=sessions.idle_timeout,
    )


async def serve_http(
    server: FastMCP,
    sessions: SessionToolsets,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    allowed_origins: Sequence[str] | None = None,
    path: str = "/mcp",
    started: asyncio.Event | None = None,
) -> None:
    """Serve over streamable HTTP until cancelled or interrupted; then close every session.

    A non-loopback ``host`` needs a ``token``.
    """
    import uvicorn

    if not is_loopback(host) and not token:
        raise ToolError(
            f"binding {host} exposes the tools to the network: give a bearer token "
            f"with --token or {TOKEN_ENV_VAR}"
        )
    app = http_app(server, sessions, token=token, allowed_origins=allowed_origins, path=path)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    uvicorn_server = uvicorn.Server(config)
    task = asyncio.create_task(uvicorn_server.serve())
    try:
        if started is not None:
            while not uvicorn_server.started and not task.done():
                await asyncio.sleep(0.02)
            started.set()
        await asyncio.shield(task)
    except asyncio.CancelledError:
        uvicorn_server.should_exit = True
        await asyncio.wait({task}, timeout=10)
        raise
    finally:
        await sessions.close_all()


async def serve_stdio(server: FastMCP, sessions: SessionToolsets) -> None:
    """Serve one client over stdin/stdout; its tools close when it disconnects."""
    sessions.single_client = True
    try:
        await server.run_stdio_async(show_banner=False)
    finally:
        await sessions.close_all()
