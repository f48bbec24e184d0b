"""One toolset per MCP client session: created on its first call, closed at its end.

Over HTTP a session's tools live exactly as long as the MCP session does: they are
tied to the SDK's connection for that session (its ``exit_stack``), which the SDK
unwinds when the session ends, whatever ends it: the client's ``DELETE``, the idle
timer of the SDK's session manager (no request in flight and no open ``GET`` stream
for the idle timeout), or the server's shutdown. The client then gets ``404`` for the
session id. A session that is still alive keeps its tools however long it waits
between calls. Over stdio the process serves one client: one session, ended when the
connection or the process ends.

Under ``--stateless`` there are no sessions: every request is served by one toolset
shared by all (:attr:`SessionToolsets.shared`), which is only right for tools that keep
no state between calls: :func:`stateful_tools` names the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from toolplug import Deferral, Tool as ToolSpec, ToolContext, ToolError, ToolRegistry, Toolset
from toolplug.budget import DEFAULT_BUDGET, Budget

from toolplug_mcp.server import relay
from toolplug_mcp.server.security import TOKEN_ENV_VAR

#: Seconds a session may go without a request (and without an open GET stream)
#: before it is ended and its tools closed.
DEFAULT_IDLE_TIMEOUT = 1800.0

#: Where a connection keeps its session's tools (in ``Connection.state``).
_STATE_KEY = "toolplug.session_tools"


def client_context(context: ToolContext) -> ToolContext:
    """The context a client session's tools get: the server's token is never in its
    environment, and tools that start programs (bash) give them a minimal environment
    (``extra["inherit_env"] = False``) unless the host's context says otherwise."""
    env = {name: value for name, value in context.env.items() if name != TOKEN_ENV_VAR}
    return replace(context, env=env, extra={"inherit_env": False, **context.extra})


#: The marker a stateless tool class or factory sets (``stateless = True``) when the
#: registry alone cannot tell: a class or a factory is assumed to keep state per created
#: instance (a shell, an undo history, a connection), since it is made once per session.
STATELESS_MARKER = "stateless"


def stateful_tools(registry: ToolRegistry, names: Sequence[str]) -> list[str]:
    """Which of the registered tools ``names`` keep state between a session's calls.

    A tool registered as an instance is stateless (one instance serves every session:
    the register_tools hook says so). A class or a factory is made once per session, so
    it is taken as stateful unless it says otherwise with ``stateless = True`` (a class
    attribute, or an attribute of the factory function): glob's class does, as it is
    made per session only to take its params.
    """
    found = []
    for name in names:
        entry = registry.get(name)
        if entry.kind != "instance" and getattr(entry.target, STATELESS_MARKER, False) is not True:
            found.append(entry.name)
    return found


def connection_of(context: Any) -> Any:
    """The MCP SDK connection a fastmcp request context belongs to, or ``None``.

    fastmcp reaches it the same way (the SDK's request session holds it privately);
    the connection's ``state`` and ``exit_stack`` are the SDK's public per-connection
    storage and teardown.
    """
    try:
        session = context.session
    except (AttributeError, RuntimeError):  # no request, or no session yet
        return None
    return getattr(session, "_connection", None)


class SessionTools:
    """One session's tools: created (off the event loop) on first use, closed once."""

    def __init__(self, owner: SessionToolsets) -> None:
        self._owner = owner
        self._loading: asyncio.Task[Toolset] | None = None
        self._closing: asyncio.Task[None] | None = None

    async def get(self) -> Toolset:
        """The session's toolset, created on the first call; later calls share it.

        A creation that failed is tried again on the next call. Raises
        :class:`~toolplug.ToolError` once the session has ended.
        """
        if self._closing is not None:
            raise ToolError("this MCP session has ended; its tools are closed")
        loading = self._loading
        if loading is None or _failed(loading):
            loading = self._loading = asyncio.create_task(self._owner.load())
        # Shielded: a call cancelled while the tools start must not lose them unclosed.
        return await asyncio.shield(loading)

    def loaded(self) -> Toolset | None:
        """The session's toolset if it has been created, else ``None`` (never creates it)."""
        loading = self._loading
        if loading is None or not loading.done() or _failed(loading):
            return None
        return loading.result()

    async def close(self) -> None:
        """Close the tools, waiting for a creation under way; idempotent.

        The closing runs in a task of its own: a caller that stops waiting (the SDK
        bounds how long a connection's teardown may take) does not cut it short.
        """
        if self._closing is None:
            self._closing = asyncio.create_task(self._close())
        await asyncio.shield(self._closing)

    async def _close(self) -> None:
        try:
            loading, self._loading = self._loading, None
            if loading is None:
                return
            try:
                toolset = await loading
            except Exception:  # never created: nothing to close
                return
            await toolset.aclose()
        finally:
            self._owner.forget(self)


