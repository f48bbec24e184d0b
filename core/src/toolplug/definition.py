"""The tool itself: :class:`ToolExecutor` and :class:`ToolDefinition`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import functools
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from toolplug.arguments import parse_arguments, validate_action
from toolplug.content import TextContent
from toolplug.errors import ArgumentError
from toolplug.loop import run_sync
from toolplug.model import Action, Observation, ToolAnnotations
from toolplug.schema import clean_schema, with_security_risk

if TYPE_CHECKING:
    from pluggy import HookCaller


log = logging.getLogger("toolplug")

A = TypeVar("A", bound=Action)
O = TypeVar("O", bound=Observation)  # noqa: E741


class ToolExecutor(Generic[A, O]):
    """The logic of a tool: ``__call__(action) -> observation``.

    ``__call__`` may be a plain method or ``async def``; the safe entry points run
    either kind from sync and async hosts alike. Override :meth:`close` to release what
    the executor holds (a process, a connection); it is called once, when the host's
    toolset closes.

    A call's timeout is normally kept by the core, which stops waiting for the executor
    (its thread runs on). An executor that can keep time itself, and return control
    with a useful partial result, sets ``handles_timeout = True``: it is then called as
    ``executor(action, timeout=seconds)`` and must return within about that time.

    Any callable taking the action works as an executor too. An executor returns its
    tool's observation type, or a plain :meth:`Observation.error` on failure.
    """

    def __call__(self, action: A) -> O | Observation | Awaitable[O | Observation]:
        raise NotImplementedError

    #: True when ``__call__`` takes ``timeout=`` and keeps to it itself.
    handles_timeout: bool = False

    def close(self) -> None:
        """Release resources. The default does nothing."""


class ToolDefinition(Generic[A, O]):
    """A tool: its name, description, input and output types, hints and executor.

    Stateless tools are instances of this class. Stateful tools subclass it and
    implement :meth:`create`, which the registry calls with the host's context and the
    user's params to build fresh instances (each with its own executor) per session.

    Call a tool through :meth:`call` or :meth:`acall`: these never raise; bad arguments,
    failures and timeouts come back as error observations a model can act on.
    """

    def __init__(
        self,
        *,
        name: str,
        description: str,
        action_type: type[A],
        observation_type: type[O] = Observation,  # type: ignore[assignment]
        executor: Callable[[A], O | Observation | Awaitable[O | Observation]] | None = None,
        annotations: ToolAnnotations | None = None,
        title: str | None = None,
        timeout: float | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if not name:
            raise ValueError("a tool needs a name")
        self.name = name
        self.description = description
        self.action_type = action_type
        self.observation_type = observation_type
        self.executor = executor
        self.annotations = annotations
        self.title = title or (annotations.title if annotations else None)
        #: Default per-call timeout in seconds (``None``: wait as long as it takes).
        self.timeout = timeout
        self.meta = dict(meta or {})
        #: Where the tool comes from, for people ("tool 'now' of MCP server 'time'").
        self.origin: str | None = None
        self._hooks: HookCaller | None = None
        self._async_cache: tuple[object, bool] | None = None
        self._closed = False
        self._close_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # -- stateful tools --------------------------------------------------------------

    @classmethod
    def create(cls, *args: Any, **params: Any) -> Sequence[ToolDefinition[Any, Any]]:
        """Build this tool's instances for one host session.

        Subclasses implement it as ``create(cls, context, *, param=default, ...)``: read
        what they need from ``context`` (the workspace, the environment, limits), accept
        the params they document as keyword arguments (the registry refuses others by
        this signature), and return the created definitions (usually one). The base
        signature takes anything, so that every such override type-checks.
        """
        raise NotImplementedError(f"{cls.__name__} does not implement create()")

    def bind_hooks(self, hooks: HookCaller | None) -> ToolDefinition[A, O]:
        """A shallow copy whose calls go through the given ``tool_call`` hook."""
        bound = copy.copy(self)
        bound._hooks = hooks
        bound._close_lock = threading.Lock()
        return bound

    @property
    def is_async(self) -> bool:
        """Whether the executor is a coroutine function (or an object with one as ``__call__``)."""
        fn = self.executor
        cached = self._async_cache
        if cached is not None and cached[0] is fn:
            return cached[1]  # checked once per executor: inspect is slow on the hot path
        result = fn is not None and (
            inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)
        )
        self._async_cache = (fn, result)
        return result

    def touches(self, action: A) -> frozenset[str] | None:
        """What a call with this action touches, for running calls side by side.

        Two calls may run concurrently when the sets they return do not intersect.
        ``None`` means "unknown": the call runs alone, in order. The default is an empty
        set (touches nothing) for read-only tools and ``None`` for the rest; tools that
        know better override it (a file editor returns the file's path, a shell its
        session).
        """
        return frozenset() if self.read_only else None

    # -- schemas ---------------------------------------------------------------------

    def input_schema(self, *, security_risk: bool = False) -> dict[str, Any]:
        """The JSON schema of the action, cleaned for export."""
        schema = clean_schema(self.action_type.model_json_schema())
        if security_risk and not self.read_only:
            schema = with_security_risk(schema)
        return schema

    def output_schema(self) -> dict[str, Any] | None:
        """The JSON schema of the observation's typed fields, if it has any."""
        return self.observation_type.output_schema()

    @property
    def read_only(self) -> bool:
        """Whether the tool says it changes nothing."""
        return bool(self.annotations and self.annotations.readOnlyHint)

    # -- calling ---------------------------------------------------------------------

    def parse_action(self, arguments: Any) -> tuple[A, list[str]]:
        """Decode and validate arguments; raises :class:`ArgumentError` with a clear text."""
        data, notes = parse_arguments(arguments)
        action, more = validate_action(self.action_type, data)
        return action, (notes + more if notes else more)  # type: ignore[return-value]

    def call(self, arguments: Any = None, *, timeout: float | None = None) -> Observation:
        """Run the tool on JSON arguments (a dict or a string). Never raises."""
        try:
            action, notes = self.parse_action(arguments)
        except ArgumentError as exc:
            return Observation.error(f"Tool '{self.name}': {exc}")
        limit = timeout if timeout is not None else self.timeout
        impls = self._hooks.get_hookimpls() if self._hooks is not None else None
        if not impls:
            observation = self._run(action, limit)
        else:
            observation = self._run_hooked(impls, action, lambda: self._run(action, limit))
        return _with_notes(observation, notes)

    async def acall(self, arguments: Any = None, *, timeout: float | None = None) -> Observation:
        """Async :meth:`call`: sync executors run in a worker thread. Never raises."""
        try:
            action, notes = self.parse_action(arguments)
        except ArgumentError as exc:
            return Observation.error(f"Tool '{self.name}': {exc}")
        limit = timeout if timeout is not None else self.timeout
        impls = self._hooks.get_hookimpls() if self._hooks is not None else None
        if not impls:
            observation = await self._arun(action, limit)
        else:
            observation = await self._arun_hooked(impls, action, limit)
        return _with_notes(observation, notes)

    def _run(self, action: A, timeout: float | None) -> Observation:
        executor = self.executor
        if executor is None:
            return Observation.error(f"Tool '{self.name}' has no executor; it cannot be run.")
        try:
            if timeout is not None and getattr(executor, "handles_timeout", False):
                result: Any = executor(action, timeout=timeout)  # type: ignore[call-arg]
                if not isinstance(result, Observation) and inspect.isawaitable(result):
                    result = run_sync(_awaited(result))
            elif self.is_async:
                result = run_sync(executor(action), timeout)  # type: ignore[arg-type]
            elif timeout is None:
                result = executor(action)
                if not isinstance(result, Observation) and inspect.isawaitable(result):
                    result = run_sync(_awaited(result))
            else:
                result = _call_in_thread(executor, action, timeout)
        except (TimeoutError, concurrent.futures.TimeoutError):
            return self._timed_out(timeout)
        except (Exception, SystemExit) as exc:  # sys.exit() in a tool ends the call, not the host
            return self._failed(exc)
        return self._checked(result)

    async def _arun(self, action: A, timeout: float | None) -> Observation:
        executor = self.executor
        if executor is None:
            return Observation.error(f"Tool '{self.name}' has no executor; it cannot be run.")
        try:
            if timeout is not None and getattr(executor, "handles_timeout", False):
                # The executor keeps its own time (and returns control itself).
                if self.is_async:
                    result = await executor(action, timeout=timeout)  # type: ignore[call-arg,misc]
                else:
                    keeps_time = functools.partial(executor, timeout=timeout)  # type: ignore[call-arg]
                    result = await asyncio.to_thread(_call_sync, keeps_time, action)
                return self._checked(result)
            if self.is_async:
                pending: Awaitable[Any] = executor(action)  # type: ignore[assignment]
            elif timeout is None:
                pending = asyncio.to_thread(_call_sync, executor, action)
            else:
                # A daemon thread, not the loop's pool: an abandoned call must not keep
                # asyncio.run() (which joins its pool) or the interpreter from exiting.
                pending = asyncio.wrap_future(_start_in_thread(executor, action))
            result = await asyncio.wait_for(pending, timeout)
        except (asyncio.TimeoutError, concurrent.futures.TimeoutError):
            return self._timed_out(timeout)
        except (Exception, SystemExit) as exc:  # sys.exit() in a tool ends the call, not the host
            return self._failed(exc)
        return self._checked(result)

    def _checked(self, result: Any) -> Observation:
        if isinstance(result, Observation):
            return result
        if isinstance(result, str):
            return Observation.from_text(result)
        return Observation.error(
            f"Tool '{self.name}' returned {type(result).__name__}, not an Observation "
            "(a bug in the tool; report it to its author)."
        )

    def _failed(self, exc: BaseException) -> Observation:
        log.info("tool %s raised", self.name, exc_info=exc)
        message = str(exc) or "(no message)"
        return Observation.error(f"Tool '{self.name}' failed: {type(exc).__name__}: {message}")

    def _timed_out(self, timeout: float | None) -> Observation:
        return Observation.error(
            f"Tool '{self.name}' did not finish within {timeout:g} seconds and was abandoned. "
            "Try a smaller task, or a longer timeout if the tool takes one."
        )

    # -- the tool_call hook ----------------------------------------------------------

    def _start_hooks(self, impls: Sequence[Any], action: A) -> tuple[list[Any], Observation | None]:
        """Enter wrappers outermost first; a refusal (a result before running) stops it."""
        kwargs = {"tool": self, "action": action}
        entered: list[Any] = []
        for impl in reversed(impls):  # pluggy's call order
            args = [kwargs[name] for name in impl.argnames]
            try:
                if impl.wrapper or impl.hookwrapper:
                    gen = impl.function(*args)
                    try:
                        next(gen)
                    except StopIteration as stop:
                        return entered, _as_observation(stop.value, impl.plugin_name)
                    entered.append(gen)
                else:
                    early = impl.function(*args)
                    if early is not None:
                        return entered, _as_observation(early, impl.plugin_name)
            except Exception as exc:
                return entered, Observation.error(
                    f"Tool '{self.name}' was stopped by plugin '{impl.plugin_name}': "
                    f"{type(exc).__name__}: {exc}"
                )
        return entered, None

    def _finish_hooks(self, entered: list[Any], observation: Observation) -> Observation:
        """Hand the observation back through the wrappers, innermost first."""
        for gen in reversed(entered):
            try:
                gen.send(observation)
            except StopIteration as stop:
                if stop.value is not None:
                    observation = _as_observation(stop.value, "a tool_call wrapper")
            except Exception as exc:
                observation = Observation.error(
                    f"A tool_call hook failed after tool '{self.name}' ran: "
                    f"{type(exc).__name__}: {exc}"
                )
            else:
                gen.close()
        return observation

    def _run_hooked(
        self, impls: Sequence[Any], action: A, run: Callable[[], Observation]
    ) -> Observation:
        entered, early = self._start_hooks(impls, action)
        observation = early if early is not None else run()
        return self._finish_hooks(entered, observation)

    async def _arun_hooked(
        self, impls: Sequence[Any], action: A, timeout: float | None
    ) -> Observation:
        entered, early = self._start_hooks(impls, action)
        observation = early if early is not None else await self._arun(action, timeout)
        return self._finish_hooks(entered, observation)

    # -- closing ---------------------------------------------------------------------

    def _take_close(self) -> Callable[[], Any] | None:
        """The executor's ``close`` the first time it is asked for; ``None`` after that."""
        with self._close_lock:
            if self._closed:
                return None
            self._closed = True
        return getattr(self.executor, "close", None)

    def close(self) -> None:
        """Close the executor, once; later calls do nothing. Never raises."""
        close = self._take_close()
        if close is None:
            return
        try:
            result = close()
            if inspect.isawaitable(result):
                run_sync(_awaited(result), timeout=30)
        except Exception:
            log.warning("closing tool %s failed", self.name, exc_info=True)

    async def aclose(self) -> None:
        """Async :meth:`close`."""
        close = self._take_close()
        if close is None:
            return
        try:
            if inspect.iscoroutinefunction(close):
                await close()
            else:
                result = await asyncio.to_thread(close)
                if inspect.isawaitable(result):
                    await result
        except Exception:
            log.warning("closing tool %s failed", self.name, exc_info=True)


