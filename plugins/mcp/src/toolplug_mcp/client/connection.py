"""Connections to MCP servers: opened once, shared by every call, reopened after a death.

Everything here runs on the client loop (:mod:`toolplug.loop`). A
:class:`ServerConnection` holds one :class:`~toolplug_mcp.client.sdk.SdkClient` (the
MCP SDK's client session and transport), introduces itself as
``toolplug-mcp``, and starts its server again before a request when it finds it
stopped (or after a request saw it die); a :class:`ServerPool` holds the connections of
one configuration and closes them all when the last tool using them is closed (and, as
a last resort, when the interpreter exits), so that no server process outlives its
host. Each connection serves the host's handlers to its server
(:mod:`~toolplug_mcp.client.handlers`) and tells its pool when the server's tool list
changed (:mod:`~toolplug_mcp.client.changes` follows it).
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import logging
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolplug.loop import run_sync

from toolplug_mcp.client.calling import call_tool as call_plainly, uncancel
from toolplug_mcp.client.config import ServerSpec
from toolplug_mcp.client.listen import listening
from toolplug_mcp.client.schemas import usable_tools
from toolplug_mcp.client.stderr import StderrTail
from toolplug_mcp.client.tasks import (
    TaskRunner,
    cancels_sent,
    offered,
    runs_tasks,
    task_support,
)
from toolplug_mcp.client.tasks_2025 import call_as_task, serves_tasks
from toolplug_mcp.client.wire import guard as mend_deep_tool_lists
from toolplug_mcp.errors import (
    CallRefused,
    CallTimedOut,
    RequestFailed,
    ServerGone,
    TaskTimedOut,
    UnreadableMessage,
)

if TYPE_CHECKING:
    from toolplug.interaction import Handlers

    from toolplug_mcp.client.handlers import ServerHandlers
    from toolplug_mcp.client.unauthorized import StatusWatch

log = logging.getLogger("toolplug.mcp")

# How long closing may take per server before we stop waiting (the SDK itself gives a
# stdio server 2 s to exit, then terminates it, then kills it).
CLOSE_TIMEOUT = 10.0
#: The name the client gives servers in ``clientInfo`` (its version is toolplug-mcp's).
CLIENT_NAME = "toolplug-mcp"
_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001


def _status_watch() -> StatusWatch:
    """A remote server's :class:`~toolplug_mcp.client.unauthorized.StatusWatch`
    (imported here: a stdio-only configuration has no HTTP to watch)."""
    from toolplug_mcp.client.unauthorized import StatusWatch

    return StatusWatch()


@functools.lru_cache(maxsize=1)
def client_identity() -> Any:
    """What the client tells servers it is: ``toolplug-mcp`` and its installed version."""
    from importlib.metadata import PackageNotFoundError, version

    from mcp_types import Implementation

    try:
        installed = version(CLIENT_NAME)
    except PackageNotFoundError:  # run from a source tree without installing
        installed = "0+unknown"
    return Implementation(name=CLIENT_NAME, version=installed)


class ServerConnection:
    """One MCP server: its client, opened on demand and reopened when it died."""

    def __init__(self, spec: ServerSpec, handlers: ServerHandlers | None = None) -> None:
        self.spec = spec
        #: The host's handlers, as this server is served them.
        self.handlers = handlers or _serve(spec, None, None)
        #: Called (on the client loop) when the server says its tool list changed.
        self.on_tools_changed: Callable[[ServerConnection], None] | None = None
        #: Told when the server sends a message the SDK cannot read (while listing).
        self.on_unreadable: Callable[[Exception], None] | None = None
        #: "not connected", "connected", "failed", "disabled" or "closed".
        self.status = "disabled" if spec.disabled else "not connected"
        self.error: str | None = None
        self.tools: list[Any] = []  # the server's mcp_types.Tool list, from the last listing
        #: Why listed tools were left out of :attr:`tools` (task tools this connection
        #: cannot run, see :mod:`~toolplug_mcp.client.tasks`).
        self.left_out: list[str] = []
        #: The tools called as 2025-11-25 tasks (see :mod:`~toolplug_mcp.client.tasks_2025`).
        self.task_tools: set[str] = set()
        #: Whether the server offers resources: it says it can, and lists some (many
        #: servers claim the capability with nothing behind it).
        self.offers_resources = False
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None
        self._stderr: StderrTail | None = None
        self._lock: asyncio.Lock | None = None
        # A remote server's refusals (HTTP 401/403), for messages that say the fix.
        self._watch = _status_watch() if spec.transport != "stdio" else None
        self._auth: Any = None  # the OAuth sign-in, kept across reconnections

    # -- opening and closing ---------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the connection is open and its server still there (a stdio server
        whose process has exited is not, even before the next request finds out)."""
        return self._client is not None and self._client.is_connected() and not self._ended()

    def _ended(self) -> bool:
        """Whether the server's side of the open connection has ended under it (a stdio
        server's output closed); other transports find out on the next request."""
        if self._holder is not None and self._holder.done():
            return True
        try:
            return bool(self._client.ended())
        except Exception:
            return False

    async def _ensure_open(self, notes: list[str] | None = None) -> Any:
        """The open client; opened first when there is none or its server has stopped.

        A server that stopped unnoticed since the last request (no error said so yet)
        gets a line in ``notes`` when it is started again: whatever it held is gone.
        """
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.status == "closed":
                raise ServerGone(f"the connection to MCP server '{self.spec.name}' was closed")
            if not self.running:
                unnoticed = self.status == "connected"
                await self._reset()
                await self._open()
                if unnoticed and notes is not None:
                    notes.append(self._restart_note())
            return self._client

    def _restart_note(self) -> str:
        how = "started" if self.spec.transport == "stdio" else "connected"
        return (
            f"MCP server '{self.spec.name}' had stopped since an earlier call; it was "
            f"{how} again for this one, so anything it kept from earlier calls is gone"
        )

    async def _open(self) -> None:
        from toolplug_mcp.client.sdk import SdkClient

        # A tool list nested past what the SDK reads loses only its deep tools.
        mend_deep_tool_lists(self.spec.transport)
        tail = StderrTail() if self.spec.transport == "stdio" else None
        if self.spec.oauth is not None and self._auth is None:
            from toolplug_mcp.client.oauth import make_auth

            self._auth = make_auth(self.spec.name, self.spec.oauth)
        client = SdkClient(
            self.spec,
            stderr=tail.file if tail else None,
            http_client=self._watch,
            auth=self._auth,
            client_info=client_identity(),
            # Listing tools may be slow on a cold start; calls pass their own timeout.
            timeout=max(self.spec.timeout, self.spec.init_timeout),
            # The handshake includes the OAuth sign-in, when there is one.
            init_timeout=self.spec.start_timeout,
            # Calls the server runs as tasks are polled to their result.
            extensions=[TaskRunner()],
            message_handler=_list_changes(self),
            session_kwargs=self.handlers.session_kwargs(),
        )
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()

        def changed() -> None:
            if self.on_tools_changed is not None:
                self.on_tools_changed(self)

        async def hold() -> None:
            # The client is entered and left by this one task (anyio wants that).
            # What ends it is raised from the task, where requests waiting beside it
            # (SdkClient.monitored) read it.
            try:
                async with client.connect():
                    ready.set_result(None)
                    async with listening(client, self.spec.name, changed):
                        await stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                    return
                log.debug("MCP server %s: connection ended: %r", self.spec.name, exc)
                raise

        holder = asyncio.create_task(hold(), name=f"mcp-{self.spec.name}")
        holder.add_done_callback(_seen)
        client.session_task = holder
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.spec.start_timeout + 5)
        except BaseException as exc:
            stop.set()
            holder.cancel()
            await asyncio.wait({holder}, timeout=CLOSE_TIMEOUT)
            said = await tail.finish() if tail else []
            self.status = "failed"
            self.error = self._refusal() or _start_failure(exc, said)
            what = "started" if tail else "connected to"
            raise ServerGone(
                f"MCP server '{self.spec.name}' could not be {what}: {self.error}"
            ) from None
        finally:
            if tail:
                tail.spawned()
        self._client, self._stop, self._holder = client, stop, holder
        self._stderr = tail
        self.status, self.error = "connected", None

    async def _reset(self) -> None:
        """Close the current client, if any, and wait (bounded) for its process to end."""
        await cancels_sent()  # a task cancelled on timeout is told so before the close
        stop, holder, tail = self._stop, self._holder, self._stderr
        self._client = self._stop = self._holder = self._stderr = None
        if stop is not None:
            stop.set()
        if holder is not None:
            done, _ = await asyncio.wait({holder}, timeout=CLOSE_TIMEOUT)
            if not done:
                holder.cancel()
                await asyncio.wait({holder}, timeout=CLOSE_TIMEOUT)
        if tail is not None:
            await tail.finish()

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
            listed = list(await self._unless_unreadable(client.list_tools()))
        except Exception as exc:
            refusal = self._refusal()
            await self._failed(exc)
            self.error = refusal or self.error
            raise ServerGone(
                f"MCP server '{self.spec.name}' could not list its tools: {self.error}"
            ) from None
        legacy = serves_tasks(client)
        self.tools, self.left_out = offered(self.spec.name, listed, runs_tasks(client) or legacy)
        # A tool whose schema cannot be used is left out alone (see schemas.usable_tools).
        self.tools, unusable = usable_tools(self.spec.name, self.tools)
        self.left_out += unusable
        # At 2025-11-25 a tool that runs only as a task is called as one.
        self.task_tools = {t.name for t in self.tools if legacy and task_support(t) == "required"}
        return self.tools

    async def _unless_unreadable(self, work: Any) -> Any:
        """Await ``work``; if the server meanwhile sends a message the SDK cannot read
        (its answer, most likely), fail at once instead of waiting out the timeout."""
        me = asyncio.current_task()
        garbled: list[Exception] = []

        def on_unreadable(exc: Exception) -> None:
            if me is not None and not garbled:
                garbled.append(exc)
                me.cancel()

        self.on_unreadable = on_unreadable
        try:
            return await work
        except asyncio.CancelledError:
            if not garbled or (me is not None and uncancel(me) > 0):
                raise  # not (only) ours
            raise UnreadableMessage(
                "it sent a message this client cannot read (a JSON answer nested deeper "
                f"than the MCP SDK reads, 200 levels?): {str(garbled[0])[:300]}"
            ) from None
        finally:
            self.on_unreadable = None

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

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        timeout: float,
        notes: list[str] | None = None,
        tool: str | None = None,
    ) -> Any:
        """Call a tool; returns the raw MCP ``CallToolResult``.

        A server found stopped before the call is started again first (said in
        ``notes``). Raises :class:`ServerGone` (the next call reconnects),
        :class:`CallTimedOut` or :class:`CallRefused`, each with a message a model can
        act on. The server's progress reports (and its log messages while this is its
        only call) go to the host's handlers marked with ``tool``, the toolplug name.
        """

        def send(client: Any, progress: Any = None) -> Any:
            if name in self.task_tools:
                return call_as_task(client.session, name, arguments, timeout)
            return call_plainly(client, name, arguments, timeout, progress)

        with self.handlers.call(tool or name) as progress:
            return await self._request(
                f"tool '{name}'", lambda client: send(client, progress), timeout, notes
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
            lambda client: asyncio.wait_for(client.read_resource(uri), timeout),
            timeout,
        )

    async def list_prompts(self, timeout: float) -> list[Any]:
        """The server's prompts (every page); none when it does not offer prompts."""

        async def listed(client: Any) -> list[Any]:
            if getattr(client.server_capabilities, "prompts", None) is None:
                return []
            return list(await asyncio.wait_for(client.list_prompts(), timeout))

        result: list[Any] = await self._request("the request to list its prompts", listed, timeout)
        return result

    async def get_prompt(self, name: str, arguments: dict[str, Any], timeout: float) -> Any:
        """One prompt filled in with ``arguments``; the raw MCP ``GetPromptResult``."""
        return await self._request(
            f"the request for prompt '{name}'",
            lambda client: asyncio.wait_for(client.get_prompt(name, arguments), timeout),
            timeout,
        )

    async def _request(
        self,
        what: str,
        send: Callable[[Any], Awaitable[Any]],
        timeout: float,
        notes: list[str] | None = None,
    ) -> Any:
        """Send one request, mapping every way it can fail to this module's errors."""
        from mcp import MCPError

        client = await self._ensure_open(notes)
        try:
            try:
                return await send(client)
            except MCPError:
                if not self._session_ended():
                    raise
            # The server no longer knows the session and served nothing: a new session.
            client = await self._new_session(client, notes)
            return await send(client)
        except MCPError as exc:
            if exc.code == _REQUEST_TIMEOUT:
                raise CallTimedOut(self._timed_out(what, timeout)) from None
            if exc.code == _CONNECTION_CLOSED:
                await self._failed(exc)
                raise ServerGone(self._gone_message(what, exc)) from None
            refusal = self._refusal()
            if refusal:
                name = self.spec.name
                raise CallRefused(f"MCP server '{name}' refused {what}: {refusal}") from None
            raise CallRefused(f"MCP server '{self.spec.name}' refused the call: {exc}") from None
        except (asyncio.CancelledError, ServerGone):
            raise
        except (asyncio.TimeoutError, TimeoutError) as exc:
            message = self._timed_out(what, timeout)
            if isinstance(exc, TaskTimedOut):
                message += f"; it ran as a task, and the {exc}"
            raise CallTimedOut(message) from None
        except Exception as exc:
            if client.is_connected():
                # Still connected: the result itself was bad (e.g. structuredContent
                # missing although the tool declares an outputSchema).
                raise CallRefused(
                    f"MCP server '{self.spec.name}' sent a result the client rejected: {exc}"
                ) from None
            await self._failed(exc)
            raise ServerGone(self._gone_message(what, exc)) from None

    def _session_ended(self) -> bool:
        """Whether the last failure was the server's 404 for this session (then forgotten)."""
        ended = self._watch is not None and self._watch.session_ended
        if ended and self._watch is not None:
            self._watch.session_ended = False
        return ended

    async def _new_session(self, ended: Any, notes: list[str] | None) -> Any:
        """Open a new session in place of ``ended`` (unless another call already did)."""
        assert self._lock is not None  # _ensure_open made it
        async with self._lock:
            if self._client is ended:
                await self._reset()
                await self._open()
        if notes is not None:
            notes.append(
                f"MCP server '{self.spec.name}' had ended the session of earlier calls (it "
                "may have restarted); a new session was started for this call, so anything "
                "the server kept for the old one is gone"
            )
        return self._client

    def _refusal(self) -> str | None:
        """The last HTTP 401/403 of a remote server, explained (``None``: there was none)."""
        return self._watch.explain(self.spec) if self._watch else None

    def _timed_out(self, what: str, timeout: float) -> str:
        return f"MCP server '{self.spec.name}' did not answer {what} within {timeout:g} seconds"

    def _gone_message(self, what: str, exc: BaseException) -> str:
        if self.spec.transport != "stdio":  # not our process: we cannot tell it stopped
            return (
                f"The connection to MCP server '{self.spec.name}' broke during {what} "
                f"({exc}). The next call connects again."
            )
        return (
            f"MCP server '{self.spec.name}' stopped while running {what} ({exc}). "
            "It will be restarted on the next call."
        )

    async def _failed(self, exc: BaseException) -> None:
        await self._reset()
        self.status, self.error = "failed", str(exc) or type(exc).__name__


