"""What keeps an HTTP MCP server to the clients meant to reach it.

A server bound to a loopback address is reachable from this machine only; any other
address needs a bearer token, which :class:`BearerTokenMiddleware` checks on every
request. The ``Origin`` header is checked on every bind, as the MCP specification asks
(a web page's request names the page's origin, and only the server's own origin and
the ``--allow-origin`` ones may call); the ``Host`` header is checked on a loopback
bind, where the names that reach the server are known. Both checks are fastmcp's,
configured by :func:`origin_guard`.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Sequence
from typing import Any

#: The environment variable ``toolplug mcp serve`` reads the bearer token from.
TOKEN_ENV_VAR = "TOOLPLUG_MCP_TOKEN"


def is_loopback(host: str) -> bool:
    """Whether a bind address only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def origin_guard(host: str, allowed_origins: Sequence[str] | None) -> dict[str, Any]:
    """fastmcp's ``http_app`` options for the Host and Origin checks of a ``host`` bind.

    fastmcp's ``"auto"`` mode checks both on a loopback bind only; on any other, a
    foreign ``Origin`` would be served. There the check is made strict, with every
    ``Host`` accepted (which names reach the machine is not known here).
    """
    origins = list(allowed_origins) if allowed_origins else None
    if is_loopback(host):
        return {"host_origin_protection": "auto", "allowed_origins": origins}
    return {"host_origin_protection": True, "allowed_hosts": ["*"], "allowed_origins": origins}


def bearer_token(header: bytes) -> bytes | None:
    """The token of an ``Authorization: Bearer <token>`` header (the scheme in any case)."""
    scheme, _, token = header.strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return None
    return token.strip() or None


class BearerTokenMiddleware:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``.

    The scheme is matched in any case (``bearer``, ``BEARER``), as HTTP defines
    authentication schemes; the token exactly.
    """

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            header = dict(scope.get("headers", [])).get(b"authorization", b"")
            given = bearer_token(header) or b""
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps({"error": "unauthorized", "detail": "a bearer token is required"})
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="toolplug"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body.encode()})
                return
        await self.app(scope, receive, send)
