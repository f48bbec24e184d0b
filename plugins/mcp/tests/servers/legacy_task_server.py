"""A bare MCP server of the 2025-11-25 revision whose tools declare
``execution.taskSupport``, written on plain JSON-RPC over stdio (no SDK), for the
client's task tests.

``report`` is ``required`` (called without task augmentation it fails with
``-32601``, as such servers answer), ``summary`` is ``optional``, ``echo`` says
nothing. The server declares no ``tasks`` capability.
"""

from __future__ import annotations

import json
import sys

PROTOCOL = "2025-11-25"
TOOLS = [
    {
        "name": "report",
        "description": "A long report; runs only as a task.",
        "inputSchema": {"type": "object", "properties": {}},
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "summary",
        "description": "A short summary; may run as a task.",
        "inputSchema": {"type": "object", "properties": {}},
        "execution": {"taskSupport": "optional"},
    },
    {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
]


def answer(request: dict) -> dict:
    method, params = request["method"], request.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": PROTOCOL,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "legacy-tasks", "version": "1.0"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        name = params.get("name")
        if name == "report" and "task" not in params:
            raise LookupError("Tool 'report' requires task augmentation")
        text = params.get("arguments", {}).get("text", f"the {name}")
        return {"content": [{"type": "text", "text": text}]}
    if method == "ping":
        return {}
    raise LookupError(f"Method not found: {method}")


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue  # a notification, or an answer
    try:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": answer(message)}
    except LookupError as exc:
        reply = {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32601, "message": str(exc)},
        }
    print(json.dumps(reply), flush=True)
