"""The one background event loop that owns every MCP client of this process.

A fastmcp ``Client`` belongs to the event loop that opened it, so clients cannot be
shared between ``asyncio.run`` calls or between a host's loops. Every client lives
here instead, on one loop in a daemon thread; synchronous hosts and other event loops
hand coroutines to it and wait for the answer.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def client_loop() -> asyncio.AbstractEventLoop:
    """The shared loop, started on first use."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="toolplug-mcp", daemon=True)
            thread.start()
            _loop = loop
        return _loop


def run(coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
    """Run ``coro`` on the client loop from synchronous code and wait for its result.

    On timeout the coroutine is cancelled and ``TimeoutError`` is raised.
    """
    loop = client_loop()
    if _running_loop() is loop:
        coro.close()
        raise RuntimeError("run() was called from the MCP client loop itself; await instead")
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise TimeoutError(f"no answer within {timeout:g} seconds") from None


async def arun(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the client loop from any event loop (directly when already there).

    Cancelling the caller cancels the coroutine on the client loop too.
    """
    loop = client_loop()
    if _running_loop() is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
