"""Running a tool call: arguments, sync/async bridging, timeouts and the ``tool_call`` hook.

`ToolDefinition.call` and `ToolDefinition.acall` delegate here. A :class:`Runner` is
built once per executor: it looks at the executor one time (a plain function or an
``async def``, and whether it keeps its own time) and picks one way to run it from sync
callers and one from async callers, so a call takes a single path with no ladder of
cases on it.

The toolset's output budget (`toolplug.budget`) is applied here, last, to what the
model will see: after the tool and the hooks, so a guard judges the real result and
what a hook adds is held to the budget too.

The promise kept here: a call never raises. Bad arguments, a failing or misbehaving
executor, a timeout and a failing hook all come back as error observations.

The ``tool_call`` hook is run by pluggy itself (so new- and old-style wrappers behave as
pluggy documents them). toolplug's own implementation (`toolplug._builtin_hooks`) is the
last one called and is the one that runs the tool: the hook's ``pending`` argument is
what it runs (other implementations do not name it, so pluggy does not give it them).

asyncio is imported where an async path uses it: a synchronous call of a synchronous
tool in a fresh process (``toolplug call``) never needs it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from toolplug import _builtin_hooks, _engine, hidden
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
from toolplug.loop import calling_loop
from toolplug.model import Action, Observation

if TYPE_CHECKING:
    import asyncio

    from pluggy import HookCaller

    from toolplug.definition import ToolDefinition

log = logging.getLogger("toolplug")

_BLOCKS = (TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource)

#: One way to run an executor: ``(action, timeout) -> result`` (awaitable on the async path).
SyncRun = Callable[[Action, "float | None"], Any]
AsyncRun = Callable[[Action, "float | None"], Awaitable[Any]]
#: The same with the executor first: ``(fn, action, timeout)``.
SyncWay = Callable[[Callable[..., Any], Action, "float | None"], Any]
AsyncWay = Callable[[Callable[..., Any], Action, "float | None"], Awaitable[Any]]


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
            if notes:
                observation = _with_notes(observation, notes)
            return observation if tool._spill is None else tool._spill.apply(tool, observation)
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
            if notes:
                observation = _with_notes(observation, notes)
            return observation if tool._spill is None else tool._spill.apply(tool, observation)
        except (Exception, SystemExit) as exc:
            return failed(tool.name, exc)

    # -- running the executor alone (no arguments, no hook) ----------------------------

    def run(self, name: str, action: Action, timeout: float | None) -> Observation:
        """Run the executor on a validated action from sync code. Never raises."""
        try:
            result = self._sync(action, timeout)
        except _engine.Expired:
            return timed_out(name, timeout)
        except (Exception, SystemExit) as exc:  # sys.exit() in a tool ends the call, not the host
            return failed(name, exc)
        return as_observation(name, result)

    async def arun(self, name: str, action: Action, timeout: float | None) -> Observation:
        """Run the executor on a validated action from async code. Never raises."""
        try:
            result = await self._async(action, timeout)
        except _engine.Expired:
            return timed_out(name, timeout)
        except (Exception, SystemExit) as exc:
            return failed(name, exc)
        return as_observation(name, result)


# -- choosing how to run an executor, once ------------------------------------------------
#
# Each way is a small function of (fn, action, timeout); `_strategies` picks a pair once.
# A deadline passing raises `_engine.Expired`, which `Runner.run`/`arun` observe.


def _strategies(fn: Callable[..., Any] | None, is_async: bool) -> tuple[SyncRun, AsyncRun]:
    """The sync and the async way to run ``fn``."""
    if fn is None:
        return _no_executor, _ano_executor
    sync_way, async_way = _WAYS[is_async]
    if getattr(fn, "handles_timeout", False):
        # The executor keeps its own time (and returns control itself): the core only
        # passes the timeout on, and does not wait with a limit of its own.
        return partial(_keeping_time, sync_way, fn), partial(_akeeping_time, async_way, fn)
    return partial(sync_way, fn), partial(async_way, fn)


def _passing_timeout(fn: Callable[..., Any], action: Action, *, timeout: float | None) -> Any:
    """Call an executor that keeps its own time, with the timeout when there is one."""
    return fn(action) if timeout is None else fn(action, timeout=timeout)


def _keeping_time(
    way: SyncWay, fn: Callable[..., Any], action: Action, timeout: float | None
) -> Any:
    """Run ``fn`` the ``way`` chosen, with the timeout given to it and no limit of ours."""
    return way(partial(_passing_timeout, fn, timeout=timeout), action, None)


async def _akeeping_time(
    way: AsyncWay, fn: Callable[..., Any], action: Action, timeout: float | None
) -> Any:
    """Async :func:`_keeping_time`."""
    return await way(partial(_passing_timeout, fn, timeout=timeout), action, None)


def _sync_of_sync(fn: Callable[..., Any], action: Action, timeout: float | None) -> Any:
    if timeout is None:
        return _resolved(fn(action))  # the hot path: in the caller's thread
    return _engine.wait(_engine.in_thread(_resolved_call, fn, action), timeout)


async def _async_of_sync(fn: Callable[..., Any], action: Action, timeout: float | None) -> Any:
    return await _engine.to_thread(_resolved_call, fn, action, timeout=timeout)


def _sync_of_async(fn: Callable[..., Any], action: Action, timeout: float | None) -> Any:
    return _engine.run(fn(action), timeout, refusal=_ON_THE_LOOP)


async def _async_of_async(fn: Callable[..., Any], action: Action, timeout: float | None) -> Any:
    return await _engine.within(fn(action), timeout)


#: The way to run a sync (``False``) and an async (``True``) executor: (from sync callers,
#: from async callers).
_WAYS: dict[bool, tuple[SyncWay, AsyncWay]] = {
    False: (_sync_of_sync, _async_of_sync),
    True: (_sync_of_async, _async_of_async),
}

_ON_THE_LOOP = (
    "a sync call of an async tool was made on toolplug's background loop, where it "
    "would wait for itself; use acall() there"
)


def _no_executor(action: Action, timeout: float | None) -> Any:
    raise _NoExecutor


async def _ano_executor(action: Action, timeout: float | None) -> Any:
    raise _NoExecutor


def _resolved(result: Any) -> Any:
    """The result, awaited on the background loop if a sync executor returned an awaitable."""
    if isinstance(result, Observation) or not inspect.isawaitable(result):
        return result
    return _engine.run(result, refusal=_ON_THE_LOOP)


def _resolved_call(fn: Callable[..., Any], *args: Any) -> Any:
    return _resolved(fn(*args))


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
    inner: _engine.Future[Observation] | None = None

    def run(self, tool: ToolDefinition[Any, Any]) -> Observation:
        """Run the tool, from inside the hook call (see `toolplug._builtin_hooks`)."""
        if self.loop is None or not self.runner.is_async:
            return self.runner.run(tool.name, self.action, self.timeout)
        # The async path: this is a worker thread; the executor runs on its caller's loop.
        coro = self.runner.arun(tool.name, self.action, self.timeout)
        self.inner = _engine.submit(coro, self.loop)
        try:
            return _engine.wait(self.inner, None)
        except _engine.CancelledError:
            return Observation.error(f"Tool '{tool.name}' was cancelled.")


def _has_plugin_impls(hooks: HookCaller) -> bool:
    """Whether some plugin besides toolplug's own implements ``tool_call``."""
    impls = hooks.get_hookimpls()
    return len(impls) > 1 or (len(impls) == 1 and impls[0].plugin_name != _builtin_hooks.NAME)


def _call_hook(hooks: HookCaller, tool: ToolDefinition[Any, Any], pending: _Pending) -> Observation:
    """Call the hook through pluggy to run ``pending``. Never raises."""
    loop_token = calling_loop.set(pending.loop)
    hidden_token = hidden._open_scope()  # what the hooks hide holds for this call only
    try:
        result = hooks(tool=tool, action=pending.action, context=tool._context, pending=pending)
    except (Exception, SystemExit) as exc:
        return _hook_failed(hooks, tool, exc)
    finally:
        hidden._close_scope(hidden_token)
        calling_loop.reset(loop_token)
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

    Async executors still run on this loop (see :meth:`_Pending.run`). The worker is
    one of the engine's, not the loop's own pool: a hook call holds its worker while
    the tool runs on the loop, so a tool that itself waits for that pool
    (``asyncio.to_thread``) could otherwise wait forever once the pool is full.
    """
    import asyncio

    try:
        return await _engine.to_thread(_call_hook, hooks, tool, pending)
    except asyncio.CancelledError:
        if pending.inner is not None:
            pending.inner.cancel()
        raise


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
