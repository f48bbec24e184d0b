"""Running a tool call: arguments, sync/async bridging, timeouts and the ``tool_call`` hook.

`ToolDefinition.call` and `ToolDefinition.acall` delegate here. A :class:`Runner` is
built once per executor: it looks at the executor one time (a plain function or an
``async def``, and whether it keeps its own time) and picks one way to run it from sync
callers and one from async callers, so a call takes a single path with no ladder of
cases on it.

The promise kept here: a call never raises. Bad arguments, a failing or misbehaving
executor, a timeout and a failing hook all come back as error observations.

The ``tool_call`` hook is run by pluggy itself (so new- and old-style wrappers behave as
pluggy documents them). toolplug's own implementation (`toolplug._builtin_hooks`) is the
last one called and is the one that runs the tool: it finds what to run in a context
variable set here, so the hook's signature stays ``tool_call(tool, action, context)``.

asyncio is imported where an async path uses it: a synchronous call of a synchronous
tool in a fresh process (``toolplug call``) never needs it.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import inspect
import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from toolplug import _builtin_hooks, hidden
from toolplug._builtin_hooks import PENDING
from toolplug._text import MESSAGE_LIMIT, cut
from toolplug.arguments import notes_text, unreadable
from toolplug.content import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
)
from toolplug.errors import ArgumentError
from toolplug.loop import _running_loop, background_loop, calling_loop
from toolplug.model import Action, Observation

if TYPE_CHECKING:
    import asyncio

    from pluggy import HookCaller

    from toolplug.definition import ToolDefinition

log = logging.getLogger("toolplug")

T = TypeVar("T")

#: What the core's wait raises when its time is up, on every Python we support (on
#: 3.10 the asyncio and concurrent.futures timeouts are classes of their own).
_TIMEOUTS: tuple[type[BaseException], ...] = (TimeoutError,)
if sys.version_info < (3, 11):
    import asyncio

    _TIMEOUTS = (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError)
_BLOCKS = (TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource)

#: One way to run an executor: ``(action, timeout) -> result`` (awaitable on the async path).
SyncRun = Callable[[Action, "float | None"], Any]
AsyncRun = Callable[[Action, "float | None"], Awaitable[Any]]


class _Expired(Exception):
    """The call's timeout passed while the core waited (never the tool's own TimeoutError)."""


class _NoExecutor(Exception):
    """The definition has no executor."""


def _prepare(
    tool: ToolDefinition[Any, Any], arguments: Any, timeout: float | None
) -> tuple[Action, list[str], float | None, HookCaller | None] | Observation:
    """What both entry points do first: the action and its repair notes, the time limit,
    and the hook to call (``None`` when no plugin implements it); or the error
    observation for arguments that do not fit."""
    try:
        action, notes = tool.parse_action(arguments)
    except ArgumentError as exc:
        return Observation.error(f"Tool '{tool.name}': {exc}")
    except (RecursionError, ValueError) as exc:  # a parse_action of a tool's own
        message = unreadable(exc)
        if message is None:
            raise
        return Observation.error(f"Tool '{tool.name}': {message}")
    limit = timeout if timeout is not None else tool.timeout
    hooks = tool._hooks
    if hooks is not None and not _has_plugin_impls(hooks):
        hooks = None
    return action, notes, limit, hooks


class Runner:
    """Runs one executor from sync and async callers; built once per executor.

    The way to run it from sync code and the way from async code are chosen at
    construction from what the executor is, so :meth:`run` and :meth:`arun` have one
    path each.
    """

    __slots__ = ("_async", "_sync", "executor", "is_async")

    def __init__(self, executor: Callable[..., Any] | None) -> None:
        self.executor = executor
        #: Whether the executor is a coroutine function (or has one as ``__call__``).
        self.is_async = executor is not None and (
            inspect.iscoroutinefunction(executor)
            or inspect.iscoroutinefunction(type(executor).__call__)
        )
        self._sync, self._async = _strategies(executor, self.is_async)

    # -- the entry points ToolDefinition.call/acall delegate to ------------------------

    def call(
        self, tool: ToolDefinition[Any, Any], arguments: Any, timeout: float | None
    ) -> Observation:
        """Parse, run (through the hook when a plugin implements it) and observe. Never raises."""
        try:
            prepared = _prepare(tool, arguments, timeout)
            if isinstance(prepared, Observation):
                return prepared
            action, notes, limit, hooks = prepared
            if hooks is None:
                observation = self.run(tool.name, action, limit)
            else:
                observation = _call_hook(hooks, tool, _Pending(self, action, limit, None))
            return _with_notes(observation, notes) if notes else observation
        except (Exception, SystemExit) as exc:  # a broken parse_action or observation
            return failed(tool.name, exc)

    async def acall(
        self, tool: ToolDefinition[Any, Any], arguments: Any, timeout: float | None
    ) -> Observation:
        """Async :meth:`call`. Never raises (cancellation aside)."""
        try:
            prepared = _prepare(tool, arguments, timeout)
            if isinstance(prepared, Observation):
                return prepared
            action, notes, limit, hooks = prepared
            if hooks is None:
                observation = await self.arun(tool.name, action, limit)
            else:
                import asyncio

                pending = _Pending(self, action, limit, asyncio.get_running_loop())
                observation = await _acall_hook(hooks, tool, pending)
            return _with_notes(observation, notes) if notes else observation
        except (Exception, SystemExit) as exc:
            return failed(tool.name, exc)

    # -- running the executor alone (no arguments, no hook) ----------------------------

    def run(self, name: str, action: Action, timeout: float | None) -> Observation:
        """Run the executor on a validated action from sync code. Never raises."""
        try:
            result = self._sync(action, timeout)
        except _Expired:
            return timed_out(name, timeout)
        except (Exception, SystemExit) as exc:  # sys.exit() in a tool ends the call, not the host
            return failed(name, exc)
        return as_observation(name, result)

    async def arun(self, name: str, action: Action, timeout: float | None) -> Observation:
        """Run the executor on a validated action from async code. Never raises."""
        try:
            result = await self._async(action, timeout)
        except _Expired:
            return timed_out(name, timeout)
        except (Exception, SystemExit) as exc:
            return failed(name, exc)
        return as_observation(name, result)


# -- choosing how to run an executor, once ------------------------------------------------


def _strategies(fn: Callable[..., Any] | None, is_async: bool) -> tuple[SyncRun, AsyncRun]:
    """The sync and the async way to run ``fn``; a timeout passing raises :class:`_Expired`."""
    if fn is None:
        return _no_executor, _ano_executor
    if getattr(fn, "handles_timeout", False):
        # The executor keeps its own time (and returns control itself): the core only
        # passes the timeout on, and does not wait with a limit of its own.
        def invoke(action: Action, timeout: float | None) -> Any:
            return fn(action) if timeout is None else fn(action, timeout=timeout)

        if is_async:

            def sync_keeps_time_async(action: Action, timeout: float | None) -> Any:
                return _wait(_submit(invoke(action, timeout)), None)

            async def async_keeps_time_async(action: Action, timeout: float | None) -> Any:
                return await invoke(action, timeout)

            return sync_keeps_time_async, async_keeps_time_async

        def sync_keeps_time(action: Action, timeout: float | None) -> Any:
            return _resolved(invoke(action, timeout))

        async def async_keeps_time(action: Action, timeout: float | None) -> Any:
            import asyncio

            return await asyncio.to_thread(_resolved_call, invoke, action, timeout)

        return sync_keeps_time, async_keeps_time

    if is_async:

        def sync_of_async(action: Action, timeout: float | None) -> Any:
            return _wait(_submit(fn(action)), timeout)

        async def async_of_async(action: Action, timeout: float | None) -> Any:
            return await _within(fn(action), timeout)

        return sync_of_async, async_of_async

    def sync_of_sync(action: Action, timeout: float | None) -> Any:
        if timeout is None:
            return _resolved(fn(action))  # the hot path: in the caller's thread
        return _wait(start_in_thread(_resolved_call, fn, action), timeout)

    async def async_of_sync(action: Action, timeout: float | None) -> Any:
        import asyncio

        if timeout is None:
            return await asyncio.to_thread(_resolved_call, fn, action)
        # A daemon thread, not the loop's pool: an abandoned call must not keep
        # asyncio.run() (which joins its pool) or the interpreter from exiting.
        return await _within(
            asyncio.wrap_future(start_in_thread(_resolved_call, fn, action)), timeout
        )

    return sync_of_sync, async_of_sync


def _no_executor(action: Action, timeout: float | None) -> Any:
    raise _NoExecutor


async def _ano_executor(action: Action, timeout: float | None) -> Any:
    raise _NoExecutor


def _resolved(result: Any) -> Any:
    """The result, awaited on the background loop if a sync executor returned an awaitable."""
    if isinstance(result, Observation) or not inspect.isawaitable(result):
        return result
    return _wait(_submit(result), None)


def _resolved_call(fn: Callable[..., Any], *args: Any) -> Any:
    return _resolved(fn(*args))


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


def _submit(awaitable: Awaitable[Any]) -> concurrent.futures.Future[Any]:
    """Start an awaitable on the background loop (the home of async tools for sync callers)."""
    import asyncio

    coro: Coroutine[Any, Any, Any] = (
        awaitable if asyncio.iscoroutine(awaitable) else _awaited(awaitable)
    )
    loop = background_loop()
    if _running_loop() is loop:
        coro.close()
        raise RuntimeError(
            "a sync call of an async tool was made on toolplug's background loop, where it "
            "would wait for itself; use acall() there"
        )
    return asyncio.run_coroutine_threadsafe(coro, loop)


def _wait(future: concurrent.futures.Future[T], timeout: float | None) -> T:
    """The future's result; :class:`_Expired` when ``timeout`` passes first."""
    try:
        return future.result(timeout)
    except _TIMEOUTS:
        if future.done():  # the tool's own TimeoutError (or it finished just then)
            return future.result()
        future.cancel()  # stops a coroutine; a thread runs on, abandoned
        raise _Expired from None


