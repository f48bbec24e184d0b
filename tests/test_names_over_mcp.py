"""A file name that is not UTF-8, listed by glob or file_editor and sent over `toolplug mcp
serve`: the client gets valid UTF-8 with the name escaped. Here, where every plugin is
installed."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _bad_name_tree(root: Path) -> None:
    """A tree with a file and a directory whose names are Latin-1 bytes, not UTF-8."""
    base = os.fsencode(root)
    os.mkdir(base + b"/d\xe9j\xe0")
    for name in (b"/caf\xe9.py", b"/d\xe9j\xe0/inner.py", b"/plain.py"):
        with open(base + name, "wb"):
            pass


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served_glob(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``toolplug mcp serve`` over HTTP on 127.0.0.1, with the glob tool only."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    toolplug = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"
    port = _free_port()
    args = ["mcp", "serve", "--transport", "http", "--port", str(port), "--plugins", "glob"]
    proc = subprocess.Popen([toolplug, *args, "--workspace", str(workspace)])
    try:
        limit = time.monotonic() + 60
        while True:
            assert proc.poll() is None, "the server exited"
            assert time.monotonic() < limit, "the server did not listen within 60 s"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", workspace
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def test_a_non_utf8_name_over_mcp_http(served_glob: tuple[str, Path]) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    url, workspace = served_glob
    _bad_name_tree(workspace)
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("glob", {"pattern": "**/*.py"})
    assert not result.is_error, result.content
    assert result.structured_content is not None
    assert sorted(result.structured_content["files"]) == [
        "caf\\xe9.py",
        "d\\xe9j\\xe0/inner.py",
        "plain.py",
    ]


def test_directory_view_over_mcp_with_a_non_utf8_name(tmp_path: Path) -> None:
    """The whole way: `toolplug mcp serve` over HTTP on 127.0.0.1, the official MCP client."""
    import asyncio
    import socket

    from mcp import ClientSession
    from mcp.client import streamable_http

    workspace = tmp_path / "ws"
    workspace.mkdir()
    with open(os.path.join(os.fsencode(workspace), b"r\xe9sum\xe9.txt"), "w") as handle:
        handle.write("cv\n")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    toolplug = Path(sys.executable).parent / "toolplug"
    serve = ["mcp", "serve", "--transport", "http", "--port", str(port)]
    serve += ["--plugins", "file_editor", "--workspace", str(workspace)]
    server = subprocess.Popen([str(toolplug), *serve])

    async def view() -> Any:
        url = f"http://127.0.0.1:{port}/mcp"
        # The SDK renamed the transport (and its yield shape) in 2.0; take either.
        connect = getattr(streamable_http, "streamable_http_client", None)
        connect = connect or streamable_http.streamablehttp_client
        async with connect(url) as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            return await session.call_tool("file_editor", {"command": "view", "path": "."})

    try:
        end = time.monotonic() + 60
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None and time.monotonic() < end, "the server did not start"
            time.sleep(0.05)
        result = asyncio.run(view())
    finally:
        server.terminate()
        server.wait(60)
    is_error = getattr(result, "is_error", getattr(result, "isError", None))
    assert is_error is False, result.content
    assert "r\\xe9sum\\xe9.txt" in result.content[0].text
