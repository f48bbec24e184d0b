"""Shared fixtures: the demo server's configuration, `toolplug mcp serve`, free ports, and
process checks."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolplug.testing import wait_until

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


def start_serve(
    args: list[str],
    env: dict[str, str],
    stderr: Path,
    *,
    cwd: Path | None = None,
    limit: float = 60,
    port: int = 0,
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``toolplug mcp serve --transport http ... --port 0``; its process and URL.

    ``port`` is for a server started again on the port an earlier one was given.

    The server binds a port the system gives and prints its URL once it listens: the
    URL is read from its stderr (written to ``stderr``), never guessed from a port
    picked here and released (another process could take it in between). The server
    leads a process group of its own; if it does not come up, it is stopped (and its
    group killed) before the error is raised: nothing started here outlives a failure.
    """
    command = [TOOLPLUG, "mcp", "serve", "--transport", "http", *args, "--port", str(port)]
    with stderr.open("w") as errors:
        proc = subprocess.Popen(command, env=env, cwd=cwd, stderr=errors, start_new_session=True)
    try:
        url = wait_until(
            lambda: proc.poll() is None and announced(stderr),
            timeout=limit,
            what=f"the server's URL on its stderr ({stderr})",
        )
    except BaseException:
        stop(proc)
        with contextlib.suppress(ProcessLookupError):  # and what it started, if anything
            os.killpg(proc.pid, signal.SIGKILL)
        raise
    return proc, url


def announced(stderr: Path) -> str | None:
    """The URL of a server's ``toolplug MCP server on URL`` line, once it is written."""
    for line in stderr.read_text().splitlines():
        if line.startswith("toolplug MCP server on "):
            return line.split(" on ", 1)[1].strip()
    return None


def start_http(
    tmp_path: Path, *extra: str, plugins: str | None = None, limit: float = 60
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``toolplug mcp serve --transport http`` on a port it binds; its process and URL.

    Its stderr goes to a file beside the test's folder (not in it: the folder is the
    served workspace).
    """
    plugins = plugins or ("counter,bash" if HAS_BASH else "counter")
    fd, name = tempfile.mkstemp(
        prefix=f"{tmp_path.name}-serve-", suffix=".txt", dir=tmp_path.parent
    )
    os.close(fd)
    return start_serve(["--plugins", plugins, *extra], serve_env(tmp_path), Path(name), limit=limit)


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

    def listening() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            return False

    wait_until(listening, timeout=limit, what=f"something to listen on port {port}")


def is_alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie (from the process table)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def parents() -> dict[int, int]:
    """Every process's parent, read from ``/proc`` (what ``ps -e -o pid=,ppid=`` prints,
    without starting ``ps``: the check after every test would start hundreds)."""
    found: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:  # it ended meanwhile
            continue
        # "PID (COMMAND) STATE PPID ...": the command may hold spaces and parentheses.
        found[int(name)] = int(stat.rsplit(b")", 1)[1].split()[1])
    return found


def children_of(pid: int) -> set[int]:
    """Every live descendant of a process."""
    parents_ = parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, p in parents_.items() if p in frontier} - found
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
    wait_until(
        lambda: not children_of(os.getpid()) - before,
        timeout=10,
        interval=0.1,
        what="every process the test started to end",
    )


async def until(check: Any, what: str, limit: float = 30.0) -> None:
    """:func:`~toolplug.testing.wait_until` for async tests: the event loop runs while
    it waits (in a thread)."""
    await asyncio.to_thread(wait_until, check, timeout=limit, what=what)


def usage_error(args: list[str]) -> tuple[int, str]:
    """Run ``toolplug ARGS`` in this process with click's runner, on the real ``toolplug``
    command group; its exit status and stderr.

    For the cases of a usage-error group beyond the one each group runs as a real
    process (that one proves the process exits 2 with no traceback): an interpreter
    start each is most of what those cases cost. An exception other than click's exit
    is raised, as a traceback would have been printed.
    """
    from click.testing import CliRunner
    from toolplug.cli import cli

    result = CliRunner().invoke(cli, args)
    if not isinstance(result.exception, SystemExit | None):
        raise result.exception
    return result.exit_code, result.stderr