@dataclass(frozen=True)
class _Raised:
    """A TimeoutError the tool raised itself, carried past ``wait_for`` as a value."""

    exc: BaseException


async def _own_timeouts(awaitable: Awaitable[Any]) -> Any:
    try:
        return await awaitable
    except _TIMEOUTS as exc:
        return _Raised(exc)


async def _within(awaitable: Awaitable[Any], timeout: float | None) -> Any:
    """Await with a limit; :class:`_Expired` when it passes, the tool's own errors as they are."""
    if timeout is None:
        return await awaitable
    import asyncio

    try:
        outcome = await asyncio.wait_for(_own_timeouts(awaitable), timeout)
    except _TIMEOUTS:
        raise _Expired from None
    if isinstance(outcome, _Raised):
        raise outcome.exc
    return outcome


def start_in_thread(fn: Callable[..., T], *args: Any) -> concurrent.futures.Future[T]:
    """Run ``fn(*args)`` in a new daemon thread, in a copy of the caller's context.

    The returned future holds the outcome. A daemon thread, so that a call abandoned at
    its timeout keeps neither the interpreter nor ``asyncio.run`` from exiting.
    """
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    context = contextvars.copy_context()

    def target() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = context.run(fn, *args)
        except BaseException as exc:
            if not future.done():
                future.set_exception(exc)
        else:
            if not future.done():
                future.set_result(result)

    threading.Thread(target=target, name="toolplug-call", daemon=True).start()
    return future


