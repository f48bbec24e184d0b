"""How long an HTTP client may take to send its request.

uvicorn times out an idle kept-alive connection, but not one that sends its request
slowly: a client that sends a header a byte at a time, or never finishes its body,
holds its socket (and, mid-body, a task) for as long as it likes, and a few hundred of
them hold the server. Here:

- the request line and headers must arrive within ``header_timeout`` seconds of the
  connection's first byte (or of its opening, for a client that sends nothing):
  :func:`timed_protocol`, uvicorn's h11 protocol with a timer;
- the body must arrive within ``body_timeout`` seconds of the headers:
  :class:`ReadBody`, which reads it before the MCP layer sees the request.

Either way the client gets ``408 Request Timeout`` and the connection is closed, with
one line in the server's log. A client that goes away mid-body is one line too (the
MCP SDK would log a traceback for it), and its request never reaches the MCP layer.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a client may take to send its request line and headers.
DEFAULT_HEADER_TIMEOUT = 10.0

#: Seconds a client may take to send a request's body, once its headers are in.
DEFAULT_BODY_TIMEOUT = 30.0

#: Bytes of a body read ahead of the MCP layer; past them the MCP SDK's own limit
#: (4 MiB) answers ``413``.
READ_AHEAD_LIMIT = 4 * 1024 * 1024

#: uvicorn's own log, where its other warnings about clients go.
log = logging.getLogger("uvicorn.error")

_TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 16\r\nconnection: close\r\n\r\nRequest Timeout\n"
)


def _peer(address: Any) -> str:
    if not address:
        return "a client"
    host, port = address[0], address[1]
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"


def timed_protocol(header_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection whose headers take longer than
    ``header_timeout`` seconds (pass it to ``uvicorn.Config(http=...)``)."""

    class TimedH11Protocol(H11Protocol):
        """A connection that must send each request's headers in time."""

        _timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._timer is None and self.conn.their_state is h11.IDLE:
                self._arm()  # the first bytes of the next request on a kept connection
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # the headers are in (or the request was refused)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._timer = self.loop.call_later(header_timeout, self._headers_too_slow)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _headers_too_slow(self) -> None:
            self._timer = None
            if self.transport.is_closing():
                return
            log.warning(
                "Closed the connection of %s: its request headers took over %g s "
                "(--header-timeout).",
                _peer(self.client),
                header_timeout,
            )
            self.transport.write(_TIMEOUT_RESPONSE)
            self.transport.close()

    return TimedH11Protocol


def _has_body(scope: Any) -> bool:
    return any(name in (b"content-length", b"transfer-encoding") for name, _ in scope["headers"])


class ReadBody:
    """ASGI middleware: read a request's body (up to :data:`READ_AHEAD_LIMIT`) within
    ``timeout`` seconds before the app sees the request, then hand the app the body.
    """

    def __init__(self, app: Any, timeout: float = DEFAULT_BODY_TIMEOUT) -> None:
        self.app = app
        self.timeout = timeout

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not _has_body(scope):
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        chunks: list[bytes] = []
        size = 0
        more = True
        while more and size <= READ_AHEAD_LIMIT:
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0))
            except asyncio.TimeoutError:
                log.warning(
                    "Closed the connection of %s: the body of its %s %s took over %g s "
                    "(--body-timeout).",
                    _peer(scope.get("client")),
                    scope["method"],
                    scope["path"],
                    self.timeout,
                )
                await _send_timeout(send)
                return
            if message["type"] == "http.disconnect":
                log.warning(
                    "%s went away before the end of the body of its %s %s (%d bytes in).",
                    _peer(scope.get("client")).capitalize(),
                    scope["method"],
                    scope["path"],
                    size,
                )
                return
            body = message.get("body", b"")
            chunks.append(body)
            size += len(body)
            more = bool(message.get("more_body", False))
        read: dict[str, Any] | None = {
            "type": "http.request",
            "body": b"".join(chunks),
            "more_body": more,
        }

        async def replay() -> Any:
            nonlocal read
            if read is not None:
                message, read = read, None
                return message
            return await receive()

        await self.app(scope, replay, send)


async def _send_timeout(send: Any) -> None:
    text = b"Request Timeout\n"
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(text)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 408, "headers": headers})
    await send({"type": "http.response.body", "body": text})
