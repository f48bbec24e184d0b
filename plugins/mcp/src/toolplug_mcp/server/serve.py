"""Serving toolplug tools over MCP (``toolplug mcp serve``).

Every enabled tool is offered with its input schema, output schema, annotations and
structured results. Each MCP client session gets its own tool instances (its own bash
session, its own undo history): a :class:`~toolplug.Toolset` created on the session's
first call and closed when the session ends (the client's ``DELETE``, the session's
idle timeout, or the server's shutdown): see :mod:`~toolplug_mcp.server.sessions`.
What the server advertises, and its answer to a call of an unknown tool, are in
:mod:`~toolplug_mcp.server.protocol`.

Over HTTP the server speaks the session-based (handshake) MCP protocol: it declines
the stateless ``server/discover`` probe, so that every client, fastmcp's included, gets
a session whose tools keep their state from one call to the next. Over stdio the
process serves one client, which is one session whatever the protocol. With
``stateless=True`` (``--stateless``, for tools that keep no state) there are no
sessions: any replica answers any request, from one toolset shared by all.

What a load balancer sees (``/healthz``, ``/readyz``), the session limit and the
draining on ``SIGTERM`` are in :mod:`~toolplug_mcp.server.gate`.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import mcp_types
from fastmcp import FastMCP
from fastmcp.server.dependencies import get_context
from fastmcp.tools.base import Tool, ToolResult
from pydantic import PrivateAttr
from toolplug import (
    Deferral,
    Tool as ToolSpec,
    ToolContext,
    ToolDefinition,
    ToolError,
    ToolRegistry,
)
from toolplug.budget import DEFAULT_BUDGET, Budget
from toolplug.formats import export_tool, render
from toolplug.guards import with_policy

from toolplug_mcp.server import deferral as deferring, protocol
from toolplug_mcp.server.approval import elicit_approval
from toolplug_mcp.server.deadlines import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    ReadBody,
    timed_protocol,
)
from toolplug_mcp.server.gate import (
    DEFAULT_MAX_SESSIONS,
    CountCalls,
    Gate,
    ServeState,
    TrackSessions,
)
from toolplug_mcp.server.security import (
    TOKEN_ENV_VAR,
    BearerTokenMiddleware,
    RequestGuard,
    is_loopback,
)
from toolplug_mcp.server.sessions import (
    DEFAULT_IDLE_TIMEOUT,
    SessionTools,
    SessionToolsets,
    connection_of,
    stateful_tools,
)
from toolplug_mcp.server.shutdown import (
    SHUTDOWN_GRACE,
    client_went_away,
    detach_stdout,
    end_by_signal,
    stop_on_signals,
)

log = logging.getLogger("toolplug.mcp")

#: Worker threads kept beyond one per session (see :func:`worker_pool`).
SPARE_THREADS = 32


class ServedTool(Tool):
    """A toolplug tool as a fastmcp tool: each call runs in the caller's session toolset."""

    _sessions: SessionToolsets = PrivateAttr()

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """Validate and run through toolplug's safe path; errors come back as results."""
        try:
            toolset = await _session_tools(self._sessions).get()
        except Exception as exc:
            text = f"The tools of this session could not be started: {exc}"
            return ToolResult(
                content=[mcp_types.TextContent(type="text", text=text)], is_error=True
            )
        # The call's progress, logs and questions go back to this request's client
        # (the session toolset's handlers: see toolplug_mcp.server.relay).
        before = deferring.revealed(toolset)
        observation = await toolset.acall(self.name, arguments, call_id=_request_id())
        if self.name == deferring.SEARCH_TOOL and toolset.deferral is not None:
            await deferring.announce_if_revealed(get_context(), before, toolset)
        result = mcp_types.CallToolResult.model_validate(render(observation, "mcp"))
        return ToolResult(
            content=list(result.content),
            structured_content=result.structured_content,
            is_error=bool(result.is_error),
        )


def _request_id() -> str | None:
    """The id of the MCP request being served (the call id the tools' reports carry)."""
    try:
        return str(get_context().request_id)
    except (RuntimeError, ValueError):
        return None


def _session_tools(sessions: SessionToolsets) -> SessionTools:
    """The calling session's tools."""
    if sessions.shared:
        return sessions.only()
    connection = connection_of(get_context())
    if connection is None:  # not reached: HandshakeOnly refuses calls outside a session
        raise ToolError("this call belongs to no MCP session")
    return sessions.for_connection(connection)


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


