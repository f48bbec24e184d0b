"""The one background event loop that runs coroutines for synchronous callers.

Async executors called from sync code run here, and plugins whose clients belong to
one event loop (an MCP client belongs to the loop that opened it) keep them here too,
so a sync call never hops between loops. The loop lives in a daemon thread, started on
first use.

This is the public face of the core's engine (`toolplug._engine`, which owns every
crossing between threads and event loops) for plugins.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from toolplug import _engine
from toolplug._engine import background_loop

if TYPE_CHECKING:
    import asyncio

__all__ = ["arun", "background_loop", "calling_loop", "run_awaitable", "run_sync"]

T = TypeVar("T")

#: The event loop of an async caller whose ``tool_call`` hook runs in this (worker)
#: thread; set by the runner around the hook call, ``None`` on the sync path.
calling_loop: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "toolplug_calling_loop", default=None
)


def _on(
    awaitable: Awaitable[T], loop: asyncio.AbstractEventLoop | None, timeout: float | None
) -> T:
    """Wait for ``awaitable`` on ``loop``; ``TimeoutError`` when ``timeout`` passes."""
    try:
        return _engine.run(
            awaitable,
            timeout,
            loop,
            refusal="run_sync() was called on the background loop itself; await instead",
        )
    except _engine.Expired:
        raise TimeoutError(f"no answer within {timeout:g} seconds") from None


def run_sync(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run a coroutine on the background loop and wait for its result.

    On timeout the coroutine is cancelled and ``TimeoutError`` is raised. Calling this
    from the background loop itself would wait forever, so it raises ``RuntimeError``.
    """
    return _on(coro, None, timeout)


async def arun(coro: Coroutine[Any, Any, T]) -> T:
    """Await a coroutine on the background loop from any event loop.

    Awaited directly when the caller already runs there; cancelling the caller cancels
    the coroutine too.
    """
    return await _engine.await_on(coro, background_loop())


def run_awaitable(awaitable: Awaitable[T], timeout: float | None = None) -> T:
    """Wait, from synchronous code, for an awaitable that belongs to an event loop.

    Meant for ``tool_call`` hook implementations, which pluggy calls synchronously: an
    async approver, a question to an MCP client. Inside a hook called through
    `ToolDefinition.acall` (a worker thread), the awaitable runs on the caller's event
    loop, where the caller's clients live; anywhere else, on toolplug's background loop
    (as `run_sync` does). On timeout it is cancelled and ``TimeoutError`` raised.
    """
    loop = _engine.open_loop(calling_loop.get())
    if loop is not None and _engine.running_loop() is loop:
        loop = None  # called on the caller's loop itself: as run_sync does
    return _on(awaitable, loop, timeout)
