"""Progress, log messages and questions from a running tool to its host.

A tool reports while it runs, from inside its executor (sync or async)::

    from toolplug.interaction import ask, log, report_progress

    def executor(action):
        report_progress(1, 3, "copying")
        log("warning", "the cache is cold")
        answer = ask("Overwrite notes.txt?", {"type": "object", "properties": {
            "overwrite": {"type": "boolean"}}})
        ...

A tool can also ask the host's model for a completion (:func:`ask_model`; under
``toolplug mcp serve``, the MCP client's model through sampling).

A host receives them through :class:`Handlers` given to its
:class:`~toolplug.Toolset` (``Toolset.load(handlers=Handlers(on_progress=...))``, or the
shortcuts ``Toolset.load(on_progress=..., on_log=..., on_elicit=...)``).
Each handler may be a plain function or a coroutine function. With no handler,
progress and logs go to Python logging (logger ``toolplug.tools``) and a question is
declined. A handler that raises never breaks the call: it is logged (once per handler,
at WARNING) and ignored, or, for a question, taken as ``decline``.

How it reaches the tool: ``Toolset.call``/``acall``/``dispatch``/``adispatch`` set
:data:`current` (the handlers, the tool's name, the call's id) around each call, and
the core carries it into every thread and event loop it runs executors in. An async
handler runs on the event loop of the async caller (``acall``), where the host's own
clients live; for sync callers, on toolplug's background loop.

Plugins that need the handlers between calls (an MCP client: a server may ask for
sampling at any time) read them from their :class:`~toolplug.ToolContext` with
:func:`handlers_for`, and pass events on with :func:`notify`, :func:`answer` and
:func:`sample`. A tool that has news for its host outside any call (bash: a background
process ended) sends it with :func:`notify_host`, from any thread.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from toolplug import _engine
from toolplug._text import cut
from toolplug.errors import SamplingError

if TYPE_CHECKING:
    import asyncio

    from pydantic import BaseModel

    from toolplug.context import ToolContext

__all__ = [
    "DEFAULT_HANDLERS",
    "NO_SAMPLING",
    "Answer",
    "CallScope",
    "Handlers",
    "LogLevel",
    "LogMessage",
    "Progress",
    "Question",
    "SamplingRequest",
    "aask",
    "aask_model",
    "answer",
    "ask",
    "ask_model",
    "calling",
    "current",
    "handlers_for",
    "log",
    "notify",
    "notify_host",
    "report_progress",
    "sample",
]

T = TypeVar("T")

#: The MCP log levels (RFC 5424's syslog severities), least severe first.
LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

#: Where progress and log messages go when the host gave no handler for them.
logger = logging.getLogger("toolplug.tools")
_own_log = logging.getLogger("toolplug")

_PYTHON_LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}

#: The error a sampling request gets when the host supplied no ``on_sample``.
NO_SAMPLING = "this host does not let MCP servers use its model"


# -- what travels -------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    """What a tool reports while it runs: ``progress`` so far, out of ``total`` if known.

    ``message`` says what is going on (bash puts the output that arrived since the last
    report here). ``call_id`` is the provider's id of the call, when the host gave one.
    """

    tool: str
    call_id: str | None
    progress: float
    total: float | None
    message: str | None


@dataclass(frozen=True)
class LogMessage:
    """A log message from a running tool (or an MCP server), at an MCP log level."""

    tool: str
    call_id: str | None
    level: LogLevel
    message: str
    data: Any = None
    logger: str | None = None


@dataclass(frozen=True)
class Question:
    """A tool (or an MCP server) asks the user something.

    ``schema`` is a flat JSON object schema (MCP's form mode: properties of type
    string, number, integer or boolean, and string enums); the user fills it in.
    ``tool`` is ``None`` when the question comes from outside a call.
    """

    tool: str | None
    message: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """The user's answer: ``accept`` with the form's ``content``, or ``decline``/``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