def build_server(
    plugins: str | Iterable[str] | None = None,
    *,
    context: ToolContext | None = None,
    registry: ToolRegistry | None = None,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    policy: Any = None,
    settings: Mapping[str, Any] | None = None,
    tool_params: Mapping[str, Mapping[str, Any]] | None = None,
    stateless: bool = False,
    budget: Budget | int | None = DEFAULT_BUDGET,
    deferral: Deferral | None = None,
    tools: Iterable[str] | None = None,
) -> tuple[FastMCP, SessionToolsets, list[str]]:
    """A fastmcp server offering every enabled tool (or the registered tools named in
    ``tools``, a preset's say), and its session toolsets.

    ``settings`` are the guard plugins' settings (``toolplug mcp serve`` passes the
    options they add, see :mod:`toolplug.guards`); ``policy`` is the shortcut for
    ``settings={"policy": ...}``, a permission policy every call goes through (else
    ``TOOLPLUG_POLICY``). A call a guard asks about is put to the calling client's user
    as an MCP elicitation (:mod:`~toolplug_mcp.server.approval`), and refused when the
    client cannot be asked.

    ``tool_params`` maps a tool's name to the params each session's instance is created
    with (the bash sandbox's resource limits, say: ``{"bash": {"sandbox": "bwrap",
    "max_processes": 64}}``). A tool given params must be served and created with them.

    With ``stateless``, every call is served by one toolset shared by all callers
    (:attr:`~toolplug_mcp.server.sessions.SessionToolsets.shared`); a tool that keeps
    state per session (:func:`~toolplug_mcp.server.sessions.stateful_tools`) is refused.

    With a ``deferral``, the tools it chooses are left out of ``tools/list`` until a
    session's ``search_tools`` call reveals them (:mod:`~toolplug_mcp.server.deferral`).

    ``budget`` is each session's output budget (:mod:`toolplug.budget`): a
    :class:`~toolplug.Budget`, a number of characters, or ``None`` for none. Give it a
    ``folder`` inside the served workspace, so that the served file tools can read the
    files its markers name.

    Returns the server, the sessions (close them with ``close_all`` on shutdown), and
    the problems met while loading (a tool that cannot be created is left out). Raises
    :class:`~toolplug.ToolError` for an ``idle_timeout`` that is not a positive number,
    a name in ``tools`` no enabled plugin registered, params for a tool not served or
    that it cannot be created with, and a stateful tool under ``stateless``;
    :class:`~toolplug.PolicyError` for a policy that cannot be loaded.
    """
    if not (math.isfinite(idle_timeout) and idle_timeout > 0):
        raise ToolError(
            f"the idle timeout must be a positive, finite number of seconds, not {idle_timeout}"
        )
    tool_params = dict(tool_params or {})
    if registry is None:
        registry = ToolRegistry.from_plugins(
            plugins, settings=settings, policy=policy, approver=elicit_approval
        )
    elif settings or policy is not None:
        registry.apply_settings(with_policy(settings, policy), elicit_approval)
    context = context or ToolContext()
    problems = [
        f"plugin {r.name} is broken: {r.error}" for r in registry.reports if r.status == "broken"
    ]
    specs: list[ToolSpec] = []
    templates: list[ToolDefinition[Any, Any]] = []
    factories: dict[str, str] = {}  # tool name -> the registered tool that made it
    entries = list(registry) if tools is None else [registry.get(name) for name in tools]
    for entry in entries:
        spec = ToolSpec(entry.name, tool_params.pop(entry.name, {}))
        try:
            created = registry.resolve(spec, context)
        except ToolError as exc:
            if spec.params:  # asked for by name: serving it without them would mislead
                _close_all(templates)
                raise ToolError(f"{entry.name} cannot be created with its params: {exc}") from exc
            problems.append(f"{entry.name}: {exc}")
            continue
        specs.append(spec)
        templates.extend(created)
        factories.update(dict.fromkeys((t.name for t in created), entry.name))
    unknown = sorted(tool_params)
    stateful = stateful_tools(registry, [s.name for s in specs]) if stateless else []
    if unknown or stateful:
        _close_all(templates)
    if unknown:
        raise ToolError(
            f"params given for {', '.join(unknown)}, which is not served (served: "
            f"{', '.join(s.name for s in specs) or 'nothing'})"
        )
    if stateful:
        keeps = "keeps" if len(stateful) == 1 else "keep"
        raise ToolError(
            f"--stateless serves tools that keep no state between calls, and "
            f"{', '.join(stateful)} {keeps} state per session (a shell, an undo history, a "
            "connection); serve them without --stateless (with session affinity), or "
            "choose stateless plugins with --plugins"
        )
    server = FastMCP(
        "toolplug",
        version=protocol.server_version(),
        instructions="Tools from installed toolplug plugins.",
        # A tool's input schema is listed as the tool gives it: JSON Schema 2020-12,
        # whose $defs/$ref every current client resolves (MCP's default dialect).
        dereference_schemas=False,
    )
    hidden = frozenset[str]()
    if deferral is not None:
        hidden = deferring.deferred_names(deferral, templates, factories)
    if hidden and deferring.SEARCH_TOOL in factories:
        _close_all(templates)
        raise ToolError(
            f"a served tool is named '{deferring.SEARCH_TOOL}', the name of the tool "
            "search deferred tools need; serve without --defer"
        )
    protocol.install(server, list_changes=bool(hidden))
    sessions = SessionToolsets(registry, specs, context, idle_timeout, budget)
    sessions.shared = stateless
    try:
        if deferral is not None and hidden:  # (--defer-above: only past that many tools)
            sessions.deferral = deferral
            server.add_middleware(deferring.HideDeferred(sessions, hidden))
            server.add_tool(served_tool(deferring.search_tool(deferral), sessions))
        for definition in templates:
            server.add_tool(served_tool(definition, sessions))
    finally:
        # The templates only gave the schemas; each session creates its own tools.
        _close_all(templates)
    return server, sessions, problems


