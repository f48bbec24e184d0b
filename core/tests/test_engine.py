"""The engine alone: every crossing between threads and event loops (`toolplug._engine`).

No tool, no hook: each call of the engine with real threads and real event loops. Where
time matters the watchdog runs on a fake clock; a deadline that must pass is a short
real one on something that never finishes (nothing here asserts how long a thing took).
"""

from __future__ import annotations

import asyncio
import contextvars
import subprocess
import sys
import textwrap
import threading
from collections.abc import Generator
from typing import Any

import pytest
from toolplug import _engine

NEVER = 3600.0  # seconds: an Event's wait that only a bug lets run out
request: contextvars.ContextVar[str] = contextvars.ContextVar("request", default="-")


class Ready:
    """An awaitable that is not a coroutine (as a Future or a task-like object is)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, None, Any]:
        yield from asyncio.sleep(0).__await__()
        return self.value


# -- the background loop and awaitables ---------------------------------------------------


def test_the_background_loop_is_one_and_runs_in_a_daemon_thread() -> None:
    loop = _engine.background_loop()
    assert _engine.background_loop() is loop and loop.is_running()

    async def where() -> tuple[asyncio.AbstractEventLoop, bool]:
        return asyncio.get_running_loop(), threading.current_thread().daemon

    assert _engine.run(where()) == (loop, True)


def test_as_coroutine_keeps_a_coroutine_and_wraps_other_awaitables() -> None:
    async def three() -> int:
        return 3

    coro = three()
    assert _engine.as_coroutine(coro) is coro
    assert _engine.run(coro) == 3
    wrapped = _engine.as_coroutine(Ready(4))
    assert asyncio.iscoroutine(wrapped)
    assert _engine.run(wrapped) == 4


def test_run_takes_any_awaitable() -> None:
    assert _engine.run(Ready("done"), 5.0) == "done"


def test_run_on_a_given_loop_runs_there() -> None:
    other = asyncio.new_event_loop()
    thread = threading.Thread(target=other.run_forever, daemon=True)
    thread.start()
    try:

        async def where() -> asyncio.AbstractEventLoop:
            return asyncio.get_running_loop()

        assert _engine.run(where(), None, other) is other
    finally:
        other.call_soon_threadsafe(other.stop)
        thread.join(NEVER)
        other.close()

    async def again() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    # A closed loop is no home: the background loop is.
    assert _engine.run(again(), None, other) is _engine.background_loop()


def test_a_deadline_that_passes_raises_expired_and_cancels_the_coroutine() -> None:
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(NEVER)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(_engine.Expired):
        _engine.run(forever(), 0.01)
    assert cancelled.wait(NEVER)


def test_the_awaited_codes_own_timeout_error_is_not_expired() -> None:
    async def times_out_inside() -> None:
        await asyncio.wait_for(asyncio.sleep(NEVER), 0.001)

    for timeout in (None, NEVER):
        with pytest.raises((TimeoutError, asyncio.TimeoutError)):
            _engine.run(times_out_inside(), timeout)


def test_waiting_for_the_loop_this_thread_runs_is_refused_and_the_coroutine_closed() -> None:
    async def inner() -> int:
        return 1

    async def on_the_loop() -> str:
        coro = inner()
        try:
            _engine.run(coro, None, asyncio.get_running_loop(), refusal="await it instead")
        except _engine.OnTheLoop as exc:
            assert coro.cr_frame is None, "the refused coroutine is closed, not left to warn"
            return str(exc)
        return "not refused"

    assert asyncio.run(on_the_loop()) == "await it instead"
    assert issubclass(_engine.OnTheLoop, RuntimeError)


def test_await_on_runs_on_the_given_loop_and_directly_on_this_one() -> None:
    async def where() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    async def main() -> list[asyncio.AbstractEventLoop]:
        here = asyncio.get_running_loop()
        return [
            await _engine.await_on(where(), _engine.background_loop()),
            await _engine.await_on(where(), here),
            await _engine.await_on(where(), None),
            await _engine.await_on(Ready(here), _engine.background_loop()),
        ]

    background = _engine.background_loop()
    there, *rest = asyncio.run(main())
    assert there is background
    assert rest[0] is rest[1] is rest[2] and rest[0] is not background


def test_cancelling_an_await_on_another_loop_cancels_it_there() -> None:
    started, cancelled = threading.Event(), threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.sleep(NEVER)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def main() -> None:
        task = asyncio.ensure_future(_engine.await_on(forever(), _engine.background_loop()))
        while not started.is_set():
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert cancelled.wait(NEVER)


def test_within_expires_and_keeps_the_awaited_codes_own_errors() -> None:
    async def main() -> None:
        with pytest.raises(_engine.Expired):
            await _engine.within(asyncio.sleep(NEVER), 0.01)
        assert await _engine.within(Ready(5), NEVER) == 5
        assert await _engine.within(Ready(6), None) == 6
        with pytest.raises((TimeoutError, asyncio.TimeoutError)):
            await _engine.within(asyncio.wait_for(asyncio.sleep(NEVER), 0.001), NEVER)

    asyncio.run(main())


# -- waiting on a future ------------------------------------------------------------------


def test_wait_returns_raises_or_expires() -> None:
    done: _engine.Future[int] = _engine.Future()
    done.set_result(7)
    assert _engine.wait(done, 0.01) == 7

    failed: _engine.Future[int] = _engine.Future()
    failed.set_exception(TimeoutError("the code's own"))
    with pytest.raises(TimeoutError, match="the code's own"):
        _engine.wait(failed, NEVER)

    never: _engine.Future[int] = _engine.Future()
    with pytest.raises(_engine.Expired):
        _engine.wait(never, 0.01)
    assert never.cancelled()


# -- worker threads -----------------------------------------------------------------------


def test_a_worker_runs_in_a_copy_of_the_callers_context() -> None:
    def read_and_write() -> str:
        seen = request.get()
        request.set("changed in the worker")
        return seen

    token = request.set("req-1")
    try:
        assert _engine.wait(_engine.in_thread(read_and_write), NEVER) == "req-1"
        assert request.get() == "req-1"
    finally:
        request.reset(token)


def test_workers_are_daemon_threads_and_reused() -> None:
    def me() -> threading.Thread:
        return threading.current_thread()

    first = _engine.wait(_engine.in_thread(me), NEVER)
    assert first.daemon
    # A finished worker waits for the next job: sequential jobs share threads.
    threads = {_engine.wait(_engine.in_thread(me), NEVER) for _ in range(20)}
    assert len(threads) < 20


def test_workers_are_never_too_few_for_jobs_that_wait_for_each_other() -> None:
    count = 2 * _engine.Workers.KEEP + 3
    barrier = threading.Barrier(count, timeout=NEVER)
    futures = [_engine.in_thread(barrier.wait) for _ in range(count)]
    assert sorted(_engine.wait(f, NEVER) for f in futures) == list(range(count))


def test_a_workers_error_is_the_futures() -> None:
    def boom() -> None:
        raise ValueError("in the worker")

    with pytest.raises(ValueError, match="in the worker"):
        _engine.wait(_engine.in_thread(boom), NEVER)


def test_a_thread_past_its_deadline_is_abandoned_and_runs_on() -> None:
    release, finished = threading.Event(), threading.Event()

    def blocks() -> str:
        release.wait(NEVER)
        finished.set()
        return "late"

    with pytest.raises(_engine.Expired):
        _engine.wait(_engine.in_thread(blocks), 0.01)

    async def main() -> None:
        with pytest.raises(_engine.Expired):
            await _engine.to_thread(blocks, timeout=0.01)

    asyncio.run(main())  # returns: the abandoned thread does not hold asyncio.run
    assert not finished.is_set()
    release.set()
    assert finished.wait(NEVER)


def test_to_thread_returns_the_result() -> None:
    async def main() -> int:
        return await _engine.to_thread(sum, [1, 2, 3])

    assert asyncio.run(main()) == 6


def test_a_forked_child_gets_workers_of_its_own() -> None:
    """The parent's idle workers are not in a forked child: the child starts its own."""
    script = textwrap.dedent(
        """
        import os, sys
        from toolplug import _engine

        _engine.wait(_engine.in_thread(int), 60)  # leaves an idle worker behind
        pid = os.fork()
        if pid == 0:
            try:
                ok = _engine.wait(_engine.in_thread(lambda: "child"), 60) == "child"
            except _engine.Expired:
                ok = False
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """
    )
    if not hasattr(__import__("os"), "fork"):
        pytest.skip("no fork here")
    done = subprocess.run([sys.executable, "-c", script], timeout=120, check=False)
    assert done.returncode == 0