@dataclass(frozen=True)
class SamplingRequest:
    """An MCP server (or a running tool: ``server`` is then its name) asks the host's
    model for a completion (MCP ``sampling/createMessage``).

    ``messages`` are the server's messages as MCP sends them (``{"role", "content"}``);
    the handler answers with the text of the completion, or an MCP
    ``CreateMessageResult`` as a dict.
    """

    server: str
    messages: list[dict[str, Any]]
    system_prompt: str | None
    max_tokens: int
    temperature: float | None = None
    stop_sequences: list[str] | None = None
    model_preferences: dict[str, Any] | None = None


#: What ``on_sample`` may return (or return an awaitable of).
SampleResult = str | dict[str, Any]


@dataclass(frozen=True)
class Handlers:
    """What a host supplies to hear from its tools; every field optional.

    Each handler may be sync or async. ``on_progress`` gets a :class:`Progress`,
    ``on_log`` a :class:`LogMessage`, ``on_elicit`` a :class:`Question` and returns an
    :class:`Answer`, ``on_sample`` a :class:`SamplingRequest` and returns the
    completion. ``roots`` are directories the host lets tools work in beyond the
    workspace (an MCP client offers them to its servers as roots); any iterable of
    strings or paths is kept as a tuple of strings.

    The value never changes: combine two with :meth:`merged` (or ``defaults |
    override``). Something other than a callable as a handler, or a single string
    as ``roots``, raises :class:`TypeError` naming the field.
    """

    on_progress: Callable[[Progress], Any] | None = None
    on_log: Callable[[LogMessage], Any] | None = None
    on_elicit: Callable[[Question], Answer | Awaitable[Answer]] | None = None
    on_sample: Callable[[SamplingRequest], SampleResult | Awaitable[SampleResult]] | None = None
    roots: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in _HANDLER_FIELDS:
            handler = getattr(self, name)
            if handler is not None and not callable(handler):
                raise TypeError(
                    f"Handlers({name}=...) must be a function (sync or async) or None, "
                    f"got {type(handler).__name__}: {handler!r:.80}"
                )
        # A frozen dataclass: set the normalized value the way its __init__ does.
        object.__setattr__(self, "roots", _as_roots(self.roots, "Handlers(roots=...)"))

    def merged(self, other: Handlers) -> Handlers:
        """These handlers with ``other`` on top: each handler ``other`` sets replaces
        this one's, the rest stay; ``other``'s roots come after these (once each).

        For a host's defaults and a per-toolset or per-call override:
        ``defaults.merged(override)``, also written ``defaults | override``. Returns
        ``self`` itself when ``other`` adds nothing.
        """
        if not isinstance(other, Handlers):
            raise TypeError(
                f"Handlers.merged() takes another Handlers, got {type(other).__name__}; "
                "build one with Handlers(on_progress=..., on_log=..., ...)"
            )
        changes: dict[str, Any] = {
            name: getattr(other, name)
            for name in _HANDLER_FIELDS
            if getattr(other, name) is not None and getattr(other, name) is not getattr(self, name)
        }
        added = tuple(root for root in dict.fromkeys(other.roots) if root not in self.roots)
        if added:
            changes["roots"] = (*self.roots, *added)
        return replace(self, **changes) if changes else self

    def __or__(self, other: Handlers) -> Handlers:
        if not isinstance(other, Handlers):
            return NotImplemented
        return self.merged(other)


#: The handler fields of :class:`Handlers` (all but ``roots``).
_HANDLER_FIELDS = ("on_progress", "on_log", "on_elicit", "on_sample")


def _as_roots(roots: Any, where: str) -> tuple[str, ...]:
    """Directories given as any iterable of strings or paths, as a tuple of strings; a
    single string or path is a :class:`TypeError` (it would be read letter by letter)."""
    if isinstance(roots, (str, bytes, os.PathLike)):
        raise TypeError(
            f"{where} takes a list of directories, got one: {roots!r}; "
            f"write roots=[{os.fsdecode(roots)!r}]"
        )
    return tuple(os.fsdecode(root) if isinstance(root, bytes) else str(root) for root in roots)


