"""The host hears of a background process's end at once, outside any call (issue #29):
an ``on_log`` message through a real ``Toolset``'s handlers, with the status as data."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolplug import Toolset
from toolplug.interaction import LogMessage
from toolplug.testing import wait_until

SPEC = {"name": "bash", "params": {"max_background": 4}}


class Heard:
    """The log messages a host's ``on_log`` got (from any thread)."""

    def __init__(self) -> None:
        self.events: list[LogMessage] = []
        self._lock = threading.Lock()

    def __call__(self, event: LogMessage) -> None:
        with self._lock:
            self.events.append(event)

    def ends(self) -> list[LogMessage]:
        with self._lock:
            return [e for e in self.events if "background process" in e.message]


@pytest.fixture
def heard() -> Heard:
    return Heard()


@pytest.fixture
def toolset(tmp_path: Path, heard: Heard) -> Iterator[Toolset]:
    with Toolset.load([SPEC], workspace=tmp_path, plugins="bash", on_log=heard) as tools:
        yield tools


def start(toolset: Toolset, command: str) -> int:
    started = toolset.call("bash", {"command": command, "run_in_background": True})
    assert not started.is_error, started.text
    number = started.process_id  # type: ignore[attr-defined]
    assert isinstance(number, int)
    return number


def test_a_process_that_ends_by_itself_is_reported_once_with_its_status(
    toolset: Toolset, heard: Heard
) -> None:
    number = start(toolset, "sleep 0.3; exit 3")
    # No further call: the host hears of it anyway.
    wait_until(heard.ends, timeout=60, what="the end notice")
    (event,) = heard.ends()
    assert event.tool == "bash" and event.call_id is None
    assert event.level == "warning"
    assert event.message.startswith(f"background process {number} (`sleep 0.3; exit 3`)")
    assert "exited with status 3 after" in event.message
    data: dict[str, Any] = event.data
    assert data["process_id"] == number and data["command"] == "sleep 0.3; exit 3"
    assert data["state"] == "exited" and data["exit_code"] == 3 and data["signal"] is None
    assert data["runtime"] > 0
    # The model is told too, the next time it looks; the host is not told again.
    looked = toolset.call("bash_output", {"process_id": number})
    assert "exit" in looked.text
    assert len(heard.ends()) == 1


def test_a_clean_exit_is_info_and_a_signal_a_warning(toolset: Toolset, heard: Heard) -> None:
    clean = start(toolset, "true")
    killed = start(toolset, "kill -KILL $$")
    wait_until(lambda: len(heard.ends()) == 2, timeout=60, what="two end notices")
    by_id = {e.data["process_id"]: e for e in heard.ends()}
    assert by_id[clean].level == "info" and by_id[clean].data["exit_code"] == 0
    assert "exited with status 0" in by_id[clean].message
    assert by_id[killed].level == "warning"
    assert by_id[killed].data["signal"] == "SIGKILL"
    assert "was killed by signal SIGKILL" in by_id[killed].message


def test_a_stopped_process_is_reported(toolset: Toolset, heard: Heard) -> None:
    number = start(toolset, "echo up; sleep 300")
    stopped = toolset.call("bash_stop", {"process_id": number})
    assert not stopped.is_error, stopped.text
    wait_until(heard.ends, timeout=60, what="the end notice")
    (event,) = heard.ends()
    assert event.level == "info"  # the model asked for it
    assert event.data["state"] == "stopped" and event.data["process_id"] == number
    assert "was stopped (SIGTERM)" in event.message


def test_closing_the_tools_reports_nothing(tmp_path: Path, heard: Heard) -> None:
    with Toolset.load([SPEC], workspace=tmp_path, plugins="bash", on_log=heard) as tools:
        start(tools, "sleep 300")
        start(tools, "sleep 301")
    # close() stopped both (synchronously): the host ended them itself, no notice.
    assert heard.ends() == []


def test_an_async_handler_hears_it_too(tmp_path: Path) -> None:
    seen: list[LogMessage] = []

    async def on_log(event: LogMessage) -> None:
        await asyncio.sleep(0)
        seen.append(event)

    with Toolset.load([SPEC], workspace=tmp_path, plugins="bash", on_log=on_log) as tools:
        start(tools, "exit 0")
        wait_until(lambda: seen, timeout=60, what="the end notice")
    assert [e.data["exit_code"] for e in seen] == [0]


def test_a_handler_that_raises_does_not_break_the_tool(tmp_path: Path) -> None:
    calls: list[LogMessage] = []

    def broken(event: LogMessage) -> None:
        calls.append(event)
        raise RuntimeError("the host broke")

    with Toolset.load([SPEC], workspace=tmp_path, plugins="bash", on_log=broken) as tools:
        number = start(tools, "echo done")
        wait_until(lambda: calls, timeout=60, what="the handler to be called")
        looked = tools.call("bash_output", {"process_id": number})
        assert not looked.is_error and "exited with code 0" in looked.text
        # The tool goes on working, and the handler hears of the next end too.
        start(tools, "exit 1")
        wait_until(lambda: len(calls) == 2, timeout=60, what="the second end notice")