def _list_changes(connection: ServerConnection) -> Callable[[Any], Awaitable[None]]:
    """The session's message handler: passes ``notifications/tools/list_changed`` on,
    and tells of a message the SDK could not read."""
    import mcp_types

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            # A line of the server's the SDK could not parse (see _unless_unreadable).
            log.warning("MCP server '%s' sent an unreadable message", connection.spec.name)
            if connection.on_unreadable is not None:
                connection.on_unreadable(message)
        elif (
            isinstance(message, mcp_types.ToolListChangedNotification)
            and connection.on_tools_changed is not None
        ):
            connection.on_tools_changed(connection)

    return on_message


def _seen(task: asyncio.Task[None]) -> None:
    """Mark what ended a connection's task as read (asyncio logs it otherwise)."""
    if not task.cancelled():
        task.exception()


def _start_failure(exc: BaseException, stderr_lines: list[str]) -> str:
    """Why a server could not be started, with the last lines it wrote on stderr."""
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        text = "the server did not finish starting in time"
    else:
        text = (str(exc) or type(exc).__name__).removeprefix("Client failed to connect: ")
        if text == "Connection closed":
            text = "the connection closed before the server finished starting"
    if stderr_lines:
        text += "; the last lines it wrote on stderr:\n" + "\n".join(
            f"  {line}" for line in stderr_lines
        )
    return text


