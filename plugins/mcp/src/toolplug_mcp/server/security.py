"""What keeps an HTTP MCP server to the clients meant to reach it.

A server bound to a loopback address is reachable from this machine only; any other
address needs a bearer token, which :class:`BearerTokenMiddleware` checks on every
request. (Host and Origin checks against DNS rebinding are fastmcp's, switched on in
:func:`~toolplug_mcp.server.serve.http_app`.)
"""

from __future__ import annotations

import hmac
import ipaddress
import json
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


class BearerTokenMiddleware:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers", [])).get(b"authorization", b"")
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
