"""The one background event loop that runs coroutines for synchronous callers.

Async executors called from sync code run here, and plugins whose clients belong to
one event loop (an MCP client belongs to the loop that opened it) keep them here too,
so a sync call never hops between loops. The loop lives in a daemon thread, started on
first use.

asyncio is imported where it is used, not with this module: a synchronous call of a
synchronous tool (``toolplug call`` in a fresh process) never needs it, and importing
it costs a cold start about a tenth of its time.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import sys
import threading
from collections.abc import Awaitable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None

#: The event loop of an async caller whose ``tool_call`` hook runs in this (worker)
#: thread; set by the runner around the hook call, ``None`` on the sync path.
calling_loop: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "toolplug_calling_loop", default=None
)


def background_loop() -> asyncio.AbstractEventLoop:
    """The shared loop, started on first use in a daemon thread."""
    import asyncio

    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="toolplug-loop", daemon=True)
            thread.start()
            _loop = loop
        return _loop


def _running_loop() -> asyncio.AbstractEventLoop | None:
    if "asyncio" not in sys.modules:  # no event loop runs before asyncio is imported
        return None
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def run_sync(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run a coroutine on the background loop and wait for its result.

    On timeout the coroutine is cancelled and ``TimeoutError`` is raised. Calling this
    from the background loop itself would wait forever, so it raises ``RuntimeError``.
    """
    import asyncio

    loop = background_loop()
    if _running_loop() is loop:
        coro.close()
        raise RuntimeError("run_sync() was called on the background loop itself; await instead")
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        if future.done():  # the coroutine's own TimeoutError: it is the coroutine's to report
            raise
        future.cancel()
        raise TimeoutError(f"no answer within {timeout:g} seconds") from None


async def arun(coro: Coroutine[Any, Any, T]) -> T:
    """Await a coroutine on the background loop from any event loop.

    Awaited directly when the caller already runs there; cancelling the caller cancels
    the coroutine too.
    """
    import asyncio

    loop = background_loop()
    if _running_loop() is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


def run_awaitable(awaitable: Awaitable[T], timeout: float | None = None) -> T:
    """Wait, from synchronous code, for an awaitable that belongs to an event loop.

    Meant for ``tool_call`` hook implementations, which pluggy calls synchronously: an
    async approver, a question to an MCP client. Inside a hook called through
    `ToolDefinition.acall` (a worker thread), the awaitable runs on the caller's event
    loop, where the caller's clients live; anywhere else, on toolplug's background loop
    (as `run_sync` does). On timeout it is cancelled and ``TimeoutError`` raised.
    """
    import asyncio

    coro = _as_coroutine(awaitable)
    loop = calling_loop.get()
    if loop is None or loop.is_closed() or _running_loop() is loop:
        return run_sync(coro, timeout)
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        if future.done():
            raise
        future.cancel()
        raise TimeoutError(f"no answer within {timeout:g} seconds") from None


def _as_coroutine(awaitable: Awaitable[T]) -> Coroutine[Any, Any, T]:
    import asyncio

    if asyncio.iscoroutine(awaitable):
        return awaitable

    async def wait() -> T:
        return await awaitable

    return wait()
