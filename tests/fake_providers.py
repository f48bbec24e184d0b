"""A local stand-in for the model providers' HTTP APIs, for the docs' agent loops.

One ``http.server`` on 127.0.0.1, in a thread, speaks just enough of each provider's
API for a two-turn loop through the real SDKs: OpenAI Chat Completions
(``/v1/chat/completions``, also with a JSON-schema ``response_format``), OpenAI
Responses (``/v1/responses``), Anthropic Messages (``/v1/messages``), Google Gemini
(``/v1beta/models/M:generateContent``) and AWS Bedrock Converse
(``/model/M/converse``). The first answer of a conversation calls a real tool the
request declares; once the request carries that tool's result, the answer is plain
text. Every exchange is recorded, so a test can check that a result went back.

:func:`provider_env` gives the variables that point each SDK here; in real use the
SDKs go to their default endpoints.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "There are 3 Python files; the largest is app/main.py."

#: The tools the fake model knows how to call, with arguments, in order of preference.
KNOWN_CALLS: dict[str, dict[str, Any]] = {
    "glob": {"pattern": "**/*.py"},
    "weather_forecast": {"city": "Lisbon"},
    "think": {"thought": "Count the Python files first."},
}


@dataclass
class Exchange:
    """One request the fake answered: the API, the tool it called, the results it got."""

    api: str
    called: str | None
    results: list[Any] = field(default_factory=list)


class FakeProviders:
    """The running server: its base URL and the exchanges so far."""

    def __init__(self, server: ThreadingHTTPServer) -> None:
        self.server = server
        host, port = server.server_address[:2]
        self.url = f"http://{host}:{port}"
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()

    def record(self, exchange: Exchange) -> None:
        with self.lock:
            self.exchanges.append(exchange)


def provider_env(url: str) -> dict[str, str]:
    """Environment variables that send the SDKs to the fake at ``url``."""
    return {
        "OPENAI_BASE_URL": f"{url}/v1",
        "OPENAI_API_KEY": "sk-fake",
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-fake",
        "GOOGLE_GEMINI_BASE_URL": url,
        "GEMINI_API_KEY": "fake",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": url,
        "AWS_ACCESS_KEY_ID": "AKIAFAKE",
        "AWS_SECRET_ACCESS_KEY": "fake",
        "AWS_DEFAULT_REGION": "us-east-1",
    }


def _choose(names: list[str]) -> tuple[str, dict[str, Any]]:
    for name, arguments in KNOWN_CALLS.items():
        if name in names:
            return name, arguments
    raise ValueError(f"the fake model knows none of the declared tools: {names}")


def _sample(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A value that fits a JSON schema (the subset compose produces)."""
    if "$ref" in schema:
        return _sample(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "enum" in schema:
        return schema["enum"][0]
    options = schema.get("anyOf")
    if options:
        non_null = [o for o in options if o.get("type") != "null"]
        return _sample(non_null[0] if non_null else options[0], defs)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        return {key: _sample(sub, defs) for key, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return []
    return {"string": "example", "integer": 1, "number": 1.0, "boolean": True}.get(kind)


def _composed(schema: dict[str, Any], done: bool) -> dict[str, Any]:
    """A reply to a compose schema: a call of a known tool first, then the output."""
    defs = schema.get("$defs", {})
    properties = schema["properties"]
    if done:
        output = properties["output"]
        options = [o for o in output.get("anyOf", [output]) if o.get("type") != "null"]
        return {"calls": [], "output": _sample(options[0], defs)}
    calls = properties["calls"]["items"]
    branches = calls.get("anyOf", [calls])
    names = [b["properties"]["_tool"]["enum"][0] for b in branches]
    name, arguments = _choose(names)
    branch = branches[names.index(name)]
    call = {key: None for key in branch["properties"]}
    call.update(arguments, _tool=name)
    return {"calls": [call], "output": None}


def _openai_chat(body: dict[str, Any]) -> tuple[dict[str, Any], Exchange]:
    messages = body["messages"]
    results = [m.get("content") for m in messages if m.get("role") == "tool"]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    called = None
    fmt = body.get("response_format")
    if fmt and fmt.get("type") == "json_schema":
        done = any(m.get("role") == "assistant" for m in messages)
        reply = _composed(fmt["json_schema"]["schema"], done)
        message["content"] = json.dumps(reply)
        called = None if done else reply["calls"][0]["_tool"]
        results = [m.get("content") for m in messages[1:] if m.get("role") == "user"]
        finish = "stop"
    elif results:
        message["content"], finish = FINAL_TEXT, "stop"
    else:
        called, arguments = _choose([t["function"]["name"] for t in body.get("tools", [])])
        message["tool_calls"] = [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": called, "arguments": json.dumps(arguments)},
            }
        ]
        finish = "tool_calls"
    answer = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    return answer, Exchange("openai", called, results)


def _openai_responses(body: dict[str, Any]) -> tuple[dict[str, Any], Exchange]:
    items = body["input"] if isinstance(body["input"], list) else []
    results = [i.get("output") for i in items if i.get("type") == "function_call_output"]
    called = None
    if results:
        output: list[dict[str, Any]] = [
            {
                "type": "message",
                "id": "msg_fake",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}],
            }
        ]
    else:
        called, arguments = _choose([t["name"] for t in body.get("tools", [])])
        output = [
            {
                "type": "function_call",
                "id": "fc_fake",
                "call_id": "call_1",
                "name": called,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        ]
    answer = {
        "id": "resp_fake",
        "object": "response",
        "created_at": 0,
        "model": body["model"],
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    return answer, Exchange("responses", called, results)


def _anthropic(body: dict[str, Any]) -> tuple[dict[str, Any], Exchange]:
    results = [
        block
        for m in body["messages"]
        if isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_result"
    ]
    called = None
    if results:
        content: list[dict[str, Any]] = [{"type": "text", "text": FINAL_TEXT}]
        stop = "end_turn"
    else:
        called, arguments = _choose([t["name"] for t in body.get("tools", [])])
        content = [{"type": "tool_use", "id": "toolu_1", "name": called, "input": arguments}]
        stop = "tool_use"
    answer = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    return answer, Exchange("anthropic", called, results)


def _gemini(body: dict[str, Any]) -> tuple[dict[str, Any], Exchange]:
    results = [
        part["functionResponse"]
        for content in body["contents"]
        for part in content.get("parts", [])
        if "functionResponse" in part
    ]
    called = None
    if results:
        parts: list[dict[str, Any]] = [{"text": FINAL_TEXT}]
    else:
        declared = [
            declaration["name"]
            for tool in body.get("tools", [])
            for declaration in tool.get("functionDeclarations", [])
        ]
        called, arguments = _choose(declared)
        parts = [{"functionCall": {"name": called, "args": arguments}}]
    answer = {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "fake",
    }
    return answer, Exchange("gemini", called, results)


def _bedrock(body: dict[str, Any]) -> tuple[dict[str, Any], Exchange]:
    results = [
        block["toolResult"]
        for m in body["messages"]
        for block in m["content"]
        if "toolResult" in block
    ]
    called = None
    if results:
        content: list[dict[str, Any]] = [{"text": FINAL_TEXT}]
        stop = "end_turn"
    else:
        declared = [t["toolSpec"]["name"] for t in body["toolConfig"]["tools"]]
        called, arguments = _choose(declared)
        content = [{"toolUse": {"toolUseId": "tooluse_1", "name": called, "input": arguments}}]
        stop = "tool_use"
    answer = {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }
    return answer, Exchange("bedrock", called, results)


def _route(path: str) -> Any:
    path = path.split("?", 1)[0]
    if path.endswith("/chat/completions"):
        return _openai_chat
    if path.endswith("/responses"):
        return _openai_responses
    if path.endswith("/v1/messages"):
        return _anthropic
    if path.endswith(":generateContent"):
        return _gemini
    if path.startswith("/model/") and path.endswith("/converse"):
        return _bedrock
    return None


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        answer_for = _route(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        try:
            if answer_for is None:
                raise ValueError(f"the fake providers do not serve {self.path}")
            answer, exchange = answer_for(json.loads(self.rfile.read(length)))
        except Exception as error:  # the SDK shows the reason to the failing example
            self._send(400, {"error": {"message": f"{type(error).__name__}: {error}"}})
            return
        self.server.fake.record(exchange)
        self._send(200, answer)

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeProviders


@contextmanager
def fake_providers() -> Iterator[FakeProviders]:
    """Run the fake providers on a free port of 127.0.0.1 for the ``with`` block."""
    server = _Server(("127.0.0.1", 0), _Handler)
    fake = FakeProviders(server)
    server.fake = fake
    thread = threading.Thread(target=server.serve_forever, name="fake-providers", daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
