"""Shared fixtures: the demo server's configuration, `toolplug mcp serve`, free ports, and
process checks."""

from __future__ import annotations

import asyncio
import importlib.util
import json
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

HERE = Path(__file__).parent
DEMO_SERVER = HERE / "servers" / "demo_server.py"
LIBRARY_SERVER = HERE / "servers" / "library_server.py"
COUNTER_PLUGIN = HERE / "counter_plugin"
HAS_BASH = importlib.util.find_spec("toolplug_bash") is not None
TOOLPLUG = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"

#: The protocol revision the raw HTTP tests of ``serve`` speak, and their first request.
PROTOCOL = "2025-11-25"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def demo_stdio(**extra: object) -> dict[str, object]:
    """The mcpServers entry that runs the demo server over stdio."""
    return {"command": sys.executable, "args": [str(DEMO_SERVER)], **extra}


def library_stdio(**extra: object) -> dict[str, object]:
    """The mcpServers entry that runs the library server (it has resources) over stdio."""
    return {"command": sys.executable, "args": [str(LIBRARY_SERVER)], **extra}


def serve_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a served toolplug: the test plugins importable, its own TMPDIR.

    The counter records its closes in ``closed.txt``; the server's temp files go to
    ``tmp/`` (so a test can check that closing removed them).
    """
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(COUNTER_PLUGIN), os.environ.get("PYTHONPATH", "")]),
        "COUNTER_CLOSED_FILE": str(tmp_path / "closed.txt"),
        "TMPDIR": str(tmp_path / "tmp"),
    }


def start_http(
    tmp_path: Path, *extra: str, plugins: str | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``toolplug mcp serve --transport http`` on a free port; its process and URL."""
    port = free_port()
    plugins = plugins or ("counter,bash" if HAS_BASH else "counter")
    args = [TOOLPLUG, "mcp", "serve", "--transport", "http", "--port", str(port)]
    proc = subprocess.Popen([*args, "--plugins", plugins, *extra], env=serve_env(tmp_path))
    wait_for_port(port, proc)
    return proc, f"http://127.0.0.1:{port}/mcp"


def rpc_answer(response: Any) -> Any:
    """The JSON-RPC message of an HTTP answer to a POST: its JSON body, or the last
    message of its SSE stream (the server answers requests with a stream, on which a
    call's notifications travel before its result)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads([d for d in data if d][-1])
    return response.json()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], limit: float = 30.0) -> None:
    """Wait (bounded) until something listens on the port, or the process has died."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {limit} s")


def is_alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie (from the process table)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def children_of(pid: int) -> set[int]:
    """Every live descendant of a process."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True)
    parents: dict[int, int] = {}
    for line in out.stdout.splitlines():
        child, parent = (int(x) for x in line.split())
        parents[child] = parent
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - found
        found |= frontier
    return {p for p in found if is_alive(p)}


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate a process we started, then kill it if it lingers (bounded)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def demo_config() -> dict[str, object]:
    return {"mcpServers": {"demo": demo_stdio()}}


@pytest.fixture
def http_demo() -> Iterator[str]:
    """The demo server over streamable HTTP on 127.0.0.1; yields its URL."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(DEMO_SERVER), "http", str(port)])
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(proc)
    assert not is_alive(proc.pid)


@pytest.fixture(autouse=True)
def no_orphans() -> Iterator[None]:
    """Every test leaves no child process of the test process behind."""
    before = children_of(os.getpid())
    yield
    deadline = time.monotonic() + 10
    left = children_of(os.getpid()) - before
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = children_of(os.getpid()) - before
    assert not left, f"processes left running: {sorted(left)}"


def wait_until(check: Any, what: str, limit: float = 30.0) -> None:
    """Wait (bounded) until ``check()`` is true; expiry fails the test."""
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: still not so after {limit} s")
        time.sleep(0.05)


async def until(check: Any, what: str, limit: float = 30.0) -> None:
    """:func:`wait_until` for async tests: the event loop runs while waiting."""
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: still not so after {limit} s")
        await asyncio.sleep(0.05)