#: The handlers of a host that gave none.
DEFAULT_HANDLERS = Handlers()


def handlers_for(context: ToolContext | None) -> Handlers:
    """The handlers a tool context carries (``Toolset.load`` fills them), else the defaults."""
    handlers = getattr(context, "handlers", None)
    return handlers if isinstance(handlers, Handlers) else DEFAULT_HANDLERS


# -- the current call ---------------------------------------------------------------------


class CallScope(NamedTuple):
    """The call a tool is running in: its host's handlers, its name, the call's id.

    ``loop`` is the event loop of an async caller (async handlers run there), ``None``
    for sync callers. (A named tuple: one is made for every call, and it is cheap.)
    """

    handlers: Handlers
    tool: str
    call_id: str | None = None
    loop: asyncio.AbstractEventLoop | None = None


#: The call running in this context, ``None`` outside calls. ``Toolset.call``/``acall``
#: and dispatch set it around each call (as :func:`calling` does), and the core carries
#: it into the threads and loops the executor runs in.
current: contextvars.ContextVar[CallScope | None] = contextvars.ContextVar(
    "toolplug_interaction", default=None
)


@contextmanager
def calling(
    handlers: Handlers | None,
    tool: str,
    call_id: str | None = None,
    *,
    loop: asyncio.AbstractEventLoop | None = None,
) -> Iterator[CallScope]:
    """Run a block as the call of ``tool``: what ``Toolset.call`` and dispatch do.

    A host that runs tools some other way (``tool.call`` directly) can use it to give
    them handlers. Pass ``loop`` (the running loop) from async code, so that async
    handlers run there.
    """
    scope = CallScope(handlers or DEFAULT_HANDLERS, tool, call_id, loop)
    token = current.set(scope)
    try:
        yield scope
    finally:
        current.reset(token)


def _scope() -> CallScope:
    scope = current.get()
    return scope if scope is not None else CallScope(DEFAULT_HANDLERS, "")


# -- inside a running tool ----------------------------------------------------------------


def report_progress(
    progress: float, total: float | None = None, message: str | None = None
) -> None:
    """Report how far the running tool has got; never raises.

    Goes to the host's ``on_progress``, else to the ``toolplug.tools`` logger at DEBUG.
    From a worker thread this waits for a handler to finish (so reports arrive in
    order, before the call's result); on an event loop, an async handler is scheduled.
    """
    scope = _scope()
    event = Progress(scope.tool, scope.call_id, progress, total, message)
    _deliver(scope, scope.handlers.on_progress, event)


def log(level: LogLevel, message: str, data: Any = None) -> None:
    """Send a log message from the running tool to its host; never raises.

    Goes to the host's ``on_log``, else to the ``toolplug.tools`` logger at the
    matching Python level. An unknown ``level`` is sent as ``"info"``.
    """
    scope = _scope()
    if level not in _PYTHON_LEVELS:
        level = "info"
    event = LogMessage(scope.tool, scope.call_id, level, message, data)
    _deliver(scope, scope.handlers.on_log, event)


def ask(message: str, schema: Mapping[str, Any] | type[BaseModel]) -> Answer:
    """Ask the user a question with a small form, and wait for the answer (sync tools).

    ``schema`` is a flat JSON object schema or a pydantic model (its JSON schema is
    sent; validate ``answer.content`` with it). The answer is the host's
    ``on_elicit``'s, or ``Answer("decline")`` when there is none or it fails. Raises
    ``ValueError`` for a schema that is not a JSON object schema, and ``RuntimeError``
    when called on a running event loop whose handler could not be awaited without
    blocking that loop: an async tool uses :func:`aask`.
    """
    scope = _scope()
    question = Question(scope.tool or None, message, _form(schema))
    handler = scope.handlers.on_elicit
    if handler is None:
        return Answer("decline")
    try:
        result = _run_blocking(handler, question, scope.loop, "ask", "the user's answer")
    except _WouldBlock:
        raise
    except Exception as exc:
        _handler_failed(handler, exc)
        return Answer("decline")
    return _checked(handler, result)


