"""How long a session's tools live under `toolplug mcp serve`: as long as the MCP session.

A connected session keeps its tools however long it waits and whoever else connects;
an idle session is ended by a timer (its id then answers 404, its processes are gone
from /proc); a client killed mid-call leaves no traceback and, once its session ends,
no processes. Every test runs the real server and real clients (the official MCP SDK,
or plain HTTP where a client must not hold a stream open) on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from conftest import (
    HAS_BASH,
    PROTOCOL,
    TOOLPLUG,
    children_of,
    is_alive,
    rpc_answer,
    serve_env,
    start_serve,
    stop,
)
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from toolplug.testing import wait_until

PLUGINS = "counter,spawner,bash" if HAS_BASH else "counter,spawner"
ACCEPT = {"Accept": "application/json, text/event-stream"}


class Server:
    """``toolplug mcp serve --transport http`` with its stderr kept in a file."""

    def __init__(self, tmp_path: Path, *extra: str) -> None:
        self.tmp_path = tmp_path
        self.stderr = tmp_path / "server-stderr.txt"
        args = ["--plugins", PLUGINS, "--workspace", str(tmp_path), *extra]
        self.proc, self.url = start_serve(args, serve_env(tmp_path), self.stderr)
        self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])

    def closes(self) -> list[str]:
        """The counters closed, after the one read for its schema at start-up."""
        closed = self.tmp_path / "closed.txt"
        return closed.read_text().splitlines()[1:] if closed.exists() else []


@pytest.fixture
def pids() -> Iterator[list[int]]:
    """Processes the served tools started for a test; killed (by id) if left running."""
    found: list[int] = []
    yield found
    for pid in found:
        if is_alive(pid):
            os.kill(pid, signal.SIGKILL)


def bash_pid(text: str) -> int:
    found = re.search(r"pid=(\d+)", text)
    assert found, text
    return int(found.group(1))


NOHUP = "nohup sleep 1000 >/dev/null 2>&1 & echo pid=$!"


async def test_a_connected_session_keeps_its_tools_past_the_idle_timeout(
    tmp_path: Path,
) -> None:
    """The reported bug: an idle but connected session was given fresh tools (its
    ``cd`` undone, with ``isError: false``) once another session started."""
    server = Server(tmp_path, "--idle-timeout", "1")
    (tmp_path / "sub").mkdir()
    try:
        # The SDK client holds a GET stream open: the session is connected throughout.
        async with (
            streamable_http_client(server.url) as (read, write),
            ClientSession(read, write) as first,
        ):
            await first.initialize()
            counted = await first.call_tool("counter", {"step": 5})
            assert (counted.structured_content or {})["value"] == 5
            if HAS_BASH:
                moved = await first.call_tool("bash", {"command": f"cd {tmp_path / 'sub'}"})
                assert not moved.is_error
            await asyncio.sleep(2.5)  # idle for longer than the idle timeout, still connected
            async with (
                streamable_http_client(server.url) as (read2, write2),
                ClientSession(read2, write2) as second,
            ):
                await second.initialize()
                theirs = await second.call_tool("counter", {"step": 1})
                assert (theirs.structured_content or {})["value"] == 1
            # The first session's tools are the ones it had.
            again = await first.call_tool("counter", {"step": 5})
            assert (again.structured_content or {})["value"] == 10
            if HAS_BASH:
                here = await first.call_tool("bash", {"command": "pwd"})
                assert not here.is_error
                assert here.content[0].text.startswith(f"{tmp_path / 'sub'}\n")  # type: ignore[union-attr]
            # Only the second session, which ended, had its tools closed.
            wait_until(lambda: server.closes() == ["closed at 1"], what="the second one's closed")
            assert (await first.call_tool("counter", {})).structured_content["value"] == 11  # type: ignore[index]
    finally:
        stop(server.proc)


def test_an_idle_session_is_ended_by_the_timer(tmp_path: Path, pids: list[int]) -> None:
    """No other session arrives: the timer alone ends it; 404 and no processes after."""
    # Two seconds: a slow machine's pause between two of the calls must not end it.
    server = Server(tmp_path, "--idle-timeout", "2")
    try:
        # Plain HTTP, no GET stream: between requests the session is idle.
        http = httpx2.Client(timeout=30, headers=ACCEPT)
        info = {"name": "raw", "version": "0"}
        init = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": info}
        opened = http.post(
            server.url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}
        )
        http.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        http.headers["mcp-protocol-version"] = PROTOCOL
        http.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})

        def call(tool: str, arguments: dict[str, Any]) -> httpx2.Response:
            params = {"name": tool, "arguments": arguments}
            body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
            return http.post(server.url, json=body)

        pids.append(rpc_answer(call("spawn", {}))["result"]["structuredContent"]["pid"])
        if HAS_BASH:
            pids.append(
                bash_pid(
                    rpc_answer(call("bash", {"command": NOHUP}))["result"]["content"][0]["text"]
                )
            )
        assert call("counter", {"step": 3}).status_code == 200
        assert all(is_alive(pid) for pid in pids)

        wait_until(
            lambda: not any(is_alive(pid) for pid in pids), what="the session's processes end"
        )
        wait_until(
            lambda: server.closes() == ["closed at 3"], what="the session's counter is closed"
        )
        assert call("counter", {}).status_code == 404
        assert server.closes() == ["closed at 3"]  # no tools for an ended session
    finally:
        stop(server.proc)
    assert "Traceback" not in server.stderr.read_text()


# -- a client killed mid-call ----------------------------------------------------------

HTTP_CLIENT = """
    import asyncio, sys
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with (
            streamable_http_client(sys.argv[1]) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            held = await session.call_tool("spawn", {})
            print(held.structured_content["pid"], flush=True)
            await session.call_tool("spawn", {"seconds": 2, "wait": True})

    asyncio.run(main())
"""

STDIO_CLIENT = """
    import asyncio, os, sys
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        server = StdioServerParameters(
            command=sys.argv[1], args=["mcp", "serve", "--plugins", "counter,spawner"],
            env=dict(os.environ),
        )
        with open(sys.argv[2], "w") as errlog:
            async with (
                stdio_client(server, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                counted = await session.call_tool("counter", {})
                held = await session.call_tool("spawn", {})
                print(counted.structured_content["pid"], held.structured_content["pid"], flush=True)
                await session.call_tool("spawn", {"seconds": 2, "wait": True})

    asyncio.run(main())
"""


def run_client(source: str, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    code = textwrap.dedent(source)
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, env=env
    )


def test_an_http_client_killed_mid_call(tmp_path: Path, pids: list[int]) -> None:
    server = Server(tmp_path, "--idle-timeout", "2")
    try:
        client = run_client(HTTP_CLIENT, server.url, env=serve_env(tmp_path))
        assert client.stdout is not None
        pids.append(int(client.stdout.readline()))
        # The waiting call's child runs beside the held one: the call is in flight.
        wait_until(lambda: len(children_of(server.proc.pid)) >= 2, what="the second call runs")
        client.kill()
        client.wait(10)
        # The call ends, its answer finds no one; the idle session is ended, tools closed.
        wait_until(lambda: not is_alive(pids[0]), what="the session's held child ends", timeout=60)
        wait_until(lambda: not children_of(server.proc.pid), what="no child of the server is left")
    finally:
        stop(server.proc)
    assert server.proc.returncode == -signal.SIGTERM
    assert "Traceback" not in server.stderr.read_text()


def test_a_stdio_client_killed_mid_call(tmp_path: Path, pids: list[int]) -> None:
    errors = tmp_path / "server-stderr.txt"
    client = run_client(STDIO_CLIENT, TOOLPLUG, str(errors), env=serve_env(tmp_path))
    server_pid = 0
    try:
        assert client.stdout is not None
        server_pid, held = (int(word) for word in client.stdout.readline().split())
        pids.extend([server_pid, held])
        wait_until(lambda: len(children_of(server_pid)) >= 2, what="the second call runs")
        client.kill()
        client.wait(10)
        # Its stdin gone and its answer unwritable, the server closes the tools and ends.
        wait_until(lambda: not is_alive(server_pid), what="the server has exited", timeout=60)
        wait_until(lambda: not is_alive(held), what="the held child ends")
    finally:
        if client.poll() is None:
            client.kill()
            client.wait(10)
    assert "closed at 1" in (tmp_path / "closed.txt").read_text()
    # No traceback; a logged line naming the broken pipe may remain (seen on 3.13).
    assert "Traceback" not in errors.read_text()