def _as_observation(value: Any, plugin: str) -> Observation:
    if isinstance(value, Observation):
        return value
    if isinstance(value, str):
        return Observation.error(value)
    return Observation.error(f"plugin '{plugin}' returned {type(value).__name__} from tool_call")


def _with_notes(observation: Observation, notes: list[str]) -> Observation:
    if not notes:
        return observation
    note = TextContent(text="Note: " + "; ".join(notes) + ".")
    return observation.model_copy(update={"content": [note, *observation.content]})


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _call_sync(executor: Callable[[Any], Any], action: Any) -> Any:
    result = executor(action)
    if inspect.isawaitable(result):
        return run_sync(_awaited(result))
    return result


def _call_in_thread(executor: Callable[[Any], Any], action: Any, timeout: float) -> Any:
    """Run a sync executor in a daemon thread and stop waiting after ``timeout``."""
    return _start_in_thread(executor, action).result(timeout)


def _start_in_thread(executor: Callable[[Any], Any], action: Any) -> concurrent.futures.Future[Any]:
    """Start a sync executor in a daemon thread; its future holds the outcome."""
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def target() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = _call_sync(executor, action)
        except BaseException as exc:
            if not future.done():
                future.set_exception(exc)
        else:
            if not future.done():
                future.set_result(result)

    threading.Thread(target=target, name="toolplug-call", daemon=True).start()
    return future