async def aask(message: str, schema: Mapping[str, Any] | type[BaseModel]) -> Answer:
    """Async :func:`ask`, for async tools."""
    scope = _scope()
    question = Question(scope.tool or None, message, _form(schema))
    return await answer(scope.handlers, question, loop=scope.loop)


def ask_model(
    prompt: str | list[dict[str, Any]],
    *,
    system_prompt: str | None = None,
    max_tokens: int = 1000,
    temperature: float | None = None,
) -> SampleResult:
    """Ask the host's model for a completion, and wait for it (sync tools).

    ``prompt`` is the user's text, or messages as MCP has them (``{"role", "content"}``).
    The answer is the host's ``on_sample``'s: the completion's text, or an MCP
    ``CreateMessageResult`` as a dict. Under ``toolplug mcp serve`` that is the MCP
    client's model (``sampling/createMessage``). Raises
    :class:`~toolplug.errors.SamplingError` when the host has no model to offer
    (:data:`NO_SAMPLING`) or its handler fails, and ``RuntimeError`` on a running event
    loop whose handler could not be awaited without blocking it: an async tool uses
    :func:`aask_model`.
    """
    scope = _scope()
    request = _sampling_request(scope, prompt, system_prompt, max_tokens, temperature)
    handler = scope.handlers.on_sample
    if handler is None:
        raise SamplingError(NO_SAMPLING)
    try:
        result = _run_blocking(handler, request, scope.loop, "ask_model", "the model")
    except _WouldBlock:
        raise
    except Exception as exc:
        raise SamplingError(f"the host's model could not answer: {exc}") from exc
    return _completion(result)


async def aask_model(
    prompt: str | list[dict[str, Any]],
    *,
    system_prompt: str | None = None,
    max_tokens: int = 1000,
    temperature: float | None = None,
) -> SampleResult:
    """Async :func:`ask_model`, for async tools."""
    scope = _scope()
    request = _sampling_request(scope, prompt, system_prompt, max_tokens, temperature)
    return await sample(scope.handlers, request, loop=scope.loop)


def _sampling_request(
    scope: CallScope,
    prompt: str | list[dict[str, Any]],
    system_prompt: str | None,
    max_tokens: int,
    temperature: float | None,
) -> SamplingRequest:
    if isinstance(prompt, str):
        messages = [{"role": "user", "content": {"type": "text", "text": prompt}}]
    else:
        messages = list(prompt)
    return SamplingRequest(scope.tool, messages, system_prompt, max_tokens, temperature)


# -- for plugins that pass events on between calls (an MCP client) -----------------------


async def notify(
    handlers: Handlers,
    event: Progress | LogMessage,
    *,
    loop: asyncio.AbstractEventLoop | None = None,
) -> None:
    """Give a progress report or log message to the host's handler; never raises.

    ``loop`` is where an async handler runs (default: the current loop).
    """
    handler: Callable[[Any], Any] | None = (
        handlers.on_progress if isinstance(event, Progress) else handlers.on_log
    )
    if handler is None:
        _to_logging(event)
        return
    try:
        result = handler(event)
        if inspect.isawaitable(result):
            await _engine.await_on(result, loop)
    except Exception as exc:
        _handler_failed(handler, exc)


