"""Crossing between threads and event loops: the one module that does it.

Everything in the core that hands work from a thread to an event loop, from a loop to a
thread, or from one loop to another goes through the calls here; no other core module
starts a thread, submits a coroutine to a loop or waits on a future (an import-linter
contract in the root ``pyproject.toml`` keeps ``concurrent.futures`` here):

- :func:`background_loop`: the one event loop, in a daemon thread, where coroutines run
  for synchronous callers (started on first use).
- :func:`submit`, :func:`run`: start an awaitable on a loop from any thread; ``run`` also
  waits for it, until a deadline.
- :func:`await_on`: from a coroutine, await an awaitable on another loop.
- :func:`within`: from a coroutine, await with a deadline.
- :func:`in_thread`, :func:`to_thread`: run sync code in a worker thread (the one pool,
  :class:`Workers`), from sync or async code, abandoned at a deadline.
- :func:`wait`: wait, from sync code, on a future until a deadline.
- :data:`watchdog`: one daemon thread that looks at what it watches once a tick.

A deadline that passes while the engine waits raises :class:`Expired`, never
``TimeoutError``: the awaited code's own ``TimeoutError`` stays its own. What ran is
cancelled when it can be (a coroutine); a thread cannot be stopped, so it runs on,
abandoned, and the daemon threads here never keep the interpreter from exiting.

asyncio is imported where it is used, not with this module: a synchronous call of a
synchronous tool in a fresh process (``toolplug call``) never needs it, and importing
it costs a cold start about a tenth of its time.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import os
import queue
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

#: What a wait raises when its time is up, on every Python we support (on 3.10 the
#: asyncio and concurrent.futures timeouts are classes of their own).
TIMEOUTS: tuple[type[BaseException], ...] = (TimeoutError,)
if sys.version_info < (3, 11):
    import asyncio

    TIMEOUTS = (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError)

#: A future from :func:`submit` or :func:`in_thread` (what :func:`wait` waits on).
Future = concurrent.futures.Future
#: The error a cancelled :data:`Future`'s result raises.
CancelledError = concurrent.futures.CancelledError


class Expired(Exception):
    """A deadline passed while the engine waited (never the awaited code's own TimeoutError)."""


class OnTheLoop(RuntimeError):
    """Waiting here would block the event loop that has to do the work."""


# -- the background loop -----------------------------------------------------------------

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


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


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, if any (``None`` before asyncio is imported)."""
    if "asyncio" not in sys.modules:  # no event loop runs before asyncio is imported
        return None
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def open_loop(loop: asyncio.AbstractEventLoop | None) -> asyncio.AbstractEventLoop | None:
    """``loop`` if it may still run something, else ``None``."""
    return loop if loop is not None and not loop.is_closed() else None


# -- awaitables --------------------------------------------------------------------------


def as_coroutine(awaitable: Awaitable[T]) -> Coroutine[Any, Any, T]:
    """A coroutine that awaits ``awaitable`` (the awaitable itself when it is one)."""
    import inspect

    if inspect.iscoroutine(awaitable):
        return awaitable
    return _awaited(awaitable)


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


def close(awaitable: Awaitable[Any]) -> None:
    """Drop an awaitable that will not run (a coroutine is closed, so it never warns)."""
    import inspect

    if inspect.iscoroutine(awaitable):
        awaitable.close()


def submit(
    awaitable: Awaitable[T],
    loop: asyncio.AbstractEventLoop | None = None,
    *,
    refusal: str = "the call would wait for the event loop it runs on; await instead",
) -> Future[T]:
    """Start ``awaitable`` on ``loop`` (default and when closed: the background loop),
    from any thread; the future holds its outcome, and cancelling it cancels the run.

    Raises :class:`OnTheLoop` with ``refusal`` when ``loop`` runs in this thread: a
    caller that waited for the future would wait for itself.
    """
    import asyncio

    target = open_loop(loop) or background_loop()
    if running_loop() is target:
        close(awaitable)
        raise OnTheLoop(refusal)
    return asyncio.run_coroutine_threadsafe(as_coroutine(awaitable), target)


def wait(future: Future[T], timeout: float | None) -> T:
    """The future's result, waited for from sync code; :class:`Expired` when ``timeout``
    (seconds) passes first, after cancelling the future (a thread runs on, abandoned).

    An outcome that arrives just as the time is up is returned (or raised) as it is.
    """
    try:
        return future.result(timeout)
    except TIMEOUTS:
        if future.done():  # the awaited code's own TimeoutError, or it finished just then
            return future.result()
        future.cancel()
        raise Expired from None


def run(
    awaitable: Awaitable[T],
    timeout: float | None = None,
    loop: asyncio.AbstractEventLoop | None = None,
    *,
    refusal: str = "the call would wait for the event loop it runs on; await instead",
) -> T:
    """Run ``awaitable`` on ``loop`` (default: the background loop) and wait for it from
    sync code: :func:`submit`, then :func:`wait`."""
    return wait(submit(awaitable, loop, refusal=refusal), timeout)


async def await_on(awaitable: Awaitable[T], loop: asyncio.AbstractEventLoop | None) -> T:
    """Await ``awaitable`` on ``loop`` from the running loop; directly when ``loop`` is
    this one, ``None`` or closed. Cancelling the caller cancels it there too."""
    import asyncio

    target = open_loop(loop)
    if target is None or target is running_loop():
        return await awaitable
    return await asyncio.wrap_future(
        asyncio.run_coroutine_threadsafe(as_coroutine(awaitable), target)
    )


@dataclass(frozen=True)
class _Raised:
    """A TimeoutError the awaited code raised itself, carried past ``wait_for`` as a value."""

    exc: BaseException


async def _own_timeouts(awaitable: Awaitable[Any]) -> Any:
    try:
        return await awaitable
    except TIMEOUTS as exc:
        return _Raised(exc)


async def within(awaitable: Awaitable[T], timeout: float | None) -> T:
    """Await with a deadline: :class:`Expired` when ``timeout`` (seconds) passes first
    (the awaitable is cancelled); its own errors, TimeoutError too, as they are."""
    if timeout is None:
        return await awaitable
    import asyncio

    try:
        outcome = await asyncio.wait_for(_own_timeouts(awaitable), timeout)
    except TIMEOUTS:
        raise Expired from None
    if isinstance(outcome, _Raised):
        raise outcome.exc
    return outcome  # type: ignore[no-any-return]


# -- worker threads ----------------------------------------------------------------------

_Job = tuple["Future[Any]", contextvars.Context, Callable[..., Any], tuple[Any, ...]]


class Workers:
    """The core's worker threads: daemon threads, reused, and never too few.

    A job runs in an idle worker when there is one, else in a new thread: a job never
    waits for a free worker, so jobs that wait for each other (a hook call holding its
    worker while its tool runs on the loop and itself waits for a thread) always meet.
    The one limit is how many idle workers are kept (:attr:`KEEP`); a worker with
    nothing to do beyond that ends. Daemon threads, so that a job abandoned at its
    deadline keeps neither the interpreter nor ``asyncio.run`` from exiting.
    """

    KEEP = 16

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Start afresh (a forked child has none of its parent's threads)."""
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[_Job]] = []

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Run ``fn(*args)`` in a worker, in a copy of the caller's context.

        Raises ``RuntimeError`` when no thread could be started (the system's limit).
        """
        future: Future[T] = concurrent.futures.Future()
        job: _Job = (future, contextvars.copy_context(), fn, args)
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is not None:
            inbox.put(job)
        else:
            threading.Thread(
                target=self._work, args=(job,), name="toolplug-worker", daemon=True
            ).start()
        return future

    def _work(self, job: _Job) -> None:
        inbox: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        while True:
            future, context, fn, args = job
            del job  # hold no finished job while idle
            if future.set_running_or_notify_cancel():
                try:
                    result = context.run(fn, *args)
                except BaseException as exc:
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            del future, context, fn, args
            with self._lock:
                if len(self._idle) >= self.KEEP:
                    return
                self._idle.append(inbox)
            job = inbox.get()


#: The one pool of worker threads.
workers = Workers()


def in_thread(fn: Callable[..., T], *args: Any) -> Future[T]:
    """Run ``fn(*args)`` in a worker thread, in a copy of the caller's context; the future
    holds the outcome (wait for it with :func:`wait`)."""
    return workers.submit(fn, *args)


async def to_thread(fn: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
    """Await ``fn(*args)`` run in a worker thread: :class:`Expired` when ``timeout``
    passes first, the thread then running on, abandoned."""
    import asyncio

    return await within(asyncio.wrap_future(in_thread(fn, *args)), timeout)


def start_thread(target: Callable[[], Any], name: str) -> None:
    """Start a daemon thread of its own for ``target`` (a long-lived helper).

    Raises ``RuntimeError`` when no thread could be started.
    """
    threading.Thread(target=target, name=name, daemon=True).start()


# -- the watchdog ------------------------------------------------------------------------


class Watched(Protocol):
    """What the watchdog looks at: something with a :meth:`look` for each tick."""

    def look(self) -> None:
        """Called from the watchdog's thread once a tick while watched."""
        ...


class Watchdog:
    """One daemon thread that, once a tick, calls :meth:`Watched.look` of each thing it
    watches; it sleeps while it watches nothing and starts with the first thing watched.

    ``sleep`` is what waits a tick (a fake clock in tests).
    """

    def __init__(self, tick: float, sleep: Callable[[float], Any] = time.sleep) -> None:
        self.tick = tick
        self.sleep = sleep
        self.reset()

    def reset(self) -> None:
        """Start afresh (a forked child has no watchdog thread; its lock may be held)."""
        self.changed = threading.Condition(threading.Lock())
        self.watched: set[Watched] = set()
        self.thread: threading.Thread | None = None

    def watch(self, thing: Watched) -> None:
        """Look at ``thing`` once a tick until :meth:`forget`."""
        with self.changed:
            self.watched.add(thing)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(
                    target=self._run, name="toolplug-watchdog", daemon=True
                )
                self.thread.start()
            self.changed.notify()

    def forget(self, thing: Watched) -> None:
        """Stop looking at ``thing`` (nothing if it is not watched)."""
        with self.changed:
            self.watched.discard(thing)

    def _run(self) -> None:
        while True:
            with self.changed:
                while not self.watched:
                    self.changed.wait()
            self.sleep(self.tick)
            with self.changed:
                things = list(self.watched)
            for thing in things:
                thing.look()


#: How long (seconds) the watchdog sleeps between looks.
TICK = 0.001

#: The core's watchdog (dispatch's batches use it to see slow calls).
watchdog = Watchdog(TICK)


def _after_fork() -> None:
    workers.reset()
    watchdog.reset()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork)
