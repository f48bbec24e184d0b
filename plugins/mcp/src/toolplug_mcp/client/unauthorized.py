"""Telling a remote server's "401 Unauthorized" (or "404 session not found") apart from
any other failure.

The MCP SDK turns every HTTP error status into the same JSON-RPC error, "Server
returned an error response", so the status is watched on the HTTP client itself:
:class:`StatusWatch` makes the transport's HTTP clients and remembers the last
401 (or 403 with a ``WWW-Authenticate`` challenge) a server sent, and
:meth:`StatusWatch.explain` says what to configure; it also notes a 404 to a request
of the session, which the connection answers by starting a new session.
"""

from __future__ import annotations

import re
from typing import Any

from toolplug_mcp.client.config import ServerSpec


class StatusWatch:
    """An ``httpx_client_factory`` for fastmcp's HTTP transports that notes refusals."""

    def __init__(self) -> None:
        #: The last 401/403 status seen, and its ``WWW-Authenticate`` header.
        self.refused: tuple[int, str] | None = None
        #: Whether the server answered a request of the session with 404: it no longer
        #: knows the session (it restarted, or ended it), and did not serve the request.
        self.session_ended = False

    def __call__(
        self,
        headers: dict[str, str] | None = None,
        timeout: Any = None,
        auth: Any = None,
        **_ignored: Any,
    ) -> Any:
        """A new HTTP client, as the MCP SDK makes them, with the watch on its responses."""
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
        client.event_hooks.setdefault("response", []).append(self._note)
        return client

    async def _note(self, response: Any) -> None:
        if response.status_code == 404 and "mcp-session-id" in response.request.headers:
            self.session_ended = True
        challenge = response.headers.get("www-authenticate", "")
        # A 403 is about credentials only when it says so (insufficient_scope); others
        # (a refused Origin, a path not allowed) are left to the usual message.
        if response.status_code == 401 or (response.status_code == 403 and challenge):
            self.refused = (response.status_code, challenge)
        elif response.is_success and response.request.method != "DELETE":
            # Not the session's DELETE as the transport closes after the refusal.
            self.refused = None

    def explain(self, spec: ServerSpec) -> str | None:
        """What the last refusal means and how to fix it (``None`` without one)."""
        if self.refused is None:
            return None
        status, challenge = self.refused
        where = f"the server at {spec.url}"
        if spec.oauth is not None:
            wanted = _challenge_field(challenge, "scope")
            asks = f" (it asks for scope '{wanted}')" if wanted else ""
            return (
                f"{where} refused the OAuth token with HTTP {status}{asks}; the sign-in "
                "did not give access (check the 'scopes' under 'oauth', or delete the "
                "cached tokens to sign in again)"
            )
        offers_oauth = "resource_metadata" in challenge or status == 401
        has_credentials = any(k.lower() == "authorization" for k in spec.headers)
        fix = (
            "the configured credentials were refused; check the token"
            if has_credentials
            else "it needs credentials"
        )
        return (
            f"{where} answered HTTP {status} {_REASON.get(status, '')}: {fix}. Give a "
            'bearer token ("auth": "${TOKEN}", or "headers": {"Authorization": '
            '"Bearer ..."})' + (', or sign in with OAuth: "auth": "oauth"' if offers_oauth else "")
        )


_REASON = {401: "Unauthorized", 403: "Forbidden"}


def _challenge_field(challenge: str, name: str) -> str | None:
    """One quoted parameter of a ``WWW-Authenticate: Bearer ...`` challenge."""
    found = re.search(rf'(?:^|[\s,]){name}="([^"]*)"', challenge)
    return found.group(1) if found else None