# Strong references: a pool nobody closed (its tools were dropped) must still be closed
# at exit, with its connection tasks alive until then, not destroyed while pending.
_open_pools: set[ServerPool] = set()
_pools_guard = threading.Lock()


class ServerPool:
    """The connections of one configuration, shared by the tools created from it.

    Each tool takes a reference; when the last one is released the pool closes every
    connection. Pools still open at interpreter exit are closed then.
    """

    def __init__(
        self,
        specs: list[ServerSpec],
        source: str = "",
        *,
        handlers: Handlers | None = None,
        workspace: Path | None = None,
    ) -> None:
        self.source = source
        self.connections = {
            spec.name: ServerConnection(spec, _serve(spec, handlers, workspace)) for spec in specs
        }
        #: What follows the servers' tool lists for the toolsets that hold this pool's
        #: tools (a :class:`~toolplug_mcp.client.changes.ToolsFollower`, set by the
        #: ``mcp`` factory).
        self.follower: Any = None
        self._refs = 0
        self._closed = False
        self._guard = threading.Lock()
        with _pools_guard:
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
                log.warning(
                    "MCP server '%s' is not available: %s", conn.spec.name, conn.error or exc
                )
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
        with _pools_guard:
            _open_pools.discard(self)
        try:
            run_sync(self.aclose_connections(), timeout=CLOSE_TIMEOUT * 2)
        except Exception:
            log.warning("closing MCP servers of %s took too long", self.source, exc_info=True)

    async def aclose_connections(self) -> None:
        """Close every connection (runs on the client loop)."""
        await asyncio.gather(*(c.close() for c in self.connections.values()))


def _serve(spec: ServerSpec, handlers: Handlers | None, workspace: Path | None) -> ServerHandlers:
    """The host's handlers (none: the defaults) as one server is served them."""
    from toolplug_mcp.client.handlers import ServerHandlers

    return ServerHandlers(
        spec.name, handlers, workspace or Path.cwd(), limit=spec.max_server_requests
    )


@atexit.register
def _close_open_pools() -> None:
    with _pools_guard:
        pools = list(_open_pools)
    for pool in pools:
        pool.close()
