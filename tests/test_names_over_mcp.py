"""A file name that is not UTF-8, listed by glob and sent over `toolplug mcp serve`:
the client gets valid UTF-8 with the name escaped. Here, where every plugin is installed."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

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
