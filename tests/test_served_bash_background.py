"""Background processes of bash under `toolplug mcp serve`, through the official MCP SDK
client: a process started in one call is read in the next call of the same session, and
ends with the session (its end, or SIGTERM of the server). Here, where both plugins are
installed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from toolplug.testing import wait_until

pytest.importorskip("toolplug_bash")
pytest.importorskip("toolplug_mcp")
mcp = pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

#: Background processes are off by default: the server turns them on.
BACKGROUND = ["--tool-param", "bash.max_background=8"]
TOOLPLUG = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"


def server(workspace: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=TOOLPLUG,
        args=["mcp", "serve", "--plugins", "bash", "--workspace", str(workspace), *BACKGROUND],
        env=dict(os.environ),
    )


def pids_of(tag: str) -> set[int]:
    """Live processes whose command line holds ``tag``."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        zombie = stat[stat.rfind(b")") + 2 :].split()[0] == b"Z"
        if tag.encode() in cmdline and not zombie:
            found.add(int(name))
    return found


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read()
    return int(stat[stat.rfind(b")") + 2 :].split()[1])


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if hasattr(block, "text"))


async def start_and_read(session: ClientSession, tag: str) -> int:
    """Start a background process; read it in a second call; its process_id."""
    await session.initialize()
    listed = {tool.name for tool in (await session.list_tools()).tools}
    assert {"bash", "bash_output", "bash_stop"} <= listed
    started = await session.call_tool(
        "bash",
        {"command": f"echo up; sleep 1; echo later; sleep 300.{tag}", "run_in_background": True},
    )
    assert not started.is_error, text(started)
    assert started.structured_content is not None
    number = started.structured_content["process_id"]
    assert "up" in text(started)
    read = await session.call_tool(
        "bash_output", {"process_id": number, "wait_for": "later", "timeout": 60}
    )
    assert not read.is_error, text(read)
    assert read.structured_content is not None
    assert read.structured_content["state"] == "running"
    assert read.structured_content["matched"] is True and "later" in text(read)
    wait_until(lambda: pids_of(f"300.{tag}"))
    return int(number)


async def test_a_background_process_lives_across_calls_and_ends_with_the_session(
    tmp_path: Path,
) -> None:
    tag = str(secrets.randbelow(10**6)).zfill(6)
    async with (
        stdio_client(server(tmp_path)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await start_and_read(session, tag)
    # The client closed the session (and with stdio, the server): the process is gone.
    wait_until(lambda: not pids_of(f"300.{tag}"), what="the background process to end")


async def test_sigterm_of_the_server_stops_its_background_processes(tmp_path: Path) -> None:
    tag = str(secrets.randbelow(10**6)).zfill(6)
    seen: dict[str, Any] = {}
    # The server goes away under the client, whose exit may then fail: what the test
    # checks is recorded in `seen` and asserted after.
    with contextlib.suppress(Exception):
        async with (
            stdio_client(server(tmp_path)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await start_and_read(session, tag)
            (sleeper,) = [
                pid
                for pid in pids_of(f"300.{tag}")
                if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep")
            ]
            # The sleep's parent is the command's shell, whose parent is the server.
            served = parent_of(parent_of(sleeper))
            seen["server"] = Path(f"/proc/{served}/cmdline").read_bytes().decode()
            os.kill(served, signal.SIGTERM)
            seen["killed"] = True
            wait_until(lambda: not pids_of(f"300.{tag}"), what="the background process to end")
    assert seen.get("killed") and "mcp" in seen["server"], seen
    assert not pids_of(f"300.{tag}")


def announced(stderr: Path) -> str | None:
    """The URL a server prints once it listens."""
    for line in stderr.read_text().splitlines():
        if line.startswith("toolplug MCP server on "):
            return line.split(" on ", 1)[1].strip()
    return None


async def test_the_end_of_an_http_session_stops_its_background_processes(
    tmp_path: Path,
) -> None:
    tag = str(secrets.randbelow(10**6)).zfill(6)
    workspace = tmp_path / "work"
    workspace.mkdir()
    stderr = tmp_path / "serve.txt"
    command = [TOOLPLUG, "mcp", "serve", "--transport", "http", "--port", "0"]
    command += ["--plugins", "bash", "--workspace", str(workspace), *BACKGROUND]
    with stderr.open("w") as errors:
        served = subprocess.Popen(command, stderr=errors, start_new_session=True)
    try:
        url = wait_until(lambda: served.poll() is None and announced(stderr), timeout=60)
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await start_and_read(session, tag)
        # The client ended its session (the server goes on): the process is gone.
        wait_until(lambda: not pids_of(f"300.{tag}"), what="the background process to end")
        assert served.poll() is None
    finally:
        served.terminate()
        served.wait(timeout=30)


class Logs:
    """The ``notifications/message`` a client gets (its ``logging_callback``)."""

    def __init__(self) -> None:
        self.received: list[Any] = []
        self.arrived = asyncio.Event()

    async def __call__(self, params: Any) -> None:
        self.received.append(params)
        self.arrived.set()

    def ends(self) -> list[Any]:
        return [p for p in self.received if "background process" in str(p.data)]


async def start_and_hear_the_end(session: ClientSession, logs: Logs) -> None:
    """Start ``exit 0`` and ``sleep 1; exit 3`` with the client's level at warning: make
    no further call, and hear of the second end only (the first is below the level)."""
    await session.initialize()
    with warnings.catch_warnings():  # deprecated by a later revision (SEP-2577)
        warnings.filterwarnings("ignore", "The logging capability is deprecated")
        await session.set_logging_level("warning")
    for command in ("exit 0", "sleep 1; exit 3"):
        started = await session.call_tool("bash", {"command": command, "run_in_background": True})
        assert not started.is_error, text(started)
    # A generous bound: this proves "arrives, unasked", not how fast.
    while not logs.ends():
        logs.arrived.clear()
        await asyncio.wait_for(logs.arrived.wait(), timeout=60)
    (params,) = logs.ends()
    assert params.level == "warning" and params.logger == "bash"
    assert "background process 2 (`sleep 1; exit 3`) exited with status 3" in params.data["msg"]
    extra = params.data["extra"]
    assert extra["process_id"] == 2 and extra["exit_code"] == 3 and extra["state"] == "exited"


async def test_a_background_end_reaches_the_stdio_client_unasked(tmp_path: Path) -> None:
    logs = Logs()
    async with (
        stdio_client(server(tmp_path)) as (read, write),
        ClientSession(read, write, logging_callback=logs) as session,
    ):
        await start_and_hear_the_end(session, logs)


async def test_a_background_end_reaches_the_http_client_on_its_get_stream(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    stderr = tmp_path / "serve.txt"
    command = [TOOLPLUG, "mcp", "serve", "--transport", "http", "--port", "0"]
    command += ["--plugins", "bash", "--workspace", str(workspace), *BACKGROUND]
    with stderr.open("w") as errors:
        served = subprocess.Popen(command, stderr=errors, start_new_session=True)
    logs = Logs()
    try:
        url = wait_until(lambda: served.poll() is None and announced(stderr), timeout=60)
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write, logging_callback=logs) as session,
        ):
            await start_and_hear_the_end(session, logs)
    finally:
        served.terminate()
        served.wait(timeout=30)
