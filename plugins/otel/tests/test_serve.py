"""End to end: ``toolplug mcp serve`` with otel enabled continues the client's trace.

The server runs as a real subprocess on 127.0.0.1, its SDK set up at startup by
``support/sitecustomize.py`` to write every span it ends to a JSON-lines file; the
client is the official MCP SDK's, in this process, traced by the SDK that conftest.py
sets up. The client propagates its context in the request's ``params._meta``
(``traceparent``); fastmcp, under ``serve``, extracts it with the global propagator and
makes it current around the call, so the tool's span joins the client's trace.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Spans
from opentelemetry import propagate, trace
from toolplug.testing import wait_until

SUPPORT = Path(__file__).parent / "support"
TOOLPLUG = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"

tracer = trace.get_tracer("the client")


def _announced(proc: subprocess.Popen[bytes], stderr: Path) -> str | None:
    """The URL the server prints once it listens (``toolplug MCP server on URL``)."""
    if proc.poll() is not None:
        raise RuntimeError(f"the server exited with {proc.returncode}: {stderr.read_text()}")
    for line in stderr.read_text().splitlines():
        if line.startswith("toolplug MCP server on "):
            return line.split(" on ", 1)[1].strip()
    return None


def _serve(tmp_path: Path, **env: str) -> Iterator[tuple[str, Path]]:
    """Start the server with think and otel; yield its URL and its spans file."""
    spans_file = tmp_path / "server-spans.jsonl"
    stderr = tmp_path / "server-stderr.txt"
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")]),
        "TOOLPLUG_OTEL_TEST_SPANS": str(spans_file),
        **env,
    }
    # Port 0: the server binds a port and prints its URL (no port picked and released).
    args = [TOOLPLUG, "mcp", "serve", "--transport", "http", "--port", "0"]
    with stderr.open("w") as errors:
        proc = subprocess.Popen([*args, "--plugins", "think,otel"], env=environment, stderr=errors)
    try:
        url = wait_until(lambda: _announced(proc, stderr), timeout=60, what="the server's URL")
        yield url, spans_file
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from _serve(tmp_path)


@pytest.fixture
def served_propagation_only(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """fastmcp told to make no spans of its own (another layer owns the MCP spans)."""
    yield from _serve(tmp_path, FASTMCP_TELEMETRY_MODE="propagation_only")


def _server_spans(path: Path, name: str, limit: float = 30.0) -> list[dict[str, Any]]:
    """The server's spans once one named ``name`` is written (it exports as each ends)."""

    def written() -> list[dict[str, Any]] | None:
        if not path.exists():
            return None
        found = [json.loads(line) for line in path.read_text().splitlines() if line]
        return found if any(s["name"] == name for s in found) else None

    return wait_until(written, timeout=limit, what=f"the server's span named {name!r}")


async def _call_think_in_a_turn(url: str) -> tuple[int, dict[str, str]]:
    """Call think inside a client span; its trace id and the ``_meta`` that was sent."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        with tracer.start_as_current_span("agent turn") as turn:
            carrier: dict[str, str] = {}
            propagate.inject(carrier)
            result = await session.call_tool("think", {"thought": "plan"}, meta=carrier)
            assert not result.is_error
        return turn.get_span_context().trace_id, carrier


def _hex(value: int) -> str:
    return f"0x{value:032x}"


def _span_hex(value: int) -> str:
    return f"0x{value:016x}"


def test_the_tool_span_continues_the_clients_trace(served: tuple[str, Path], spans: Spans) -> None:
    url, spans_file = served
    trace_id, carrier = asyncio.run(_call_think_in_a_turn(url))
    assert carrier["traceparent"].split("-")[1] == f"{trace_id:032x}"
    server = {s["context"]["span_id"]: s for s in _server_spans(spans_file, "execute_tool think")}
    [tool] = [s for s in server.values() if s["name"] == "execute_tool think"]
    assert tool["context"]["trace_id"] == _hex(trace_id)
    assert tool["kind"] == "SpanKind.INTERNAL"
    assert tool["attributes"]["gen_ai.tool.name"] == "think"
    assert tool["attributes"]["gen_ai.operation.name"] == "execute_tool"
    # The serve session's call id is the MCP request's id.
    assert tool["attributes"]["gen_ai.tool.call.id"].isdigit()
    # Its parent is fastmcp's SERVER span for the request, whose parent is the span the
    # client sent the request in (the MCP client's own, inside the agent's turn).
    request = server[tool["parent_id"]]
    assert request["name"] == "tools/call think" and request["kind"] == "SpanKind.SERVER"
    client = {_span_hex(s.context.span_id): s for s in spans.all()}
    sent = client[request["parent_id"]]
    assert sent.context.trace_id == trace_id
    [turn] = [s for s in spans.all() if s.name == "agent turn"]
    assert sent.parent is not None and sent.parent.span_id == turn.context.span_id


def test_without_servers_spans_the_client_span_is_the_parent(
    served_propagation_only: tuple[str, Path], spans: Spans
) -> None:
    url, spans_file = served_propagation_only
    trace_id, _ = asyncio.run(_call_think_in_a_turn(url))
    server = _server_spans(spans_file, "execute_tool think")
    assert [s["name"] for s in server] == ["execute_tool think"]
    [tool] = server
    assert tool["context"]["trace_id"] == _hex(trace_id)
    client = {_span_hex(s.context.span_id): s for s in spans.all()}
    assert tool["parent_id"] in client
    assert client[tool["parent_id"]].context.trace_id == trace_id