def _close_all(definitions: Iterable[ToolDefinition[Any, Any]]) -> None:
    for definition in definitions:
        definition.close()


def endpoint_url(host: str, port: int, path: str = "/mcp") -> str:
    """The URL clients use for a server bound to ``host``: IPv6 addresses in brackets."""
    bare = host.strip("[]")
    shown = f"[{bare}]" if ":" in bare else bare
    return f"http://{shown}:{port}{path}"


def http_app(
    server: FastMCP,
    sessions: SessionToolsets,
    *,
    host: str = "127.0.0.1",
    token: str | None = None,
    allowed_origins: Sequence[str] | None = None,
    path: str = "/mcp",
    state: ServeState | None = None,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
) -> Any:
    """The ASGI app for a server bound to ``host``: token, Host and Origin checks, and
    the gate (``/healthz``, ``/readyz``, the session limit, draining) of ``state``.
    A request's body must arrive within ``body_timeout`` seconds
    (:class:`~toolplug_mcp.server.deadlines.ReadBody`).

    The SDK's session manager ends a session on the client's ``DELETE`` or after
    ``sessions.idle_timeout`` idle seconds, and its tools close with it. When
    ``sessions.shared`` (``--stateless``), there are no sessions: every request stands
    alone, and all share one toolset.
    """
    from starlette.middleware import Middleware as AsgiMiddleware

    state = state or ServeState(stateless=sessions.shared)
    server.add_middleware(CountCalls(state))
    if not state.stateless:
        # Over HTTP, sessions are what keeps one client's tools apart from another's.
        server.add_middleware(protocol.HandshakeOnly())
        # fastmcp offers no public handle on the SDK server it wraps (see protocol.install).
        server._mcp_server.middleware.append(TrackSessions(state))
    middleware = [AsgiMiddleware(BearerTokenMiddleware, token=token)] if token else []
    app = server.http_app(
        path=path,
        middleware=middleware,
        # An SSE stream per request, not a plain JSON answer: a call's progress and log
        # notifications, and its questions to the user, travel on it.
        json_response=False,
        stateless_http=state.stateless,
        # Host and Origin are checked by RequestGuard (exactly: fastmcp's own check
        # takes any loopback origin, any port).
        host_origin_protection=False,
        session_idle_timeout=sessions.idle_timeout,
    )
    _limit_sessions(app, path, state.max_sessions)
    read = ReadBody(app, body_timeout)
    guarded = RequestGuard(read, loopback=is_loopback(host), allowed_origins=allowed_origins or ())
    return Gate(guarded, state, path)


