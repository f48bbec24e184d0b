"""An MCP server behind OAuth, for the client's sign-in tests: fastmcp's in-memory
provider (dynamic client registration, PKCE, an authorization endpoint that approves
at once and redirects to the client's callback).

python oauth_server.py PORT      # streamable HTTP on 127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import sys

from fastmcp import FastMCP
from fastmcp.server.auth.auth import ClientRegistrationOptions
from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider
from fastmcp.server.dependencies import get_access_token

port = int(sys.argv[1])
provider = InMemoryOAuthProvider(
    base_url=f"http://127.0.0.1:{port}",
    client_registration_options=ClientRegistrationOptions(enabled=True),
)
server = FastMCP("guarded", auth=provider)


@server.tool
def whoami() -> str:
    """The OAuth client the caller's token was issued to."""
    token = get_access_token()
    return f"client {token.client_id}" if token else "nobody"


if __name__ == "__main__":
    server.run(
        transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="warning"
    )
