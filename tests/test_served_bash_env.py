"""bash under `toolplug mcp serve`: a client's shell gets a minimal environment, never the
server's token. Here, where both plugins are installed."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


async def test_a_served_clients_shell_gets_neither_the_token_nor_the_servers_variables(
    tmp_path: Path,
) -> None:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    toolplug = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"
    env = {
        **os.environ,
        "SERVER_SECRET": "s3cret",
        "TOOLPLUG_MCP_TOKEN": "tok3n",
        "OPERATOR_ALLOWED": "yes",
        # The operator lets one more variable through, and lists the token too: the
        # token is never passed all the same.
        "TOOLPLUG_BASH_PASS_ENV": "OPERATOR_ALLOWED,TOOLPLUG_MCP_TOKEN",
    }
    transport = StdioTransport(
        toolplug,
        ["mcp", "serve", "--plugins", "bash", "--workspace", str(tmp_path)],
        env=env,
        keep_alive=False,
    )
    async with Client(transport, timeout=60, init_timeout=60) as client:
        result = await client.call_tool_mcp("bash", {"command": "env; echo END"})
    text = "\n".join(block.text for block in result.content if hasattr(block, "text"))
    assert not result.is_error, text
    assert "END" in text
    assert "s3cret" not in text
    assert "tok3n" not in text
    assert "OPERATOR_ALLOWED=yes" in text
    assert "PATH=" in text
