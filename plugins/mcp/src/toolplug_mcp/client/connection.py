"""Connections to MCP servers: opened once, shared by every call, reopened after a death.

Everything here runs on the client loop (:mod:`toolplug.loop`). A
:class:`ServerConnection` holds one fastmcp ``Client``; a :class:`ServerPool` holds the
connections of one configuration and closes them all when the last tool using them is
closed (and, as a last resort, when the interpreter exits), so that no server process
outlives its host.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from toolplug.loop import run_sync

from toolplug_mcp.client.config import ServerSpec

log = logging.getLogger("toolplug.mcp")

# How long closing may take per server before we stop waiting (the SDK itself gives a
# stdio server 2 s to exit, then terminates it, then kills it).
CLOSE_TIMEOUT = 10.0
_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001


class RequestFailed(Exception):
    """A request to a server failed; the message says why, for a model to act on."""


class ServerGone(RequestFailed):
    """The server's connection broke (the process died, the network went away)."""


class CallTimedOut(RequestFailed):
    """The server did not answer within the timeout."""


class CallRefused(RequestFailed):
    """The server answered the call with a protocol error (what SDK servers do on failure)."""


class ServerConnection:
    """One MCP server: its fastmcp client, opened on demand and reopened when it died."""

    def __init__(self, spec: ServerSpec) -> None:
        self.spec = spec
        #: "not connected", "connected", "failed", "disabled" or "closed".
        self.status = "disabled" if spec.disabled else "not connected"
        self.error: str | None = None
        self.tools: list[Any] = []  # the server's mcp_types.Tool list, from the last listing
        #: Whether the server offers resources: it says it can, and lists some (many
        #: servers claim the capability with nothing behind it).
        self.offers_resources = False
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None
        self._lock: asyncio.Lock | None = None

    # -- opening and closing ---------------------------------------------------------

    async def _ensure_open(self) -> Any:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.status == "closed":
                raise ServerGone(f"the connection to MCP server '{self.spec.name}' was closed")
            if self._client is None or not self._client.is_connected():
                await self._reset()
                await self._open()
            return self._client

    async def _open(self) -> None:
        from fastmcp import Client

        client = Client(
            self.spec.make_transport(),
            name="toolplug",
            # Listing tools may be slow on a cold start; calls pass their own timeout.
            timeout=max(self.spec.timeout, self.spec.init_timeout),
            init_timeout=self.spec.init_timeout,
        )
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()

        async def hold() -> None:
            # The client is entered and left by this one task (anyio wants that).
            try:
                async with client:
                    ready.set_result(None)
                    await stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                else:
                    log.debug("MCP server %s: connection ended: %r", self.spec.name, exc)

        holder = asyncio.create_task(hold(), name=f"mcp-{self.spec.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.spec.init_timeout + 5)
        except BaseException as exc:
            stop.set()
            holder.cancel()
            await asyncio.wait({holder}, timeout=CLOSE_TIMEOUT)
            self.status, self.error = "failed", _start_failure(exc)
            raise ServerGone(self.error) from None
        self._client, self._stop, self._holder = client, stop, holder
        self.status, self.error = "connected", None

    async def _reset(self) -> None:
        """Close the current client, if any, and wait (bounded) for its process to end."""
        stop, holder = self._stop, self._holder
        self._client = self._stop = self._holder = None
        if stop is not None:
            stop.set()
        if holder is not None:
            done, _ = await asyncio.wait({holder}, timeout=CLOSE_TIMEOUT)
            if not done:
                holder.cancel()
                await asyncio.wait({holder}, timeout=CLOSE_TIMEOUT)

    async def close(self) -> None:
        """Close the connection for good (the server process ends)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            await self._reset()
            if self.status != "disabled":
                self.status = "closed"

    # -- talking to the server -------------------------------------------------------

    async def list_tools(self) -> list[Any]:
        """Connect if needed and list the server's tools (also kept in :attr:`tools`)."""
        client = await self._ensure_open()
        try:
            self.tools = list(await client.list_tools())
        except Exception as exc:
            await self._failed(exc)
            raise ServerGone(
                f"MCP server '{self.spec.name}' could not list its tools: {exc}"
            ) from None
        return self.tools

    async def probe_resources(self) -> bool:
        """Find out whether the server has resources (sets :attr:`offers_resources`)."""
        self.offers_resources = False
        capabilities = self._client.server_capabilities if self._client else None
        if getattr(capabilities, "resources", None) is None:
            return False
        try:
            resources, templates = await self.list_resources(self.spec.init_timeout)
        except RequestFailed as exc:
            log.info("MCP server '%s': resources not listed: %s", self.spec.name, exc)
            return False
        self.offers_resources = bool(resources or templates)
        return self.offers_resources

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout: float) -> Any:
        """Call a tool; returns the raw MCP ``CallToolResult``.

        Raises :class:`ServerGone` (the next call reconnects), :class:`CallTimedOut` or
        :class:`CallRefused`, each with a message a model can act on.
        """
        return await self._request(
            f"tool '{name}'",
            lambda client: client.call_tool_mcp(name, arguments, timeout=timeout),
            timeout,
        )

    async def list_resources(self, timeout: float) -> tuple[list[Any], list[Any]]:
        """The server's resources and resource templates (every page of each)."""

        async def both(client: Any) -> tuple[list[Any], list[Any]]:
            resources = list(await client.list_resources())
            try:
                templates = list(await client.list_resource_templates())
            except Exception:
                templates = []  # optional for servers: the plain listing still helps
            return resources, templates

        result: tuple[list[Any], list[Any]] = await self._request(
            "the request to list its resources",
            lambda client: asyncio.wait_for(both(client), timeout),
            timeout,
        )
        return result

    async def read_resource(self, uri: str, timeout: float) -> Any:
        """Read one resource; returns the raw MCP ``ReadResourceResult``."""

        return await self._request(
            f"the request to read resource '{uri}'",
            lambda client: asyncio.wait_for(client.read_resource_mcp(uri), timeout),
            timeout,
        )

    async def _request(
        self, what: str, send: Callable[[Any], Awaitable[Any]], timeout: float
    ) -> Any:
        """Send one request, mapping every way it can fail to this module's errors."""
        from mcp import MCPError

        client = await self._ensure_open()
        try:
            return await send(client)
        except MCPError as exc:
            if exc.code == _REQUEST_TIMEOUT:
                raise CallTimedOut(self._timed_out(what, timeout)) from None
            if exc.code == _CONNECTION_CLOSED:
                await self._failed(exc)
                raise ServerGone(self._gone_message(what, exc)) from None
            raise CallRefused(f"MCP server '{self.spec.name}' refused the call: {exc}") from None
        except asyncio.CancelledError:
            raise
        except (asyncio.TimeoutError, TimeoutError):
            raise CallTimedOut(self._timed_out(what, timeout)) from None
        except Exception as exc:
            if client.is_connected():
                # Still connected: the result itself was bad (e.g. structuredContent
                # missing although the tool declares an outputSchema).
                raise CallRefused(
                    f"MCP server '{self.spec.name}' sent a result the client rejected: {exc}"
                ) from None
            await self._failed(exc)
            raise ServerGone(self._gone_message(what, exc)) from None

    def _timed_out(self, what: str, timeout: float) -> str:
        return f"MCP server '{self.spec.name}' did not answer {what} within {timeout:g} seconds"

    def _gone_message(self, what: str, exc: BaseException) -> str:
        return (
            f"MCP server '{self.spec.name}' stopped while running {what} ({exc}). "
            "It will be restarted on the next call."
        )

    async def _failed(self, exc: BaseException) -> None:
        await self._reset()
        self.status, self.error = "failed", str(exc) or type(exc).__name__


