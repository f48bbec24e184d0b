"""An MCP server one of whose tools has an input schema nested far deeper than any JSON
reader of the MCP SDK takes (plain JSON-RPC: the SDK would not write it either).

python deep_server.py DEPTH              # over stdio
python deep_server.py DEPTH http    # over streamable HTTP on 127.0.0.1:PORT/mcp (prints PORT)
python deep_server.py DEPTH sse     # the same, answering tools/list as an SSE event

With ``DEEP_PAD_MB=N`` in the environment, the deep tool's entry also carries about N MB
of short strings (in its ``_meta``), to make the list big as well as deep.

Its tools: ``deep`` (an input schema DEPTH levels deep, arrays of arrays, written as
text: Python's own JSON writer stops at 1,000), and two well-behaved ones, ``echo``
and ``shout``, listed after it. Over HTTP each POST is answered with JSON (or, with
``sse``, ``tools/list`` as a ``text/event-stream``); the standalone GET stream is 405.
"""

from __future__ import annotations

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEPTH = int(sys.argv[1])
MODE = sys.argv[2] if len(sys.argv) > 2 else "stdio"
SERVER = {"name": "deep", "version": "1"}
TEXT_ARG = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def deep_schema(depth: int) -> str:
    """An object schema whose one property nests ``depth`` levels of arrays."""
    inner = '{"type": "array", "items": ' * depth + '{"type": "string"}' + "}" * depth
    return '{"type": "object", "properties": {"grid": ' + inner + "}}"


def tools_json() -> str:
    well = [
        {"name": "echo", "description": "Return the text.", "inputSchema": TEXT_ARG},
        {"name": "shout", "description": "Return the text upper-cased.", "inputSchema": TEXT_ARG},
    ]
    deep = '{"name": "deep", "description": "Nested far too deep.", '
    pad_mb = int(os.environ.get("DEEP_PAD_MB") or 0)
    if pad_mb:
        deep += '"_meta": {"pad": [' + ", ".join(['"padding"'] * (pad_mb * 92_000)) + "]}, "
    deep += '"inputSchema": '
    deep += deep_schema(DEPTH) + "}"
    return "[" + ", ".join([deep, *(json.dumps(tool) for tool in well)]) + "]"


def answer(message: dict[str, Any]) -> str | None:
    """The JSON-RPC answer to one message (``None`` for a notification)."""
    if "id" not in message or "method" not in message:
        return None
    method, params = message["method"], message.get("params") or {}
    result: Any = {}
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}
        result["serverInfo"] = SERVER
    elif method == "tools/list":
        head = json.dumps({"jsonrpc": "2.0", "id": message["id"]})
        return head[:-1] + ', "result": {"tools": ' + tools_json() + "}}"
    elif method == "tools/call":
        text = str((params.get("arguments") or {}).get("text", ""))
        text = text.upper() if params.get("name") == "shout" else text
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method != "ping":
        error = {"code": -32601, "message": f"no method {method}"}
        return json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error})
    return json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})


class Handler(BaseHTTPRequestHandler):
    """Streamable HTTP, as little of it as a client needs."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        message = json.loads(body)
        text = answer(message)
        if text is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        as_event = MODE == "sse" and message.get("method") == "tools/list"
        data = (f"event: message\ndata: {text}\n\n" if as_event else text).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if as_event else "application/json")
        self.send_header("Mcp-Session-Id", "one")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


if MODE == "stdio":
    for line in sys.stdin:
        reply = answer(json.loads(line))
        if reply is not None:
            print(reply, flush=True)
else:
    # Port 0: the system picks a free port, and the first line of output says which.
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