# -- observations -------------------------------------------------------------------------


def as_observation(name: str, result: Any) -> Observation:
    """An executor's result as an observation: an Observation, a string, or content blocks."""
    if isinstance(result, Observation):
        return result
    if isinstance(result, str):
        return Observation.from_text(result)
    if isinstance(result, _BLOCKS):
        return Observation(content=[result])
    if isinstance(result, (list, tuple)) and all(isinstance(b, _BLOCKS) for b in result):
        return Observation(content=list(result))
    return Observation.error(
        f"Tool '{name}' returned {type(result).__name__}, not an Observation, a string or "
        "content blocks (a bug in the tool; report it to its author)."
    )


def failed(name: str, exc: BaseException) -> Observation:
    """The error observation for an exception, with the exception's own message."""
    if isinstance(exc, _NoExecutor):
        return Observation.error(f"Tool '{name}' has no executor; it cannot be run.")
    log.info("tool %s raised", name, exc_info=exc)
    return Observation.error(f"Tool '{name}' failed: {describe(exc)}")


def timed_out(name: str, timeout: float | None) -> Observation:
    return Observation.error(
        f"Tool '{name}' did not finish within {timeout:g} seconds and was abandoned. "
        "Try a smaller task, or a longer timeout if the tool takes one."
    )


def describe(exc: BaseException) -> str:
    """``Type: message`` for an exception, even one whose ``str()`` raises.

    The message is cut to ``MESSAGE_LIMIT`` characters: it often quotes the input.
    """
    try:
        message = str(exc) or "(no message)"
    except Exception as inner:
        message = f"(its message could not be read: {type(inner).__name__})"
    return f"{type(exc).__name__}: {cut(message, MESSAGE_LIMIT)}"


def _with_notes(observation: Observation, notes: list[str]) -> Observation:
    note = TextContent(text=notes_text(notes))
    return observation.model_copy(update={"content": [note, *observation.content]})


# -- the tool_call hook -------------------------------------------------------------------


@dataclass
class _Pending:
    """A call on its way through the hook: what toolplug's own implementation runs."""

    runner: Runner
    action: Action
    timeout: float | None
    #: The caller's event loop on the async path: async executors run there.
    loop: asyncio.AbstractEventLoop | None
    #: The executor's run on ``loop``, so that cancelling the caller cancels it too.
    inner: concurrent.futures.Future[Observation] | None = None

    def run(self, tool: ToolDefinition[Any, Any]) -> Observation:
        """Run the tool, from inside the hook call (see `toolplug._builtin_hooks`)."""
        if self.loop is None or not self.runner.is_async:
            return self.runner.run(tool.name, self.action, self.timeout)
        # The async path: this is a worker thread; the executor runs on its caller's loop.
        import asyncio

        coro = self.runner.arun(tool.name, self.action, self.timeout)
        self.inner = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return self.inner.result()
        except concurrent.futures.CancelledError:
            return Observation.error(f"Tool '{tool.name}' was cancelled.")