def _limit_sessions(app: Any, path: str, max_sessions: int | None) -> None:
    """Hand the session limit to the MCP SDK's session manager once it exists.

    fastmcp creates the manager when the app starts and does not take the limit; the
    manager's ``max_sessions`` is the SDK's public setting, read at each admission.
    """
    from starlette.routing import Route

    manager_of = next(
        (r.endpoint for r in app.routes if isinstance(r, Route) and r.path == path), None
    )
    if manager_of is None or not hasattr(manager_of, "session_manager"):
        raise RuntimeError(f"fastmcp's app has no MCP endpoint at {path}")
    started = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> Any:
        async with started(app_) as value:
            manager_of.session_manager.max_sessions = max_sessions
            yield value

    app.router.lifespan_context = lifespan


def worker_pool(max_sessions: int | None) -> ThreadPoolExecutor:
    """The thread pool for the sessions' blocking work: their tools' sync calls, and the
    creating and closing of their tools.

    asyncio's default pool has a handful of threads (``min(32, cores + 4)``): a few long
    calls would hold them all, a session's tools would stay open long after its
    ``DELETE``, and a shutdown would close hundreds of sessions a handful at a time.
    Here every session can have a call running and its tools closed at once; threads
    are only started as they are needed.
    """
    threads = (max_sessions or DEFAULT_MAX_SESSIONS) + SPARE_THREADS
    return ThreadPoolExecutor(threads, thread_name_prefix="toolplug-serve")


async def _serve_uvicorn(uvicorn_server: Any, host: str, port: int) -> None:
    """Run uvicorn; a start it gives up on (it logged why) is a :class:`ToolError`.

    uvicorn ends a failed start (the port taken, say) with ``SystemExit``, which a task
    does not keep: it would end the event loop with a traceback.
    """
    try:
        await uvicorn_server.serve()
    except SystemExit as exc:
        raise ToolError(f"could not serve on {endpoint_url(host, port, '')} (see above)") from exc


def _bound_port(uvicorn_server: Any) -> int:
    """The port a started uvicorn server listens on."""
    for listening in uvicorn_server.servers:
        for sock in listening.sockets:
            return int(sock.getsockname()[1])
    return int(uvicorn_server.config.port)


def _uvicorn_server_class() -> type[Any]:
    import uvicorn

    class Uvicorn(uvicorn.Server):
        """uvicorn's server, leaving SIGINT and SIGTERM to :func:`serve_http`.

        uvicorn's own handling would stop taking connections at the first signal; the
        server drains first (``/readyz`` says so, new sessions get ``503``).
        """

        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return Uvicorn


def _check_http_settings(
    host: str,
    token: str | None,
    shutdown_timeout: float,
    header_timeout: float,
    body_timeout: float,
) -> None:
    """Refuse what :func:`serve_http` must not start with, saying what to give instead."""
    if not is_loopback(host) and not token:
        raise ToolError(
            f"binding {host} exposes the tools to the network: give a bearer token "
            f"with --token or {TOKEN_ENV_VAR}"
        )
    if not (math.isfinite(shutdown_timeout) and shutdown_timeout >= 0):
        raise ToolError(f"the shutdown timeout must be 0 or more seconds, not {shutdown_timeout}")
    for name, value in (("header", header_timeout), ("body", body_timeout)):
        if not (math.isfinite(value) and value > 0):
            raise ToolError(f"the {name} timeout must be a positive number of seconds, not {value}")


