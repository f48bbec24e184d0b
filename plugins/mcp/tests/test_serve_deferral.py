"""``toolplug mcp serve --defer``: deferred tools reached through ``search_tools``.

Through the official MCP SDK client against a real ``toolplug mcp serve`` process:
``tools/list`` shows the tools not deferred and ``search_tools``; a session's search
sends it ``notifications/tools/list_changed`` and its next ``tools/list`` has the tools
found, while another session's list stays short.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import TOOLPLUG, serve_env, start_http, stop, usage_error

PLUGINS = "think,finish,glob,grep,counter"
LIST_CHANGED = "notifications/tools/list_changed"


class Session:
    """An official-SDK client session that records the notifications it gets."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.notified: list[str] = []

    async def handle(self, message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if isinstance(method, str):
            self.notified.append(method)


async def _names(session: Any) -> list[str]:
    return [t.name for t in (await session.list_tools()).tools]


async def test_search_reveals_tools_to_its_session_only(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    args = ["--defer", "g*", "--defer", "counter", "--workspace", str(tmp_path)]
    proc, url = start_http(tmp_path, *args, plugins=PLUGINS)
    try:
        one, other = Session(url), Session(url)
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write, message_handler=one.handle) as session,
            streamable_http_client(url) as (read2, write2),
            ClientSession(read2, write2, message_handler=other.handle) as session2,
        ):
            init = await session.initialize()
            await session2.initialize()
            assert init.capabilities.tools is not None
            assert init.capabilities.tools.list_changed is True
            assert sorted(await _names(session)) == ["finish", "search_tools", "think"]

            found = await session.call_tool(
                "search_tools", {"query": "find files whose names match a pattern", "limit": 1}
            )
            assert not found.is_error
            assert found.structured_content["tools"] == ["glob"]
            assert LIST_CHANGED in one.notified
            assert sorted(await _names(session)) == ["finish", "glob", "search_tools", "think"]

            # The revealed tool runs; the other session still sees the short list.
            (tmp_path / "a.txt").write_text("x")
            listed = await session.call_tool("glob", {"pattern": "*.txt"})
            assert not listed.is_error, listed.content
            assert "a.txt" in listed.content[0].text
            assert sorted(await _names(session2)) == ["finish", "search_tools", "think"]
            assert LIST_CHANGED not in other.notified

            # A search that reveals nothing new sends no notification; a bad one is an
            # error result, and the session lives on.
            one.notified.clear()
            await session.call_tool("search_tools", {"query": "glob pattern", "limit": 1})
            bad = await session.call_tool("search_tools", {"query": "x" * 100_000, "limit": 0})
            assert bad.is_error and "limit" in bad.content[0].text
            assert LIST_CHANGED not in one.notified
            assert "glob" in await _names(session)
    finally:
        stop(proc)


async def test_over_stdio_the_one_client_sees_its_tools_revealed(tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = StdioServerParameters(
        command=TOOLPLUG,
        args=["mcp", "serve", "--plugins", PLUGINS, "--defer", "grep", "--defer", "glob"],
        env=serve_env(tmp_path),
    )
    client = Session("stdio")
    async with (
        stdio_client(server) as (read, write),
        ClientSession(read, write, message_handler=client.handle) as session,
    ):
        await session.initialize()
        assert "grep" not in await _names(session)
        found = await session.call_tool(
            "search_tools", {"query": "search file contents for a regular expression"}
        )
        assert "grep" in found.structured_content["tools"]
        assert LIST_CHANGED in client.notified
        assert "grep" in await _names(session)


async def test_defer_above_counts_the_served_tools(tmp_path: Path) -> None:
    from fastmcp import Client

    proc, url = start_http(tmp_path, "--defer-above", "100", plugins=PLUGINS)
    try:
        async with Client(url, timeout=20, init_timeout=20) as client:
            names = sorted(t.name for t in await client.list_tools())
            assert names == ["counter", "finish", "glob", "grep", "think"]  # none deferred
    finally:
        stop(proc)
    proc, url = start_http(tmp_path, "--defer-above", "2", plugins=PLUGINS)
    try:
        async with Client(url, timeout=20, init_timeout=20) as client:
            assert [t.name for t in await client.list_tools()] == ["search_tools"]
    finally:
        stop(proc)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--defer", "g[*"], "never closed"),
        (["--defer-above", "-1"], "-1"),
    ],
)
def test_bad_defer_options_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    command = ["mcp", "serve", "--plugins", "think", *args]
    if args[0] != "--defer":  # one case as a real process; the other in this one
        code, stderr = usage_error(command)
    else:
        done = subprocess.run(
            [TOOLPLUG, *command],
            env=serve_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        code, stderr = done.returncode, done.stderr
    assert code == 2
    assert message in stderr