def _has_plugin_impls(hooks: HookCaller) -> bool:
    """Whether some plugin besides toolplug's own implements ``tool_call``."""
    impls = hooks.get_hookimpls()
    return len(impls) > 1 or (len(impls) == 1 and impls[0].plugin_name != _builtin_hooks.NAME)


def _call_hook(hooks: HookCaller, tool: ToolDefinition[Any, Any], pending: _Pending) -> Observation:
    """Call the hook through pluggy with ``pending`` in context. Never raises."""
    token = PENDING.set(pending)
    loop_token = calling_loop.set(pending.loop)
    hidden_token = hidden._open_scope()  # what the hooks hide holds for this call only
    try:
        result = hooks(tool=tool, action=pending.action, context=tool._context)
    except (Exception, SystemExit) as exc:
        return _hook_failed(hooks, tool, exc)
    finally:
        hidden._close_scope(hidden_token)
        calling_loop.reset(loop_token)
        PENDING.reset(token)
    if isinstance(result, Observation):
        return result
    if isinstance(result, str):  # a refusal given as a plain message
        return Observation.error(result)
    if result is None:
        return Observation.error(
            f"Tool '{tool.name}': a tool_call hook gave no observation (a wrapper must "
            "return the observation its yield gave it, or a replacement)."
        )
    return Observation.error(
        f"Tool '{tool.name}': a tool_call hook returned {type(result).__name__}, "
        "not an Observation."
    )


async def _acall_hook(
    hooks: HookCaller, tool: ToolDefinition[Any, Any], pending: _Pending
) -> Observation:
    """The async path: pluggy (which is sync) runs in a worker thread.

    Async executors still run on this loop (see :meth:`_Pending.run`).
    """
    import asyncio

    try:
        return await asyncio.wrap_future(_hook_threads.submit(_call_hook, hooks, tool, pending))
    except asyncio.CancelledError:
        if pending.inner is not None:
            pending.inner.cancel()
        raise


class _HookThreads:
    """Worker threads for hook calls on the async path: reused, and never too few.

    Not the loop's own pool: a hook call holds its worker while the tool runs on the
    loop, so a tool that itself waits for that pool (``asyncio.to_thread``) could wait
    forever once the pool is full. Here a call that finds every pooled thread busy
    (nested tool calls, many calls at once) gets a thread of its own instead of waiting.
    """

    SIZE = 16

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy = 0
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None

    def submit(self, fn: Callable[..., T], *args: Any) -> concurrent.futures.Future[T]:
        """Run ``fn(*args)`` in a copy of the caller's context (as asyncio.to_thread does)."""
        with self._lock:
            if self._busy >= self.SIZE:
                return start_in_thread(fn, *args)
            self._busy += 1
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    self.SIZE, thread_name_prefix="toolplug-hook"
                )
            pool = self._pool
        context = contextvars.copy_context()

        def job() -> T:
            try:
                return context.run(fn, *args)
            finally:
                with self._lock:
                    self._busy -= 1

        return pool.submit(job)


_hook_threads = _HookThreads()


def _hook_failed(
    hooks: HookCaller, tool: ToolDefinition[Any, Any], exc: BaseException
) -> Observation:
    plugin = _plugin_that_raised(hooks, exc)
    who = f"plugin '{plugin}'" if plugin else "a tool_call hook"
    log.info("a tool_call hook of %s raised", who, exc_info=exc)
    text = describe(exc)
    if isinstance(exc, RuntimeError) and "did not yield" in text:
        text += (
            ". A tool_call wrapper must yield once; to refuse a call, return an "
            "Observation from a plain @hookimpl(tryfirst=True) implementation instead"
        )
    return Observation.error(f"Tool '{tool.name}' was stopped by {who}: {text}")


def _plugin_that_raised(hooks: HookCaller, exc: BaseException) -> str | None:
    """The plugin whose implementation raised: the innermost of its frames in the traceback.

    pluggy's own complaints about a wrapper (``did not yield``) name it by file and
    line instead; those are matched too.
    """
    codes = {}
    for impl in hooks.get_hookimpls():
        function = getattr(impl.function, "__func__", impl.function)
        code = getattr(inspect.unwrap(function), "__code__", None)
        if code is not None:
            codes[code] = impl.plugin_name
    found = None
    tb = exc.__traceback__
    while tb is not None:
        found = codes.get(tb.tb_frame.f_code, found)
        tb = tb.tb_next
    if found is None:
        text = describe(exc)
        for code, plugin in codes.items():
            if f"{code.co_filename}:{code.co_firstlineno}" in text:
                return plugin
    return found
