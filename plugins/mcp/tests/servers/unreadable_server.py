"""An MCP server whose tool list is nested deeper than the MCP SDK's JSON reader takes
(plain JSON-RPC over stdio: the SDK would not write it either).

python unreadable_server.py

Its one tool's input schema nests 250 levels deep, so its ``tools/list`` answer is a
line no SDK client can parse.
"""

from __future__ import annotations

import json
import sys
from typing import Any

node: dict[str, Any] = {"type": "string"}
for _ in range(250):
    node = {"type": "array", "items": node}
TOOLS = [{"name": "deeper", "inputSchema": {"type": "object", "properties": {"grid": node}}}]
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
        result = {"tools": TOOLS}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
