"""Task-augmented tools, against real servers: a fastmcp server with the tasks
extension (tools run as tasks, polled, cancelled on the server on timeout), and a
2025-11-25 server whose ``required`` task tools run as that revision's tasks when it
serves them, and are left out when it does not."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import toolplug_mcp
from conftest import HERE
from toolplug import Tool, ToolContext, Toolset
from toolplug.testing import registry_from, wait_until
from toolplug_mcp.client.tasks import offered

TASK_SERVER = HERE / "servers" / "task_server.py"
LEGACY_SERVER = HERE / "servers" / "legacy_task_server.py"


def load(entry: dict[str, Any], tmp_path: Path) -> Toolset:
    return Toolset.load(
        [Tool("mcp", {"config": {"mcpServers": {"tasks": entry}}})],
        registry=registry_from(toolplug_mcp),
        context=ToolContext(workspace=tmp_path),
    )


def task_server(events: Path, **extra: object) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(TASK_SERVER)],
        "env": {"TASK_EVENTS": str(events)},
        **extra,
    }


def wait_for_event(events: Path, line: str) -> list[str]:
    """The server's events once ``line`` is among them (bounded wait)."""

    def written() -> list[str] | None:
        seen = events.read_text().splitlines() if events.exists() else []
        return seen if line in seen else None

    return wait_until(written, what=f"the server to write {line!r} to {events}")


def test_task_tools_run_as_tasks_to_their_result(tmp_path: Path) -> None:
    events = tmp_path / "events"
    with load(task_server(events), tmp_path) as tools:
        assert set(tools) == {"slow", "double", "plain", "broken", "ask"}
        done = tools.call("slow", {"seconds": 0.2})
        assert (done.is_error, done.text) == (False, "waited 0.2 s")
        assert tools.call("double", {"x": 21}).text == "42"
        assert tools.call("plain", {"x": 1}).text == "2"
        failed = tools.call("broken", {})
        assert failed.is_error and "the disk is full" in failed.text
    assert events.read_text().splitlines() == ["started 0.2", "finished 0.2"]


def test_a_task_that_asks_for_input_is_cancelled_with_a_plain_error(tmp_path: Path) -> None:
    events = tmp_path / "events"
    with load(task_server(events), tmp_path) as tools:
        asked = tools.call("ask", {})
    assert asked.is_error
    assert asked.text == (
        "Tool 'ask' ran as a task that asked for input, which this host cannot answer; "
        "the task was cancelled."
    )
    assert events.read_text().splitlines() == ["asking"]


def test_a_task_past_the_timeout_is_cancelled_on_the_server(tmp_path: Path) -> None:
    events = tmp_path / "events"
    with load(task_server(events, timeout=1500), tmp_path) as tools:
        late = tools.call("slow", {"seconds": 60})
        assert late.is_error
        assert "did not answer tool 'slow' within 1.5 seconds" in late.text
        assert "ran as a task, and the task" in late.text
        assert "was cancelled on the server" in late.text
        assert wait_for_event(events, "cancelled 60") == ["started 60", "cancelled 60"]
        # The connection is still good for the next call.
        assert tools.call("slow", {"seconds": 0.1}).text == "waited 0.1 s"


def test_a_caller_that_gives_up_cancels_the_task_on_the_server(tmp_path: Path) -> None:
    events = tmp_path / "events"
    with load(task_server(events), tmp_path) as tools:
        give_up(tools, "slow", events, "started 60")
        assert wait_for_event(events, "cancelled 60") == ["started 60", "cancelled 60"]


def test_a_caller_that_gives_up_before_the_task_id_arrives_cancels_the_task(
    tmp_path: Path,
) -> None:
    # The server holds back its answer (the created task) until `release` exists,
    # while the task already runs: the caller gives up before the client knows the
    # task's id, and the task must still be cancelled on the server.
    events, release = tmp_path / "events", tmp_path / "release"
    with load(held_task_server(events, release), tmp_path) as tools:
        give_up(tools, "slow", events, "started 60", release)
        assert wait_for_event(events, "cancelled 60") == ["started 60", "cancelled 60"]
        # The connection is still good for the next call.
        assert tools.call("slow", {"seconds": 0.1}).text == "waited 0.1 s"


def give_up(tools: Any, tool: str, events: Path, seen: str, release: Path | None = None) -> None:
    """Call ``tool`` for 60 s and give up once the server wrote ``seen``. With ``release``
    (a server that holds back its created task until that file exists), the server
    answers only once the caller has given up: before the client knows the task's id."""

    async def run() -> None:
        call = asyncio.ensure_future(tools.acall(tool, {"seconds": 60}))
        while seen not in (events.read_text() if events.exists() else ""):
            await asyncio.sleep(0.05)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        if release is not None:
            await asyncio.sleep(0.5)  # the cancellation reaches the client's own loop
            release.touch()  # only now does the server answer with the task

    asyncio.run(asyncio.wait_for(run(), 60))