async def _announce_start(
    uvicorn_server: Any,
    task: asyncio.Task[None],
    host: str,
    path: str,
    started: asyncio.Event | None,
    announce: Callable[[str], None] | None,
) -> None:
    """Once uvicorn has started (or the task ended first), call ``announce`` with the
    endpoint's URL and set ``started``."""
    while not uvicorn_server.started and not task.done():
        await asyncio.sleep(0.02)
    if uvicorn_server.started:
        if announce is not None:
            announce(endpoint_url(host, _bound_port(uvicorn_server), path))
        if started is not None:
            started.set()


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
    announce: Callable[[str], None] | None = None,
    handle_signals: bool = True,
    max_sessions: int | None = DEFAULT_MAX_SESSIONS,
    shutdown_timeout: float = SHUTDOWN_GRACE,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
) -> None:
    """Serve over streamable HTTP until cancelled or stopped; then close every session.

    A non-loopback ``host`` needs a ``token``. At most ``max_sessions`` sessions are
    open at once (``None``: no limit); past it a new session gets ``503``.

    Once the socket listens and the app has started (a client can connect), ``started``
    is set and ``announce`` is called with the endpoint's URL, naming the port the
    socket got (for ``port=0``).

    With ``handle_signals`` (in the main thread), SIGINT and SIGTERM drain the server:
    ``/readyz`` answers ``503``, new sessions and new calls are refused, calls in flight
    get up to ``shutdown_timeout`` seconds to finish (then they are cancelled), every
    session's tools are closed, and the process ends by that signal (as uvicorn's own
    handling does). A second signal ends the wait at once. A host that handles signals
    itself passes ``False`` and cancels the task instead; the tools are closed either way.

    A client gets ``header_timeout`` seconds to send a request's headers and
    ``body_timeout`` more for its body; past them it gets ``408`` and the connection is
    closed (:mod:`~toolplug_mcp.server.deadlines`).

    The running loop's default thread pool is replaced by :func:`worker_pool`'s.
    """
    import uvicorn

    _check_http_settings(host, token, shutdown_timeout, header_timeout, body_timeout)
    # The sessions' blocking work runs in asyncio's default pool (to_thread): sized here.
    asyncio.get_running_loop().set_default_executor(worker_pool(max_sessions))
    state = ServeState(max_sessions=max_sessions, stateless=sessions.shared)
    app = http_app(
        server,
        sessions,
        host=host,
        token=token,
        allowed_origins=allowed_origins,
        path=path,
        state=state,
        body_timeout=body_timeout,
    )
    config = uvicorn.Config(
        app,
        host=host.strip("[]"),  # an IPv6 address may be given as in a URL
        port=port,
        http=timed_protocol(header_timeout),
        log_level="warning",
        lifespan="on",
        # The calls had their time while draining; what is left are open streams.
        timeout_graceful_shutdown=1,
    )
    uvicorn_server = _uvicorn_server_class()(config)
    draining: list[asyncio.Task[None]] = []
    closing: list[asyncio.Task[None]] = []

    def stop() -> None:
        state.closing.set()  # open streams end (see gate.Gate), so uvicorn need not cut them
        uvicorn_server.should_exit = True
        # Every session's tools close now, all at once, while uvicorn winds down.
        if not closing:
            closing.append(asyncio.ensure_future(sessions.close_all()))

    async def drain_then_stop() -> None:
        await state.calls_finished(shutdown_timeout)
        stop()

    def on_signal() -> None:
        if state.draining:  # a second signal: stop now
            stop()
            return
        state.draining = True
        draining.append(asyncio.ensure_future(drain_then_stop()))

    try:
        with stop_on_signals(on_signal, enabled=handle_signals) as received:
            task = asyncio.create_task(_serve_uvicorn(uvicorn_server, host, port))
            try:
                if started is not None or announce is not None:
                    await _announce_start(uvicorn_server, task, host, path, started, announce)
                await asyncio.shield(task)
            except asyncio.CancelledError:
                stop()
                await asyncio.wait({task}, timeout=shutdown_timeout + 5)
                raise
    finally:
        for waiting in draining:
            waiting.cancel()
        await (closing[0] if closing else sessions.close_all())
    if received:
        end_by_signal(received[0])


async def serve_stdio(
    server: FastMCP, sessions: SessionToolsets, *, handle_signals: bool = True
) -> None:
    """Serve one client over stdin/stdout; its tools close when it disconnects.

    A client that goes away mid-call (the pipe breaks) ends serving as a disconnection
    does, without a traceback.

    With ``handle_signals`` (in the main thread), SIGINT and SIGTERM close the tools as
    a disconnection does, and then end the process by that signal: the server reads
    stdin in a thread that nothing can interrupt, and that would keep the process alive.
    """
    sessions.shared = True
    stopping = asyncio.Event()
    serving = asyncio.ensure_future(server.run_stdio_async(show_banner=False))
    try:
        with stop_on_signals(stopping.set, enabled=handle_signals) as received:
            signalled = asyncio.ensure_future(stopping.wait())
            try:
                await asyncio.wait({serving, signalled}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                signalled.cancel()
        if serving.done():
            try:
                serving.result()  # what ended it, if it failed
            except Exception as exc:
                if not client_went_away(exc):
                    raise
                detach_stdout()
    finally:
        if not serving.done():
            serving.cancel()  # not awaited: it waits for a line on stdin
        await sessions.close_all()
    if received:
        end_by_signal(received[0])
