"""An MCP server that turns to its client, on plain JSON-RPC over stdio (no SDK).

python interactive_server.py

It speaks the 2025-11-25 handshake, where a server sends its own requests and list
changes to the client directly (as ``server-everything`` and most servers do). Its
tools ask the client for a completion (``summarize``), a form (``book``) and its roots
(``roots``), or flood it with both (``flood``); report progress and log (``count``);
add, remove and retype tools,
saying that the list changed (``grow``, ``shrink``, ``retype``); and show what the
client declared (``capabilities``). It has two prompts, ``greet`` and ``review``, and
logs ``ready`` when the client has finished the handshake (outside any call).
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable
from typing import Any

PROTOCOL = "2025-11-25"
ids = itertools.count(1)
client: dict[str, Any] = {}  # what the client said in initialize


def text_tool(tool: str, description: str, **properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": tool,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties},
    }


TEXT = {"type": "string"}
tools: dict[str, dict[str, Any]] = {
    tool["name"]: tool
    for tool in [
        text_tool("summarize", "Ask the client's model for a summary.", text=TEXT),
        text_tool("book", "Ask the user for a table and a time."),
        text_tool("roots", "The client's roots."),
        text_tool("count", "Count, with progress and logs.", to={"type": "integer"}),
        text_tool("grow", "Add a tool.", name=TEXT),
        text_tool("shrink", "Remove a tool.", name=TEXT),
        text_tool("retype", "Give a tool a new argument.", name=TEXT, argument=TEXT),
        text_tool("capabilities", "What the client declared."),
        text_tool("echo", "Return the text.", text=TEXT),
        text_tool(
            "flood", "Ask for `count` completions and `count` answers.", count={"type": "integer"}
        ),
    ]
}
PROMPTS = [
    {
        "name": "greet",
        "description": "Greet someone by name.",
        "arguments": [{"name": "name", "description": "Who to greet.", "required": True}],
    },
    {
        "name": "review",
        "title": "Code review",
        "description": "Review a piece of code.",
        "arguments": [
            {"name": "code", "required": True},
            {"name": "language", "description": "Its language (default python)."},
        ],
    },
]


def send(message: dict[str, Any]) -> None:
    print(json.dumps({"jsonrpc": "2.0", **message}), flush=True)


def notify(method: str, params: dict[str, Any]) -> None:
    send({"method": method, "params": params})


def ask_client(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """Send a request to the client and wait for its answer (its other requests are
    answered meanwhile). The answer is ``{"result": ...}`` or ``{"error": ...}``."""
    request_id = f"s{next(ids)}"
    send({"id": request_id, "method": method, "params": params})
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("id") == request_id and "method" not in message:
            return message
        handle(message)
    raise SystemExit(0)


def text(value: str, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": is_error}


def flood(count: int) -> dict[str, Any]:
    """Ask the client for ``count`` completions and ``count`` form answers; say how many
    were granted, how many refused, and the last refusal."""
    granted = refused = 0
    last = ""
    sampling = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}
    form = {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}
    for _ in range(count):
        for method, params in [
            ("sampling/createMessage", {**sampling, "maxTokens": 5}),
            ("elicitation/create", form),
        ]:
            asked = ask_client(method, params)
            if "error" in asked:
                refused += 1
                last = asked["error"]["message"]
            else:
                granted += 1
    return text(f"granted={granted} refused={refused} last={last}")


def summarize(arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    asked = ask_client(
        "sampling/createMessage",
        {
            "messages": [{"role": "user", "content": {"type": "text", "text": arguments["text"]}}],
            "systemPrompt": "Answer in one line.",
            "maxTokens": 40,
            "temperature": 0.5,
            "stopSequences": ["\n\n"],
            "modelPreferences": {"hints": [{"name": "small"}]},
        },
    )
    if "error" in asked:
        return text(f"sampling failed: {asked['error']['message']}", True)
    result = asked["result"]
    return text(f"{result['model']} ({result['role']}): {result['content']['text']}")


def book(arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    asked = ask_client(
        "elicitation/create",
        {
            "mode": "form",
            "message": "Which table, and when?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "table": {"type": "integer", "description": "Table number"},
                    "when": {"type": "string", "enum": ["lunch", "dinner"]},
                },
                "required": ["table", "when"],
            },
        },
    )
    if "error" in asked:
        return text(f"asking failed: {asked['error']['message']}", True)
    result = asked["result"]
    if result["action"] != "accept":
        return text(f"not booked: {result['action']}")
    content = result["content"]
    return text(f"booked table {content['table']} for {content['when']}")


def roots(arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    asked = ask_client("roots/list", {})
    if "error" in asked:
        return text(f"no roots: {asked['error']['message']}", True)
    return text("\n".join(f"{r.get('name')}={r['uri']}" for r in asked["result"]["roots"]))


def count(arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    token = meta.get("progressToken")
    for i in range(1, arguments["to"] + 1):
        if token is not None:
            notify(
                "notifications/progress",
                {
                    "progressToken": token,
                    "progress": i,
                    "total": arguments["to"],
                    "message": f"step {i}",
                },
            )
        notify("notifications/message", {"level": "info", "data": f"counted {i}"})
    notify(
        "notifications/message",
        {"level": "warning", "logger": "counter", "data": {"message": "the end", "n": 1}},
    )
    return text(f"counted to {arguments['to']}")


def grow(arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    tools[arguments["name"]] = text_tool(arguments["name"], "Added while running.", word=TEXT)
    notify("notifications/tools/list_changed", {})
    return text(f"added {arguments['name']}")


def shrink(arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    tools.pop(arguments["name"], None)
    notify("notifications/tools/list_changed", {})
    return text(f"removed {arguments['name']}")


def retype(arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    tool = tools[arguments["name"]]
    tool["inputSchema"]["properties"][arguments["argument"]] = TEXT
    notify("notifications/tools/list_changed", {})
    return text(f"retyped {arguments['name']}")


#: The tools that do more than echo their arguments, by name.
HANDLERS: dict[str, Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]] = {
    "flood": lambda arguments, meta: flood(int(arguments.get("count", 300))),
    "summarize": summarize,
    "book": book,
    "roots": roots,
    "count": count,
    "grow": grow,
    "shrink": shrink,
    "retype": retype,
    "capabilities": lambda arguments, meta: text(
        json.dumps(client.get("capabilities", {}), sort_keys=True)
    ),
}


def call(name: str, arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    handler = HANDLERS.get(name)
    if handler is not None:
        return handler(arguments, meta)
    if name in tools:
        return text(f"{name}: {json.dumps(arguments, sort_keys=True)}")
    raise LookupError(f"Unknown tool: {name}")


def get_prompt(name: str, arguments: dict[str, str]) -> dict[str, Any]:
    if name == "greet":
        said = {"type": "text", "text": f"Say hello to {arguments['name']}."}
        return {
            "description": "Greet someone by name.",
            "messages": [{"role": "user", "content": said}],
        }
    if name == "review":
        language = arguments.get("language", "python")
        return {
            "messages": [
                {
                    "role": "user",
                    "content": {
                        "type": "text",
                        "text": f"Review this {language} code:\n{arguments['code']}",
                    },
                },
                {
                    "role": "assistant",
                    "content": {"type": "text", "text": "I will look at it line by line."},
                },
            ]
        }
    raise KeyError(name)


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        client.update(params)
        return {
            "protocolVersion": PROTOCOL,
            "capabilities": {"tools": {"listChanged": True}, "prompts": {}, "logging": {}},
            "serverInfo": {"name": "interactive", "version": "1.0"},
        }
    if method == "tools/list":
        return {"tools": list(tools.values())}
    if method == "tools/call":
        meta = params.get("_meta") or {}
        return call(params["name"], params.get("arguments") or {}, meta)
    if method == "prompts/list":
        return {"prompts": PROMPTS}
    if method == "prompts/get":
        return get_prompt(params["name"], params.get("arguments") or {})
    if method in ("ping", "logging/setLevel"):
        return {}
    raise LookupError(f"Method not found: {method}")


def handle(message: dict[str, Any]) -> None:
    if "method" not in message:
        return  # an answer nobody waits for
    if "id" not in message:
        if message["method"] == "notifications/initialized":
            notify("notifications/message", {"level": "notice", "data": "ready"})
        return
    try:
        result = answer(message["method"], message.get("params") or {})
        reply = {"id": message["id"], "result": result}
    except LookupError as exc:
        reply = {"id": message["id"], "error": {"code": -32601, "message": str(exc)}}
    except KeyError as exc:
        reply = {"id": message["id"], "error": {"code": -32602, "message": f"no prompt {exc}"}}
    send(reply)


for line in sys.stdin:
    handle(json.loads(line))