def held_task_server(events: Path, release: Path) -> dict[str, Any]:
    """The task server, holding back each created task until ``release`` exists."""
    entry = task_server(events)
    entry["env"]["TASK_HOLD"] = str(release)
    return entry


def test_the_core_timeout_before_the_task_id_arrives_cancels_the_task(tmp_path: Path) -> None:
    events, release = tmp_path / "events", tmp_path / "release"
    with load(held_task_server(events, release), tmp_path) as tools:
        abandoned = tools.call("slow", {"seconds": 60}, timeout=1)
        assert abandoned.is_error and "did not finish within 1 seconds" in abandoned.text
        release.touch()  # only now does the server answer with the task
        assert wait_for_event(events, "cancelled 60") == ["started 60", "cancelled 60"]


def test_a_server_gone_before_the_task_id_arrives_ends_the_call(tmp_path: Path) -> None:
    events, release = tmp_path / "events", tmp_path / "release"
    held = Path(f"{release}.held")
    with load(held_task_server(events, release), tmp_path) as tools:

        def kill_when_held() -> None:
            deadline = time.monotonic() + 30
            while not held.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(int(held.read_text()), signal.SIGKILL)

        killer = threading.Thread(target=kill_when_held)
        killer.start()
        gone = tools.call("slow", {"seconds": 60})
        killer.join()
        assert gone.is_error
        assert "stopped while running tool 'slow'" in gone.text
        release.touch()  # the next server answers at once
        assert tools.call("slow", {"seconds": 0.1}).text == "waited 0.1 s"


def test_the_core_timeout_cancels_the_task_on_the_server(tmp_path: Path) -> None:
    events = tmp_path / "events"
    with load(task_server(events), tmp_path) as tools:
        abandoned = tools.call("slow", {"seconds": 60}, timeout=1)
        assert abandoned.is_error and "did not finish within 1 seconds" in abandoned.text
        assert wait_for_event(events, "cancelled 60") == ["started 60", "cancelled 60"]


def test_required_task_tools_are_left_out_where_tasks_cannot_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolplug.mcp"):
        tools = load(legacy_server(tmp_path / "events"), tmp_path)
    with tools:
        assert sorted(tools) == ["echo", "summary"]  # never 'report'
        assert tools.call("summary", {}).text == "the summary"  # optional: a plain call
        connection = tools["summary"].executor.connection
        (note,) = connection.left_out
    assert "tool 'report' of MCP server 'tasks' runs only as a task" in note
    assert "left out" in note
    assert [r.getMessage() for r in caplog.records if r.name == "toolplug.mcp"] == [note]


def legacy_server(events: Path, *args: str, **extra: object) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(LEGACY_SERVER), *args],
        "env": {"TASK_EVENTS": str(events)},
        **extra,
    }


def test_a_2025_11_25_task_tool_runs_as_a_task(tmp_path: Path) -> None:
    events = tmp_path / "events"
    with load(legacy_server(events, "--tasks"), tmp_path) as tools:
        assert sorted(tools) == ["echo", "report", "summary"]
        report = tools.call("report", {"seconds": 0.2})
        assert (report.is_error, report.text) == (False, "the report, after 0.2 s")
        assert tools.call("summary", {}).text == "the summary"  # optional: a plain call
        assert tools["report"].executor.connection.left_out == []
    assert events.read_text().splitlines() == ["created t1", "result t1 completed"]


def test_a_2025_11_25_task_past_the_timeout_is_cancelled(tmp_path: Path) -> None:
    events = tmp_path / "events"
    with load(legacy_server(events, "--tasks", timeout=1000), tmp_path) as tools:
        late = tools.call("report", {"seconds": 60})
        assert late.is_error and "task t1 was cancelled on the server" in late.text
        assert wait_for_event(events, "cancelled t1") == ["created t1", "cancelled t1"]
        assert tools.call("report", {"seconds": 0}).text == "the report, after 0 s"


def test_where_tasks_run_every_tool_is_offered() -> None:
    def tool(name: str, support: str | None) -> Any:
        execution = SimpleNamespace(task_support=support) if support else None
        return SimpleNamespace(name=name, execution=execution)

    listed = [tool("a", "required"), tool("b", "optional"), tool("c", None)]
    assert offered("s", listed, tasks=True) == (listed, [])
    kept, notes = offered("s", listed, tasks=False)
    assert [t.name for t in kept] == ["b", "c"]
    assert len(notes) == 1 and "tool 'a' of MCP server 's'" in notes[0]


def test_a_2025_11_25_caller_that_gives_up_before_the_task_id_cancels_it(
    tmp_path: Path,
) -> None:
    events, release = tmp_path / "events", tmp_path / "release"
    entry = legacy_server(events, "--tasks")
    entry["env"]["TASK_HOLD"] = str(release)
    with load(entry, tmp_path) as tools:
        give_up(tools, "report", events, "created t1", release)
        assert wait_for_event(events, "cancelled t1") == ["created t1", "cancelled t1"]
