"""What a load balancer sees of a server, and who may come in.

- ``GET /healthz`` (liveness): ``200`` with the server's counts and limits, for as long
  as the process serves, draining or not: a balancer keeps sending a session's calls to
  the replica that holds its tools.
- ``GET /readyz`` (readiness): ``200`` while the server takes new sessions, ``503``
  while it is full (``--max-sessions`` open) or draining (it was asked to stop).
- A request that would open a session (a ``POST`` without ``Mcp-Session-Id``; under
  ``--stateless`` every ``POST``) is refused with ``503``, a JSON-RPC error body and a
  ``Retry-After`` header while the server is full or draining. Existing sessions are
  not touched.
- While draining, a tool call is refused with a JSON-RPC error (calls in flight run
  on, up to the shutdown timeout: see :func:`~toolplug_mcp.server.serve.serve_http`).

The session limit itself is the MCP SDK's (its session manager admits sessions under a
lock, so the limit is exact); :class:`Gate` only words its ``503``. The counts come from
the protocol: :class:`TrackSessions` sees each session's ``initialize`` and its end (the
SDK connection's teardown), :class:`CountCalls` each tool call.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types
from fastmcp.server.middleware import Middleware
from mcp import MCPError

from toolplug_mcp.server.sessions import connection_of

#: The liveness and readiness paths (outside the MCP endpoint; no token needed).
HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"

#: Sessions one server holds by default (each may hold a bash process and more).
DEFAULT_MAX_SESSIONS = 1000

#: Seconds a refused client is told to wait (``Retry-After``) before it tries again.
RETRY_AFTER = 5


class InFlight:
    """A count of things under way, and an event set whenever it is zero."""

    def __init__(self) -> None:
        self.count = 0
        self.none = asyncio.Event()
        self.none.set()

    def started(self) -> None:
        self.count += 1
        self.none.clear()

    def ended(self) -> None:
        self.count -= 1
        if self.count == 0:
            self.none.set()


class ServeState:
    """The counts and the mode a server's gate answers from."""

    def __init__(self, *, max_sessions: int | None = DEFAULT_MAX_SESSIONS, stateless: bool = False):
        #: The most sessions open at once (``None``: no limit of ours).
        self.max_sessions = None if stateless else max_sessions
        #: Whether every request stands alone (no sessions).
        self.stateless = stateless
        #: Set once the server was asked to stop: no new sessions, no new calls.
        self.draining = False
        #: Tool calls running now.
        self.calls = InFlight()
        self._open: set[int] = set()  # ids of the open sessions' SDK connections
        #: Requests to the MCP endpoint not answered yet: a call that has ended still
        #: has its result to write to its request's stream.
        self.posts = InFlight()
        #: Set when the server is about to stop: its open streams are ended (see Gate).
        self.closing = asyncio.Event()

    @property
    def sessions(self) -> int:
        """Sessions open now (initialized, not yet ended)."""
        return len(self._open)

    @property
    def full(self) -> bool:
        """Whether a new session would be refused for the limit."""
        return self.max_sessions is not None and self.sessions >= self.max_sessions

    def health(self) -> dict[str, Any]:
        """The ``/healthz`` body."""
        return {
            "status": "draining" if self.draining else "ok",
            "sessions": self.sessions,
            "max_sessions": self.max_sessions,
            "calls_in_flight": self.calls.count,
            "stateless": self.stateless,
        }

    def unready_reason(self) -> str | None:
        """Why the server takes no new session now (``None``: it does)."""
        if self.draining:
            return "draining"
        if self.full:
            return "full"
        return None

    # -- what the protocol layers report ---------------------------------------------

    def session_opened(self, key: int) -> bool:
        """Count a session (by its connection's id); whether it was not counted yet."""
        if key in self._open:
            return False
        self._open.add(key)
        return True

    def session_closed(self, key: int) -> None:
        self._open.discard(key)

    async def calls_finished(self, timeout: float) -> bool:
        """Wait (up to ``timeout`` seconds) until no call is in flight and every request
        has its answer written; whether that came to pass."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            await asyncio.wait_for(self.calls.none.wait(), timeout)
            await asyncio.wait_for(self.posts.none.wait(), max(deadline - loop.time(), 0))
        except asyncio.TimeoutError:
            return False
        return True


class TrackSessions:
    """Low-level MCP SDK middleware: count a session from its ``initialize`` to its end."""

    def __init__(self, state: ServeState) -> None:
        self.state = state

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "initialize":
            connection = connection_of(ctx)
            if connection is not None and connection.session_id is not None:
                key = id(connection)
                if self.state.session_opened(key):
                    connection.exit_stack.callback(self.state.session_closed, key)
        return result


class CountCalls(Middleware):
    """fastmcp middleware: count tool calls in flight; refuse new ones while draining."""

    def __init__(self, state: ServeState) -> None:
        self.state = state

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        """Run the call, counted; or refuse it, when the server is stopping."""
        if self.state.draining:
            raise MCPError(
                code=mcp_types.INTERNAL_ERROR,
                message="the server is shutting down and takes no new calls; this "
                "session's tools are about to close: open a new session",
                data={"reason": "draining"},
            )
        self.state.calls.started()
        try:
            return await call_next(context)
        finally:
            self.state.calls.ended()


def refusal(reason: str, state: ServeState) -> dict[str, Any]:
    """The JSON-RPC error body of a refused new session."""
    if reason == "draining":
        message = "the server is shutting down and takes no new sessions; try another replica"
    else:
        message = (
            f"the server holds its limit of {state.max_sessions} sessions (--max-sessions); "
            f"try again in {RETRY_AFTER} s or another replica"
        )
    data = {"reason": reason, "retry_after": RETRY_AFTER, **state.health()}
    error = {"code": mcp_types.INTERNAL_ERROR, "message": message, "data": data}
    return {"jsonrpc": "2.0", "id": None, "error": error}


class Gate:
    """ASGI middleware in front of the MCP app: health, readiness, refusals.

    Outermost: the probes need no token and pass any ``Host`` (they tell only counts).
    """

    def __init__(self, app: Any, state: ServeState, path: str) -> None:
        self.app = app
        self.state = state
        self.path = path.rstrip("/") or "/"

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path in (HEALTH_PATH, READY_PATH) and scope["method"] in ("GET", "HEAD"):
            await self._probe(path, scope, send)
            return
        if (path.rstrip("/") or "/") == self.path:
            if self._opens_session(scope):
                if self.state.draining:
                    await _send_json(send, 503, refusal("draining", self.state), retry=True)
                    return
                send = self._reword_full(send)
            receive = self._until_closing(receive)
            if scope["method"] == "POST":
                self.state.posts.started()
                try:
                    await self.app(scope, receive, send)
                finally:
                    self.state.posts.ended()
                return
        await self.app(scope, receive, send)

    def _until_closing(self, receive: Any) -> Any:
        """A ``receive`` that reports the client gone once the server is closing.

        An SSE stream (a session's ``GET``) lasts until its client leaves; told so, it
        ends cleanly, and the HTTP server stops without cancelling it mid-stream.
        """
        closing = self.state.closing

        async def received() -> Any:
            if closing.is_set():
                return {"type": "http.disconnect"}
            message = asyncio.ensure_future(receive())
            closed = asyncio.ensure_future(closing.wait())
            await asyncio.wait({message, closed}, return_when=asyncio.FIRST_COMPLETED)
            closed.cancel()
            if message.done():
                return message.result()
            message.cancel()
            return {"type": "http.disconnect"}

        return received

    def _opens_session(self, scope: Any) -> bool:
        if scope["method"] != "POST":
            return False
        if self.state.stateless:
            return True
        return not any(name == b"mcp-session-id" for name, _ in scope["headers"])

    async def _probe(self, path: str, scope: Any, send: Any) -> None:
        body = self.state.health()
        status = 200
        if path == READY_PATH:
            reason = self.state.unready_reason()
            body = {"ready": reason is None, "reason": reason, **body}
            status = 200 if reason is None else 503
        await _send_json(send, status, body, head=scope["method"] == "HEAD")

    def _reword_full(self, send: Any) -> Any:
        """A ``send`` that turns the SDK's ``503`` (its session limit) into ours."""
        replaced = False

        async def reworded(message: Any) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 503:
                replaced = True
                await _send_json(send, 503, refusal("full", self.state), retry=True)
            elif not replaced:
                await send(message)
            # else: the SDK's own body for the replaced answer, dropped

        return reworded


async def _send_json(
    send: Any, status: int, body: dict[str, Any], *, retry: bool = False, head: bool = False
) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
    headers.append((b"content-length", str(len(data)).encode()))
    if retry:
        headers.append((b"retry-after", str(RETRY_AFTER).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else data})
