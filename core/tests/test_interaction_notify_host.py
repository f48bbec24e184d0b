"""notify_host: a tool tells its host something outside any call (from any thread)."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from toolplug import ToolContext
from toolplug.interaction import Handlers, LogMessage, Progress, notify_host
from toolplug.testing import wait_until

EVENT = LogMessage("bash", None, "info", "background process 1 ended", {"process_id": 1})


def from_a_thread(target: Any, event: Any = EVENT) -> None:
    """Call notify_host from a thread of its own (no loop, no call), as bash's reader does."""
    thread = threading.Thread(target=notify_host, args=(target, event))
    thread.start()
    thread.join(30)
    assert not thread.is_alive()


def test_a_sync_handler_runs_in_the_calling_thread(tmp_path: Path) -> None:
    seen: list[tuple[Any, str]] = []
    handlers = Handlers(on_log=lambda e: seen.append((e, threading.current_thread().name)))
    context = ToolContext(workspace=tmp_path, handlers=handlers)
    thread = threading.Thread(target=notify_host, args=(context, EVENT), name="the-reader")
    thread.start()
    thread.join(30)
    assert seen == [(EVENT, "the-reader")]


def test_an_async_handler_runs_on_the_background_loop() -> None:
    seen: list[tuple[Any, str]] = []

    async def on_log(event: LogMessage) -> None:
        await asyncio.sleep(0)
        seen.append((event, threading.current_thread().name))

    from_a_thread(Handlers(on_log=on_log))
    wait_until(lambda: seen, what="the async handler to run")
    assert seen == [(EVENT, "toolplug-loop")]


def test_an_async_handler_from_a_running_loop_is_not_awaited_there() -> None:
    seen: list[LogMessage] = []

    async def on_log(event: LogMessage) -> None:
        seen.append(event)

    async def main() -> None:
        notify_host(Handlers(on_log=on_log), EVENT)  # returns at once, never raises

    asyncio.run(main())
    wait_until(lambda: seen, what="the async handler to run")
    assert seen == [EVENT]


def test_progress_goes_to_on_progress() -> None:
    seen: list[Progress] = []
    progress = Progress("bash", None, 1, None, "half")
    from_a_thread(Handlers(on_progress=seen.append, on_log=lambda e: None), progress)
    assert seen == [progress]


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_handler_that_raises_never_raises_into_the_tool(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    called = threading.Event()

    def broken(event: LogMessage) -> None:
        called.set()
        raise RuntimeError("the host broke")

    async def abroken(event: LogMessage) -> None:
        called.set()
        raise RuntimeError("the host broke")

    handler = broken if kind == "sync" else abroken
    with caplog.at_level(logging.DEBUG, logger="toolplug"):
        notify_host(Handlers(on_log=handler), EVENT)  # must not raise
        assert called.wait(30)
        wait_until(
            lambda: any("raised; ignored" in r.getMessage() for r in caplog.records),
            what="the failure to be logged",
        )


def test_no_handler_goes_to_the_tools_logger(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    warning = LogMessage("bash", None, "warning", "process 2 exited with status 3")
    with caplog.at_level(logging.INFO, logger="toolplug.tools"):
        notify_host(ToolContext(workspace=tmp_path), warning)
        notify_host(None, EVENT)
    records = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert ("toolplug.tools", logging.WARNING, "bash: process 2 exited with status 3") in records
    assert any(
        level == logging.INFO and "background process 1 ended" in message
        for _, level, message in records
    )
