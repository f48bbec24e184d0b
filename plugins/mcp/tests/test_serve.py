"""The serve side: `toolplug mcp serve`, driven by fastmcp's client and the official SDK.

Per-session state is shown with the bash tool when toolplug-bash is installed, and
otherwise with a small counter tool from a test-only plugin (tests/counter_plugin,
found through a hand-written entry point on PYTHONPATH).
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from conftest import HAS_BASH, TOOLPLUG, is_alive, serve_env, start_http, stop, until
from fastmcp import Client
from fastmcp.client.transports import StdioTransport


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace (and ``closed.txt``) of the module's shared :func:`served`."""
    return tmp_path_factory.mktemp("served")


@pytest.fixture(scope="module")
def served(workspace: Path) -> Iterator[str]:
    """One served toolplug for the module's tests that need no fresh server (each opens
    sessions of its own); its URL."""
    proc, url = start_http(workspace, "--workspace", str(workspace))
    try:
        yield url
    finally:
        stop(proc)
    assert not is_alive(proc.pid)


async def test_two_concurrent_sessions_keep_separate_state(served: str, workspace: Path) -> None:
    closed = workspace / "closed.txt"
    # Only this test's sessions count: the shared server's earlier ones are left out.
    earlier = len(closed.read_text().splitlines()) if closed.exists() else 0
    async with (
        Client(served, timeout=20, init_timeout=20) as a,
        Client(served, timeout=20, init_timeout=20) as b,
    ):
        for step in range(1, 4):
            ra, rb = await asyncio.gather(
                a.call_tool_mcp("counter", {"step": 1}), b.call_tool_mcp("counter", {"step": 10})
            )
            assert ra.structured_content["value"] == step
            assert rb.structured_content["value"] == 10 * step
        if HAS_BASH:
            await a.call_tool_mcp("bash", {"command": "cd /usr && export WHO=a"})
            await b.call_tool_mcp("bash", {"command": "export WHO=b"})
            seen_a = await a.call_tool_mcp("bash", {"command": 'echo "WHO=$WHO in $PWD"'})
            seen_b = await b.call_tool_mcp("bash", {"command": 'echo "WHO=$WHO in $PWD"'})
            assert "WHO=a in /usr" in seen_a.content[0].text
            assert f"WHO=b in {workspace}" in seen_b.content[0].text
    # Both sessions ended (the clients sent DELETE): their tools were closed.

    def both_closed() -> bool:
        lines = closed.read_text().splitlines() if closed.exists() else []
        return {"closed at 3", "closed at 30"} <= set(lines[earlier:])

    await until(both_closed, "both sessions' counters to be closed")


async def test_schemas_errors_and_structured_results_over_mcp(served: str) -> None:
    async with Client(served, timeout=20, init_timeout=20) as client:
        tools = {t.name: t for t in await client.list_tools()}
        counter = tools["counter"]
        assert counter.input_schema["properties"]["step"]["default"] == 1
        assert counter.output_schema["properties"]["value"]["type"] == "integer"
        bad = await client.call_tool_mcp("counter", {"step": "many"})
        assert bad.is_error
        assert "step" in bad.content[0].text
        good = await client.call_tool_mcp("counter", {"step": 2})
        assert good.structured_content["value"] == 2 and not good.is_error


async def test_the_official_sdk_client(served: str) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        streamable_http_client(served) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        assert "counter" in [t.name for t in listed.tools]
        first = await session.call_tool("counter", {"step": 5})
        second = await session.call_tool("counter", {"step": 5})
        assert second.structured_content["value"] == first.structured_content["value"] + 5


def test_foreign_origins_are_refused(served: str) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    refused = httpx2.post(served, json=body, headers={"Origin": "http://evil.example"})
    assert refused.status_code == 403
    rebound = httpx2.post(served, json=body, headers={"Host": "evil.example"})
    assert rebound.status_code == 421


async def test_a_token_is_required_when_given(tmp_path: Path) -> None:
    proc, url = start_http(tmp_path, "--token", "s3cret")
    try:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        assert httpx2.post(url, json=body).status_code == 401
        wrong = httpx2.post(url, json=body, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        async with Client(url, auth="s3cret", timeout=20, init_timeout=20) as client:
            result = await client.call_tool_mcp("counter", {})
            assert result.structured_content["value"] == 1
    finally:
        stop(proc)


def test_a_network_bind_without_a_token_is_refused(tmp_path: Path) -> None:
    env = {k: v for k, v in serve_env(tmp_path).items() if k != "TOOLPLUG_MCP_TOKEN"}
    args = [TOOLPLUG, "mcp", "serve", "--transport", "http", "--host", "0.0.0.0"]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--token" in done.stderr


async def test_stdio_serving(tmp_path: Path) -> None:
    transport = StdioTransport(
        TOOLPLUG,
        ["mcp", "serve", "--plugins", "counter"],
        env=serve_env(tmp_path),
        keep_alive=False,
    )
    async with Client(transport, timeout=20, init_timeout=30) as client:
        first = await client.call_tool_mcp("counter", {"step": 4})
        second = await client.call_tool_mcp("counter", {"step": 4})
        assert second.structured_content["value"] == 8
        assert first.structured_content["pid"] == second.structured_content["pid"]
    # The server closed its session's tools when the client went away.
    assert "closed at 8" in (tmp_path / "closed.txt").read_text()