def _start_failure(exc: BaseException) -> str:
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "the server did not finish starting in time"
    text = str(exc) or type(exc).__name__
    return text.removeprefix("Client failed to connect: ")


class ServerPool:
    """The connections of one configuration, shared by the tools created from it.

    Each tool takes a reference; when the last one is released the pool closes every
    connection. Pools still open at interpreter exit are closed then.
    """

    def __init__(self, specs: list[ServerSpec], source: str = "") -> None:
        self.source = source
        self.connections = {spec.name: ServerConnection(spec) for spec in specs}
        self._refs = 0
        self._closed = False
        self._guard = threading.Lock()
        _open_pools.add(self)

    async def start(self, *, resources: bool = True) -> None:
        """Connect to every enabled server at once and list their tools (and, with
        ``resources``, find out which have resources).

        A server that fails is marked ``failed`` with the reason and logged; the others
        go on.
        """

        async def one(conn: ServerConnection) -> None:
            try:
                await conn.list_tools()
            except ServerGone as exc:
                log.warning("MCP server '%s' is not available: %s", conn.spec.name, exc)
                return
            if resources:
                await conn.probe_resources()

        enabled = [c for c in self.connections.values() if not c.spec.disabled]
        await asyncio.gather(*(one(c) for c in enabled))

    def acquire(self) -> None:
        """Take a reference (one per tool that uses the pool)."""
        with self._guard:
            self._refs += 1

    def release(self) -> None:
        """Drop a reference; the last one closes every connection."""
        with self._guard:
            self._refs -= 1
            last = self._refs <= 0
        if last:
            self.close()

    def close(self) -> None:
        """Close every connection now (idempotent, bounded)."""
        with self._guard:
            if self._closed:
                return
            self._closed = True
        _open_pools.discard(self)
        try:
            run_sync(self.aclose_connections(), timeout=CLOSE_TIMEOUT * 2)
        except Exception:
            log.warning("closing MCP servers of %s took too long", self.source, exc_info=True)

    async def aclose_connections(self) -> None:
        """Close every connection (runs on the client loop)."""
        await asyncio.gather(*(c.close() for c in self.connections.values()))


_open_pools: weakref.WeakSet[ServerPool] = weakref.WeakSet()


@atexit.register
def _close_open_pools() -> None:
    for pool in list(_open_pools):
        pool.close()