# -- the watchdog, on a fake clock ---------------------------------------------------------


class FakeClock:
    """A watchdog's sleep that waits for the test to let each tick pass."""

    def __init__(self) -> None:
        self.ticks = threading.Semaphore(0)
        self.asleep = threading.Semaphore(0)
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.asleep.release()
        assert self.ticks.acquire(timeout=NEVER)

    def tick(self) -> None:
        """Let one tick pass, once the watchdog is asleep."""
        assert self.asleep.acquire(timeout=NEVER)
        self.ticks.release()


class Looked:
    def __init__(self) -> None:
        self.looks = 0
        self.looked = threading.Semaphore(0)

    def look(self) -> None:
        self.looks += 1
        self.looked.release()


def test_the_watchdog_looks_once_a_tick_at_what_it_watches() -> None:
    clock = FakeClock()
    dog = _engine.Watchdog(0.5, sleep=clock.sleep)
    assert dog.thread is None, "no thread before anything is watched"
    first, second = Looked(), Looked()
    dog.watch(first)
    clock.tick()
    assert first.looked.acquire(timeout=NEVER)
    dog.watch(second)
    clock.tick()
    assert first.looked.acquire(timeout=NEVER) and second.looked.acquire(timeout=NEVER)
    dog.forget(first)
    clock.tick()
    assert second.looked.acquire(timeout=NEVER)
    assert (first.looks, second.looks) == (2, 2)
    assert clock.slept and set(clock.slept) == {0.5}
    dog.forget(second)
    assert dog.watched == set()


def test_the_watchdog_looks_again_at_what_is_watched_again() -> None:
    clock = FakeClock()
    dog = _engine.Watchdog(0.5, sleep=clock.sleep)
    thing = Looked()
    dog.watch(thing)
    clock.tick()
    assert thing.looked.acquire(timeout=NEVER)
    dog.forget(thing)
    # Forgotten, the watchdog waits for something to watch (or finishes the tick it had
    # begun); watched again, it looks after exactly one more tick.
    dog.watch(thing)
    clock.tick()
    assert thing.looked.acquire(timeout=NEVER)
    assert thing.looks == 2
    assert dog.thread is not None and dog.thread.daemon
    dog.forget(thing)
