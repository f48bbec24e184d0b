"""A file name that is not UTF-8, listed by glob or file_editor and sent over `toolplug mcp
serve`: the client gets valid UTF-8 with the name escaped. Here, where every plugin is
installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolplug.testing import wait_until


def _bad_name_tree(root: Path) -> None:
    """A tree with a file and a directory whose names are Latin-1 bytes, not UTF-8."""
    base = os.fsencode(root)
    os.mkdir(base + b"/d\xe9j\xe0")
    for name in (b"/caf\xe9.py", b"/d\xe9j\xe0/inner.py", b"/plain.py"):
        with open(base + name, "wb"):
            pass


def _serve_http(args: list[str], stderr: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``toolplug mcp serve --transport http --port 0 ...``: its process, and the URL it
    prints once it listens (no port is picked here and released). A server that does
    not come up is stopped before the error is raised."""
    toolplug = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"
    command = [toolplug, "mcp", "serve", "--transport", "http", "--port", "0", *args]
    with stderr.open("w") as errors:
        proc = subprocess.Popen(command, stderr=errors)

    def announced() -> str | None:
        assert proc.poll() is None, f"the server exited: {stderr.read_text()}"
        for line in stderr.read_text().splitlines():
            if line.startswith("toolplug MCP server on "):
                return line.split(" on ", 1)[1].strip()
        return None

    try:
        return proc, wait_until(announced, timeout=60, what="the server's URL")
    except BaseException:
        proc.kill()
        proc.wait(30)
        raise


@pytest.fixture
def served_glob(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``toolplug mcp serve`` over HTTP on 127.0.0.1, with the glob tool only."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    args = ["--plugins", "glob", "--workspace", str(workspace)]
    proc, url = _serve_http(args, tmp_path / "stderr.txt")
    try:
        yield url, workspace
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

    from mcp import ClientSession
    from mcp.client import streamable_http

    workspace = tmp_path / "ws"
    workspace.mkdir()
    with open(os.path.join(os.fsencode(workspace), b"r\xe9sum\xe9.txt"), "w") as handle:
        handle.write("cv\n")
    serve = ["--plugins", "file_editor", "--workspace", str(workspace)]
    server, url = _serve_http(serve, tmp_path / "stderr.txt")

    async def view() -> Any:
        # The SDK renamed the transport (and its yield shape) in 2.0; take either.
        connect = getattr(streamable_http, "streamable_http_client", None)
        connect = connect or streamable_http.streamablehttp_client
        async with connect(url) as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            return await session.call_tool("file_editor", {"command": "view", "path": "."})

    try:
        result = asyncio.run(view())
    finally:
        server.terminate()
        server.wait(60)
    is_error = getattr(result, "is_error", getattr(result, "isError", None))
    assert is_error is False, result.content
    assert "r\\xe9sum\\xe9.txt" in result.content[0].text
