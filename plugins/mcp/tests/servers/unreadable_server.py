"""An MCP server whose tool list is nested deeper than the MCP SDK's JSON reader takes
(plain JSON-RPC over stdio: the SDK would not write it either).

python unreadable_server.py

Its ``tools/list`` answer carries ``_meta`` nested 250 levels deep, outside every tool
entry: no tool can be cut out to make the rest readable, so the line is one no SDK
client can parse, mended or not.
"""

from __future__ import annotations

import json
import sys
from typing import Any

node: dict[str, Any] = {"type": "string"}
for _ in range(250):
    node = {"type": "array", "items": node}
TOOLS = [{"name": "shallow", "inputSchema": {"type": "object", "properties": {}}}]
SERVER = {"name": "unreadable", "version": "1"}

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    result: dict[str, Any] = {}
    if message["method"] == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}}
        result["serverInfo"] = SERVER
    elif message["method"] == "tools/list":
        result = {"tools": TOOLS, "_meta": {"grid": node}}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