def notify_host(target: ToolContext | Handlers | None, event: Progress | LogMessage) -> None:
    """Tell the host something outside any call (no caller waits, no call's scope); never
    raises, and may be called from any thread.

    ``target`` is the tool's context (its host's handlers: :func:`handlers_for`) or the
    handlers themselves. A sync handler runs in the calling thread (keep it quick); an
    async one is started on toolplug's background loop and not waited for, so a slow
    host never holds the tool up. With no handler, the event goes to the
    ``toolplug.tools`` logger, as in a call; a handler that raises is logged and ignored.
    """
    handlers = target if isinstance(target, Handlers) else handlers_for(target)
    handler: Callable[[Any], Any] | None = (
        handlers.on_progress if isinstance(event, Progress) else handlers.on_log
    )
    if handler is None:
        _to_logging(event)
        return
    try:
        result = handler(event)
        if inspect.isawaitable(result):
            running = _engine.running_loop()
            if running is not None and running is _engine.background_loop():
                task = running.create_task(_engine.as_coroutine(result))
                _pending.add(task)
                task.add_done_callback(lambda t: _settled(t, handler))
            else:
                future = _engine.submit(result)
                future.add_done_callback(lambda f: _settled(f, handler))
    except Exception as exc:
        _handler_failed(handler, exc)


async def answer(
    handlers: Handlers, question: Question, *, loop: asyncio.AbstractEventLoop | None = None
) -> Answer:
    """The host's answer to a question: ``decline`` with no handler or a failing one."""
    handler = handlers.on_elicit
    if handler is None:
        return Answer("decline")
    try:
        result = handler(question)
        if inspect.isawaitable(result):
            result = await _engine.await_on(result, loop)
    except Exception as exc:
        _handler_failed(handler, exc)
        return Answer("decline")
    return _checked(handler, result)


async def sample(
    handlers: Handlers,
    request: SamplingRequest,
    *,
    loop: asyncio.AbstractEventLoop | None = None,
) -> SampleResult:
    """The host model's completion for an MCP server's sampling request.

    Raises :class:`~toolplug.errors.SamplingError` (with :data:`NO_SAMPLING`) when the
    host has no ``on_sample``, and with the handler's own error when it fails or
    answers with something that is neither text nor a dict: the client sends that to
    the server as the request's error.
    """
    handler = handlers.on_sample
    if handler is None:
        raise SamplingError(NO_SAMPLING)
    try:
        result = handler(request)
        if inspect.isawaitable(result):
            result = await _engine.await_on(result, loop)
    except Exception as exc:
        raise SamplingError(f"the host's model could not answer: {exc}") from exc
    return _completion(result)


def _completion(result: Any) -> SampleResult:
    if not isinstance(result, (str, dict)):
        raise SamplingError(
            f"the host's sampling handler returned {type(result).__name__}, "
            "not the completion's text or a CreateMessageResult dict"
        )
    return result


# -- delivering ---------------------------------------------------------------------------


class _WouldBlock(RuntimeError):
    """What a sync ``ask``/``ask_model`` on an event loop raises: use the async variant."""


def _deliver(scope: CallScope, handler: Callable[[Any], Any] | None, event: Any) -> None:
    """Give ``event`` to ``handler`` (or to logging); never raises."""
    if handler is None:
        _to_logging(event)
        return
    try:
        result = handler(event)
        if inspect.isawaitable(result):
            _send_off(result, scope.loop, handler)
    except Exception as exc:
        _handler_failed(handler, exc)


def _send_off(
    awaitable: Awaitable[Any], loop: asyncio.AbstractEventLoop | None, handler: Any
) -> None:
    """Run an async handler's result: waited for from a thread, scheduled on a loop."""
    running = _engine.running_loop()
    target = _engine.open_loop(loop)
    if running is not None and (target is None or target is running):
        task = running.create_task(_engine.as_coroutine(awaitable))
        _pending.add(task)
        task.add_done_callback(lambda t: _settled(t, handler))
        return
    future = _engine.submit(awaitable, target)
    if running is not None:  # on another loop: waiting could block the one we need
        future.add_done_callback(lambda f: _settled(f, handler))
        return
    try:
        _engine.wait(future, None)
    except Exception as exc:
        _handler_failed(handler, exc)