def _transport(context: Any) -> str | None:
    try:
        return str(context.transport)
    except (AttributeError, RuntimeError):
        return None


def _failed(task: asyncio.Task[Any]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


class SessionToolsets:
    """The tools of every live session, and what creates them."""

    def __init__(
        self,
        registry: ToolRegistry,
        specs: Sequence[ToolSpec],
        context: ToolContext,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        budget: Budget | int | None = DEFAULT_BUDGET,
    ) -> None:
        self.registry = registry
        self.specs = list(specs)
        self.context = client_context(context)
        #: Handed to the SDK's session manager, which ends idle HTTP sessions.
        self.idle_timeout = idle_timeout
        #: Each session's output budget (:mod:`toolplug.budget`).
        self.budget = budget
        #: Set when one toolset serves every call: over stdio (the process serves exactly
        #: one client), and under ``--stateless`` (the tools keep no state).
        self.shared = False
        self._live: set[SessionTools] = set()
        self._only: SessionTools | None = None
        self._closed = False  # set by close_all: no session gets tools after it
        #: The tools each session defers (``--defer``): see
        #: :mod:`~toolplug_mcp.server.deferral`.
        self.deferral: Deferral | None = None

    def open(self) -> SessionTools:
        """A new session's tools, not created until its first call.

        Raises :class:`~toolplug.ToolError` once the server is shutting down.
        """
        if self._closed:
            raise ToolError("the server is shutting down")
        tools = SessionTools(self)
        self._live.add(tools)
        return tools

    def for_connection(self, connection: Any) -> SessionTools:
        """The tools of the session a connection serves, closed when it ends."""
        tools: SessionTools | None = connection.state.get(_STATE_KEY)
        if tools is None:
            tools = connection.state[_STATE_KEY] = self.open()
            connection.exit_stack.push_async_callback(tools.close)
        return tools

    def only(self) -> SessionTools:
        """The one toolset every call shares (see :attr:`shared`)."""
        if self._only is None:
            self._only = self.open()
        return self._only

    async def load(self) -> Toolset:
        """Create one session's tools (in a worker thread: factories may block).

        Called in the session's first request: its tools' handlers are bound to that
        session, so that what a tool logs between calls reaches its client
        (:func:`~toolplug_mcp.server.relay.session_handlers`), unless one toolset
        serves every client (``--stateless``).
        """
        handlers = relay.HANDLERS
        context = relay.request_context()
        if context is not None and (not self.shared or _transport(context) == "stdio"):
            handlers = relay.session_handlers(context)
        toolset = await asyncio.to_thread(
            Toolset.load,
            self.specs,
            registry=self.registry,
            context=self.context,
            handlers=handlers,
            budget=self.budget,
        )
        if self._closed:  # shut down while the tools were being created
            await toolset.aclose()
            raise ToolError("the server is shutting down")
        if self.deferral is not None:
            toolset.defer(self.deferral)
        return toolset

    def forget(self, tools: SessionTools) -> None:
        """Stop tracking a session's tools (they are closed)."""
        self._live.discard(tools)

    async def close_all(self) -> None:
        """Close every session's tools (at shutdown); later sessions get none."""
        self._closed = True
        await asyncio.gather(*(tools.close() for tools in list(self._live)))
