"""What keeps an HTTP MCP server to the clients meant to reach it.

A server bound to a loopback address is reachable from this machine only; any other
address needs a bearer token, which :class:`BearerTokenMiddleware` checks on every
request. :class:`RequestGuard` checks the rest, before a request reaches MCP:

- ``Host``, ``Origin``, ``Authorization`` and ``Mcp-Session-Id`` come at most once
  (``400``): servers and proxies that read the first or the last of two would see
  different requests.
- On a loopback bind the ``Host`` must name this machine (``localhost``, ``127.0.0.1``,
  ``[::1]`` or the bind address, any port: a port forward may map one), against DNS
  rebinding (``421``). On any other bind the names that reach the machine are not known
  here, and the token keeps a rebinding page out.
- An ``Origin``, when sent (browsers do; other clients do not), must be the request's
  own origin exactly, scheme, host and port (``http://`` and the ``Host`` the request
  names), or one given with ``--allow-origin``; anything else is ``403``, as the MCP
  specification asks: ``null``, another port, ``http://127.0.0.1:8000.evil.example``.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
from collections.abc import Iterable
from typing import Any

from toolplug_mcp.errors import OriginError

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


#: Headers a request may carry at most once.
SINGLE_HEADERS = (b"host", b"origin", b"authorization", b"mcp-session-id")

#: The names a loopback bind answers to, besides its own address.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")

_DEFAULT_PORTS = {"http": 80, "https": 443}

# A Host header (RFC 9110): a name or IPv4 address, or an IPv6 address in brackets,
# then an optional port.
_HOST = re.compile(
    r"(?P<name>[A-Za-z0-9._~!$&'()*+,;=%-]+|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[0-9]*))?"
)
# A serialized origin (RFC 6454): scheme "://" host [":" port], nothing else.
_ORIGIN = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<host>.+)")


def _canonical_name(name: str) -> str:
    """A host name as origins compare it: lower case, IP addresses in one spelling."""
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return name.lower()
    return f"[{address}]" if address.version == 6 else str(address)


def parse_host(value: str) -> tuple[str, int | None] | None:
    """A ``Host`` header's name (canonical) and port; ``None`` when it is not one.

    An IPv6 address must be in brackets (``[::1]:8000``), as in a URL.
    """
    found = _HOST.fullmatch(value)
    if found is None:
        return None
    name, port = found["name"], found["port"]
    if ":" in name and not name.startswith("["):
        return None
    if name.startswith("["):
        try:
            ipaddress.IPv6Address(name[1:-1])
        except ValueError:
            return None
    if port is None or port == "":
        return _canonical_name(name), None
    number = int(port)
    if not 0 < number < 65536:
        return None
    return _canonical_name(name), number


def parse_origin(value: str) -> str | None:
    """An ``Origin`` as ``scheme://host:port`` (lower case, the port always written),
    or ``None`` when ``value`` is not a serialized origin (``null``, a path, userinfo)."""
    found = _ORIGIN.fullmatch(value)
    if found is None:
        return None
    scheme = found["scheme"].lower()
    host = parse_host(found["host"])
    if host is None:
        return None
    name, port = host
    if port is None:
        port = _DEFAULT_PORTS.get(scheme)
        if port is None:
            return None
    return f"{scheme}://{name}:{port}"


def allowed_origin(value: str) -> str:
    """An ``--allow-origin`` value as :func:`parse_origin` compares it.

    Raises :class:`OriginError` for what is not an origin.
    """
    parsed = parse_origin(value.strip())
    if parsed is None:
        raise OriginError(
            f"{value!r} is not an origin: give the scheme, host and port a browser shows "
            "for the page, without a path (https://app.example, http://localhost:5173)"
        )
    return parsed


class RequestGuard:
    """ASGI middleware: single headers, the ``Host`` on a loopback bind, the ``Origin``
    on every bind (see the module's docstring)."""

    def __init__(self, app: Any, *, loopback: bool, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.loopback = loopback
        self.allowed_origins = frozenset(allowed_origin(o) for o in allowed_origins)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            refused = self.refusal(scope)
            if refused is not None:
                status, text = refused
                await send(
                    {
                        "type": "http.response.start",
                        "status": status,
                        "headers": [
                            (b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(text.encode())).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": text.encode()})
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: Any) -> tuple[int, str] | None:
        """The status and text a request is refused with, or ``None``."""
        seen: dict[bytes, list[bytes]] = {}
        for name, value in scope.get("headers", []):
            if name in SINGLE_HEADERS:
                seen.setdefault(name, []).append(value)
        for name, values in seen.items():
            if len(values) > 1:
                return 400, f"Bad Request: more than one {name.decode().title()} header"
        raw_host = seen.get(b"host", [b""])[0].decode("latin-1")
        host = parse_host(raw_host)
        if self.loopback and (host is None or host[0] not in self._local_names(scope)):
            return 421, "Misdirected Request: this server answers to this machine's names only"
        if b"origin" not in seen:
            return None
        origin = parse_origin(seen[b"origin"][0].decode("latin-1"))
        if origin is not None and (
            origin in self.allowed_origins or origin == self._own_origin(scope, host)
        ):
            return None
        return 403, "Forbidden: this Origin may not call the server (see --allow-origin)"

    @staticmethod
    def _local_names(scope: Any) -> set[str]:
        names = {_canonical_name(n) for n in LOOPBACK_NAMES}
        server = scope.get("server")
        if server:
            names.add(_canonical_name(str(server[0])))
        return names

    @staticmethod
    def _own_origin(scope: Any, host: tuple[str, int | None] | None) -> str | None:
        """``scheme://host:port`` of the request itself (its ``Host`` header)."""
        if host is None:
            return None
        scheme = str(scope.get("scheme", "http"))
        name, port = host
        port = port if port is not None else _DEFAULT_PORTS.get(scheme)
        return f"{scheme}://{name}:{port}"


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