def _run_blocking(
    handler: Callable[[Any], Any],
    payload: Any,
    loop: asyncio.AbstractEventLoop | None,
    name: str,
    waits_for: str,
) -> Any:
    """Call a handler from a sync tool and wait for its (possibly async) result.

    Raises ``RuntimeError`` naming the async variant (``a{name}``) when the result
    could only be awaited by blocking the event loop this tool runs on.
    """
    try:
        result = handler(payload)
        if inspect.isawaitable(result):
            result = _wait_for(result, loop)
    except _engine.OnTheLoop:
        raise _WouldBlock(
            f"{name}() waits for {waits_for} and would block the event loop this tool "
            f"runs on; an async tool uses 'await a{name}(...)'"
        ) from None
    return result


def _wait_for(awaitable: Awaitable[T], loop: asyncio.AbstractEventLoop | None) -> T:
    """Wait, from sync code, for an async handler's result on ``loop`` (the caller's),
    else on the background loop; :class:`_engine.OnTheLoop` when this thread runs the
    loop it would have to wait for."""
    running = _engine.running_loop()
    if running is not None and _engine.open_loop(loop) is None:
        loop = running  # on a loop with no caller's loop: the handler's home is this one
    return _engine.run(awaitable, None, loop)


#: Handler tasks scheduled on a loop (kept so that they are not garbage-collected).
_pending: set[Any] = set()


def _settled(done: asyncio.Future[Any] | _engine.Future[Any], handler: Any) -> None:
    _pending.discard(done)
    if done.cancelled():
        return
    exc = done.exception()
    if isinstance(exc, Exception):
        _handler_failed(handler, exc)


def _to_logging(event: Progress | LogMessage) -> None:
    who = event.tool or "a tool"
    if isinstance(event, Progress):
        if logger.isEnabledFor(logging.DEBUG):
            amount = f"{event.progress:g}" + (f"/{event.total:g}" if event.total else "")
            text = f": {cut(event.message)}" if event.message else ""
            logger.debug("%s progress %s%s", who, amount, text)
        return
    extra = f" {event.data!r}" if event.data is not None else ""
    logger.log(_PYTHON_LEVELS[event.level], "%s: %s%s", who, event.message, extra)


_failed_once: set[int] = set()
_failed_lock = threading.Lock()


def _handler_failed(handler: Any, exc: BaseException) -> None:
    """Log a handler's failure: at WARNING the first time for that handler, then DEBUG."""
    key = id(getattr(handler, "__func__", handler))
    with _failed_lock:
        first = key not in _failed_once
        _failed_once.add(key)
    name = getattr(handler, "__qualname__", None) or repr(handler)
    level = logging.WARNING if first else logging.DEBUG
    more = " (later failures of it are logged at DEBUG)" if first else ""
    _own_log.log(level, "the host's handler %s raised; ignored%s", name, more, exc_info=exc)


def _checked(handler: Any, result: Any) -> Answer:
    """An ``on_elicit`` result as an :class:`Answer`; anything else is a decline."""
    if isinstance(result, Answer) and result.action in ("accept", "decline", "cancel"):
        return result
    _handler_failed(
        handler, TypeError(f"on_elicit returned {type(result).__name__}, not an Answer")
    )
    return Answer("decline")


def _form(schema: Mapping[str, Any] | type[BaseModel]) -> dict[str, Any]:
    """The JSON object schema of a question, from a dict or a pydantic model."""
    to_schema = getattr(schema, "model_json_schema", None)
    form: dict[str, Any]
    if isinstance(schema, type) and callable(to_schema):
        form = dict(to_schema())
    elif isinstance(schema, Mapping):
        form = dict(schema)
    else:
        raise ValueError(
            f"a question's schema is a JSON object schema or a pydantic model, not {schema!r}"
        )
    if form.get("type") != "object" or not isinstance(form.get("properties", {}), Mapping):
        raise ValueError(
            "a question's schema must be a JSON object schema "
            '({"type": "object", "properties": {...}})'
        )
    return form
