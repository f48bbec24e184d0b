"""Dispatch: run a batch of tool calls as a provider sent them, answer in its shape.

::

    messages += toolset.dispatch(message.tool_calls)          # OpenAI Chat Completions
    items += toolset.dispatch(response.output)                # OpenAI Responses
    messages.append(tool_result_message(toolset.dispatch(message.content)))  # Anthropic
    contents.append(tool_result_message(toolset.dispatch(response), "gemini"))  # Gemini

The format is detected from the calls (or given as ``format=``) among the registered
formats (see :mod:`toolplug.formats`): ``"openai"`` (Chat Completions ``tool_calls``),
``"responses"`` (``function_call`` items), ``"anthropic"`` (``tool_use`` blocks),
``"gemini"`` (``functionCall`` parts), ``"bedrock"`` (``toolUse`` blocks), ``"mcp"``
(``tools/call`` params), ``"toolplug"`` (:class:`ToolCall`), or a plugin's. Results come
back in call order, one per call, ids matched.

Calls run side by side where they do not conflict. A call touches what its tool's
:meth:`~toolplug.ToolDefinition.touches` says: read-only tools touch nothing and always
run concurrently; a call that touches something unknown (``None``) runs alone, in order.
By default every call that touches something runs in the order given; with
``allow_parallel=True`` such calls run concurrently when their sets do not intersect.
At most ``max_concurrency`` calls run at once. In a sync host the calling thread runs
the calls itself, and a helper thread joins whenever a call is still running after
about a millisecond while others wait to start: a batch of quick calls never starts a
thread, and calls that wait for each other always get to run side by side, however
fast the tool was last time. In an async host, async tools run as tasks and sync ones
in worker threads (never too few for the calls that may run at once).

With tools deferred (:meth:`~toolplug.Toolset.defer`), the results of a provider's own
tool search in the batch (Anthropic's ``tool_search_tool_result`` blocks, OpenAI
Responses' ``tool_search_output`` items) are not calls: they mark the tools they load
revealed (see :mod:`toolplug.deferral`).

A call to an unknown tool, with malformed arguments, or to a tool that fails becomes an
error result for that call alone. Latent tools (no executor: the model itself produces
the "result") are validated, not run; their result is a :class:`LatentObservation`.
"""

from __future__ import annotations

import asyncio
import collections
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, overload

from pydantic import Field

from toolplug import _engine
from toolplug.arguments import notes_text, parse_arguments, unreadable
from toolplug.content import ContentBlock, TextContent
from toolplug.definition import ToolDefinition
from toolplug.errors import ArgumentError, DispatchError, ToolError
from toolplug.formats import ToolFormat, default_formats
from toolplug.formats.forms import Native, NativeForm, native_tools
from toolplug.interaction import DEFAULT_HANDLERS, CallScope, Handlers, current
from toolplug.model import Observation, ToolCall
from toolplug.names import NameMap, name_map, provider_name, unknown_tool_message
from toolplug.runner import describe

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "DEFAULT_CONCURRENCY",
    "BatchOptions",
    "DispatchError",
    "DispatchOptions",
    "LatentObservation",
    "NameMap",
    "ToolCall",
    "adispatch",
    "dispatch",
    "name_map",
    "provider_name",
    "tool_result_message",
]

AnyTool = ToolDefinition[Any, Any]
#: How many calls run at once unless the host says otherwise.
DEFAULT_CONCURRENCY = 8
_NOTHING: frozenset[str] = frozenset()


class BatchOptions(TypedDict, total=False):
    """How a batch of calls runs: the keywords :func:`dispatch`, :func:`adispatch` and
    :func:`~toolplug.compose.run_composed` (and the toolset's methods) take.

    ``max_concurrency``: at most this many calls at once (default
    :data:`DEFAULT_CONCURRENCY`); ``allow_parallel``: calls that touch things run side by
    side when what they touch does not overlap; ``timeout``: seconds, for each call.
    """

    max_concurrency: int
    allow_parallel: bool
    timeout: float | None


class DispatchOptions(BatchOptions, total=False):
    """:class:`BatchOptions`, ``format``: the calls' format, when it is not to be
    detected (a registered format's name), and ``native``: which tools' calls come in
    their native form (``True``, ``False`` or tool names; see
    :mod:`toolplug.formats.forms`); by default, those the toolset last exported so."""

    format: str | None
    native: Native | None


class LatentObservation(Observation):
    """The result of a latent tool: the arguments the model produced, validated.

    ``data`` is the validated action as JSON data; it is also the MCP
    ``structuredContent`` and, as JSON text, what the model sees.
    """

    data: dict[str, Any] = Field(default_factory=dict, description="The validated arguments.")

    def structured_content(self) -> dict[str, Any] | None:
        """The validated arguments."""
        return None if self.is_error else self.data


# -- planning -----------------------------------------------------------------------------


@dataclass(slots=True)
class _Job:
    call: ToolCall
    tool: AnyTool | None
    result: Observation | None  # known before running: unknown tool, latent tool
    key: frozenset[str] | None = _NOTHING  # what the call touches; None: unknown
    handlers: Handlers | None = None  # the toolset's: the call's progress, logs, questions
    form: NativeForm | None = None  # the native form the call came in, if any
    arguments: Any = None  # the tool's own arguments (a native call's, translated)


def _unknown(tools: Mapping[str, AnyTool], name: str, names: NameMap | None) -> Observation:
    known = [names.external(n) if names else n for n in tools]
    aliases: dict[str, str] = getattr(tools, "aliases", dict)()
    return Observation.error(unknown_tool_message(name, known, aliases=aliases))


def _latent(tool: AnyTool, call: ToolCall) -> Observation:
    """Validate a latent tool's call; its arguments are its result."""
    try:
        action, notes = tool.parse_action(call.arguments)
        data = action.model_dump(mode="json")
        text = json.dumps(data, ensure_ascii=False)
    except ArgumentError as exc:
        return Observation.error(f"Tool '{tool.name}': {exc}")
    except Exception as exc:  # too deep or too long to read, or a broken parse_action
        return Observation.error(f"Tool '{tool.name}': {unreadable(exc) or describe(exc)}")
    content: list[ContentBlock] = [TextContent(text=text)]
    if notes:
        content.insert(0, TextContent(text=notes_text(notes)))
    return LatentObservation(content=content, data=data)


def _touches(tool: AnyTool, arguments: Any, allow_parallel: bool) -> frozenset[str] | None:
    """What a call touches; a call that touches something is ``None`` unless allowed."""
    if type(tool).touches is ToolDefinition.touches:  # the default: skip parsing
        key: frozenset[str] | None = _NOTHING if tool.read_only else None
    else:
        try:
            action, _ = tool.parse_action(arguments)
        except Exception:  # the call fails at once, without running
            return _NOTHING
        try:
            found = tool.touches(action)
            key = None if found is None else frozenset(found)
        except Exception:  # a broken touches() means "unknown"
            key = None
    if key and not allow_parallel:
        return None
    return key


def _find(tools: Mapping[str, AnyTool], name: str, names: NameMap) -> AnyTool | None:
    """The tool called ``name``: by its own name or alias, or the name providers saw."""
    find = getattr(tools, "find", tools.get)  # a Toolset also knows its tools' aliases
    tool = find(name)
    if tool is None:
        internal = names.internal(name)
        tool = tools.get(internal) if internal is not None else None
    return tool


def _native_job(call: ToolCall, tool: AnyTool, form: NativeForm) -> _Job:
    """A native call's job: its input translated to the tool's arguments, or an error
    result the model can act on when the input does not fit."""
    try:
        data, _ = parse_arguments(call.arguments)
        if not isinstance(data, dict):
            raise ArgumentError(f"the input must be a JSON object, not {type(data).__name__}")
        arguments = form.arguments(data)
    except Exception as exc:  # ArgumentError, or a form's ValueError/KeyError...
        message = str(exc) if isinstance(exc, ArgumentError) else describe(exc)
        return _Job(call, tool, Observation.error(f"Tool '{call.name}': {message}"), form=form)
    return _Job(call, tool, None, form=form, arguments=arguments)


def _plan(
    tools: Mapping[str, AnyTool],
    fmt: ToolFormat,
    calls: Sequence[ToolCall],
    allow_parallel: bool,
    natives: Mapping[str, tuple[AnyTool, NativeForm]],
) -> list[_Job]:
    names = name_map(tools)
    found: dict[str, AnyTool | None] = {}  # by name, for this batch
    default_keys: dict[str, frozenset[str] | None] = {}  # for tools with default touches()
    jobs: list[_Job] = []
    for call in calls:
        name = call.name
        if name in natives:  # the tool's native form: translated, then as any call
            job = _native_job(call, *natives[name])
            if job.result is None:
                job.key = _touches(job.tool, job.arguments, allow_parallel)  # type: ignore[arg-type]
            jobs.append(job)
            continue
        if name in found:
            tool = found[name]
        else:
            tool = found[name] = _find(tools, name, names)
        if tool is None:
            shown = names if fmt.maps_names else None
            jobs.append(_Job(call, None, _unknown(tools, name, shown)))
        elif tool.executor is None:
            jobs.append(_Job(call, tool, _latent(tool, call)))
        elif name in default_keys:
            jobs.append(_Job(call, tool, None, default_keys[name], arguments=call.arguments))
        else:
            key = _touches(tool, call.arguments, allow_parallel)
            if type(tool).touches is ToolDefinition.touches:  # the same for every call
                default_keys[name] = key
            jobs.append(_Job(call, tool, None, key, arguments=call.arguments))
    return jobs


def _waits(runnable: Sequence[int], jobs: Sequence[_Job]) -> dict[int, list[int]]:
    """For each runnable job, the earlier jobs it must wait for (transitively enough)."""
    waits: dict[int, list[int]] = {}
    barrier = -1  # the last job that touches something unknown
    since: list[int] = []  # jobs with known sets after the barrier
    last: dict[str, int] = {}  # the last job touching each thing
    for i in runnable:
        key = jobs[i].key
        if key is None:
            waits[i] = since or ([barrier] if barrier >= 0 else [])
            barrier, since, last = i, [], {}
        elif not key:
            waits[i] = []
        else:
            before = {last[thing] for thing in key if thing in last}
            if barrier >= 0:
                before.add(barrier)
            waits[i] = sorted(before)
            last.update(dict.fromkeys(key, i))
            since.append(i)
    return waits


def _in_order(runnable: Sequence[int], jobs: Sequence[_Job], limit: int) -> bool:
    return limit <= 1 or len(runnable) <= 1 or all(jobs[i].key is None for i in runnable)


# -- running ------------------------------------------------------------------------------


def _call(
    job: _Job, timeout: float | None, loop: asyncio.AbstractEventLoop | None = None
) -> Observation:
    """Run one job (``loop``: the async caller's, when run in a thread for adispatch)."""
    assert job.tool is not None
    token = current.set(_scope(job, loop))
    try:
        return job.tool.call(job.arguments, timeout=timeout)
    except Exception as exc:  # call() never raises; this is the last guard
        return Observation.error(f"Tool '{job.tool.name}' failed: {describe(exc)}")
    finally:
        current.reset(token)


async def _acall(job: _Job, timeout: float | None) -> Observation:
    assert job.tool is not None
    token = current.set(_scope(job, asyncio.get_running_loop()))
    try:
        return await job.tool.acall(job.arguments, timeout=timeout)
    except Exception as exc:
        return Observation.error(f"Tool '{job.tool.name}' failed: {describe(exc)}")
    finally:
        current.reset(token)


def _scope(job: _Job, loop: asyncio.AbstractEventLoop | None) -> CallScope:
    """The call a job's tool runs in: its progress, logs and questions go to the
    toolset's handlers, marked with the provider's call id."""
    assert job.tool is not None
    return CallScope(job.handlers or DEFAULT_HANDLERS, job.tool.name, job.call.id or None, loop)


class _Batch:
    """The jobs of one sync batch: the calling thread runs them, helpers join when slow.

    The calling thread takes ready jobs in call order and runs them itself, so a batch
    of quick calls never starts a thread. While jobs wait to start, the
    engine's watchdog looks at the batch once a tick (about a millisecond): when no
    job started since its last look, every thread of the batch is in a slow call, and
    a helper (one of the engine's worker threads) joins for each job waiting (at most
    ``limit`` threads in all). A helper takes ready jobs until none is left, then leaves.

    Nothing is predicted: a slow or blocking call (the network, a subprocess, a call
    that waits for another call of the batch) gets company within about a tick,
    whatever the tool did last time. No ready job waits longer than that behind busy
    threads while fewer than ``limit`` run, so jobs that wait for each other meet.
    """

    def __init__(
        self, jobs: list[_Job], waits: dict[int, list[int]], limit: int, timeout: float | None
    ) -> None:
        self.jobs = jobs
        self.limit = limit
        self.timeout = timeout
        # Jobs that may start. Threads take them without the lock (a deque's appends
        # and pops are thread-safe); what is under the lock is below.
        self.ready: collections.deque[int] = collections.deque()
        self.blocked: dict[int, int] = {}  # job -> how many jobs it still waits for
        self.unblocks: dict[int, list[int]] = {}  # job -> the jobs that wait for it
        for i, before in waits.items():
            if not before:
                self.ready.append(i)
                continue
            self.blocked[i] = len(before)
            for j in before:
                self.unblocks.setdefault(j, []).append(i)
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.pushed = len(self.ready)  # jobs ever made ready: pushed - len(ready) started
        self.seen = -1  # jobs started at the watchdog's last look
        self.helpers = 0  # helper threads alive
        self.watched = False  # whether the watchdog looks at this batch

    def work(self, i: int | None = None) -> None:
        """Run job ``i`` (if given), then take ready jobs and run them until none is left."""
        jobs, ready, timeout, unblocks = self.jobs, self.ready, self.timeout, self.unblocks
        while True:
            if i is None:
                try:
                    i = ready.popleft()
                except IndexError:
                    return
            try:
                jobs[i].result = _call(jobs[i], timeout)
            finally:  # even on KeyboardInterrupt: the jobs after it must not wait forever
                if jobs[i].result is None:
                    jobs[i].result = Observation.error(f"Tool '{jobs[i].call.name}' was stopped.")
                if i in unblocks:
                    self.release(unblocks[i])
            i = None

    def release(self, after: list[int]) -> None:
        """A job has finished: the jobs that waited only for it may start."""
        with self.lock:
            for j in after:
                self.blocked[j] -= 1
                if not self.blocked[j]:
                    self.ready.append(j)
                    self.pushed += 1
            self.changed.notify()  # the calling thread may wait for ready jobs
            self.watch()

    def watch(self) -> None:
        """Have the watchdog look while jobs wait to start (with ``lock`` held)."""
        if not self.watched and self.ready and self.helpers + 1 < self.limit:
            self.watched = True
            self.seen = self.pushed - len(self.ready)
            _engine.watchdog.watch(self)

    def run(self) -> None:
        """Run the whole batch; the calling thread returns when every job has finished."""
        try:
            first = self.ready.popleft()  # the first job never waits: it is ready
            with self.lock:
                self.watch()
            self.work(first)
            while True:
                with self.lock:
                    # Helpers still at work may make more jobs ready.
                    while self.helpers and not self.ready:
                        self.changed.wait()
                    if not self.ready:  # nothing ready, nothing running: all done
                        return
                self.work()
        except BaseException:
            self.ready.clear()  # the host is interrupted: start nothing more
            raise
        finally:
            if self.watched:  # else the watchdog lets go at its next look
                _engine.watchdog.forget(self)

    def look(self) -> None:
        """The watchdog's look: if no job started since the last one, every thread is in
        a slow call, so a helper joins for each job waiting (up to ``limit`` threads)."""
        with self.lock:
            threads = 1 + self.helpers
            if not self.ready or threads >= self.limit:
                self.watched = False  # watched again when jobs wait to start (release)
                _engine.watchdog.forget(self)
                return
            started = self.pushed - len(self.ready)
            if started != self.seen:  # progress: look again next tick
                self.seen = started
                return
            wanted = min(len(self.ready), self.limit - threads)
            self.helpers += wanted
            self.seen = started + wanted  # the helpers' first jobs are not progress
        for count in range(wanted):
            try:
                _engine.in_thread(self.assist)
            except RuntimeError:  # no more threads: the running ones carry on alone
                with self.lock:
                    self.helpers -= wanted - count
                    self.changed.notify()
                return

    def assist(self) -> None:
        """A helper thread's life: take ready jobs until there is none."""
        try:
            self.work()
        finally:
            with self.lock:
                self.helpers -= 1
                self.changed.notify()


def _is_async(job: _Job) -> bool:
    return job.tool is not None and job.tool.is_async


async def _run_tasks(
    jobs: list[_Job], waits: dict[int, list[int]], limit: int, timeout: float | None
) -> None:
    """Run the jobs as tasks, at most ``limit`` at once, each after those it waits for.

    Async tools run on the loop. Sync ones run in the engine's worker threads, which
    are never too few: calls that wait for each other each need a thread, and the
    loop's shared pool may be smaller than ``limit`` or busy with other work.
    """
    slots = asyncio.Semaphore(limit)
    tasks: dict[int, asyncio.Task[None]] = {}
    loop = asyncio.get_running_loop()
    in_threads = {i for i in waits if not _is_async(jobs[i])}

    async def run(i: int) -> None:
        if waits[i]:
            await asyncio.wait([tasks[j] for j in waits[i]])
        async with slots:
            if i in in_threads:
                jobs[i].result = await _engine.to_thread(_call, jobs[i], timeout, loop)
            else:
                jobs[i].result = await _acall(jobs[i], timeout)

    for i in waits:
        tasks[i] = asyncio.ensure_future(run(i))
    await asyncio.gather(*tasks.values())


def _render(fmt: ToolFormat, jobs: Iterable[_Job]) -> list[Any]:
    results: list[Any] = []
    for job in jobs:
        assert job.result is not None
        if job.form is None:
            results.append(fmt.render_result(job.call, job.result))
        else:
            results.append(_render_native(fmt, job.form, job.call, job.result))
    return results


def _render_native(
    fmt: ToolFormat, form: NativeForm, call: ToolCall, observation: Observation
) -> Any:
    """A native call's result in its form's shape; a form that fails to render answers
    with its plain error result (in the native shape where it can), never a raise."""
    try:
        return form.render_result(call, observation, fmt)
    except Exception as exc:
        failed = Observation.error(
            f"Tool '{call.name}' ran, but its result could not be rendered: {describe(exc)}"
        )
        try:
            return form.render_result(call, failed, fmt)
        except Exception:
            return fmt.render_result(call, failed)


def _natives(
    tools: Mapping[str, AnyTool], native: Native | None
) -> dict[str, dict[str, tuple[AnyTool, NativeForm]]]:
    """The tools whose calls come natively, per format: as ``native`` says, else as
    the toolset last exported them."""
    if native is None:
        exported = getattr(tools, "native_exports", None)
        return exported() if callable(exported) else {}
    return native_tools(dict(tools.items()).values(), native)


def _prepare(
    tools: Mapping[str, AnyTool],
    calls: Any,
    max_concurrency: int,
    allow_parallel: bool,
    format: str | None,
    native: Native | None = None,
) -> tuple[ToolFormat, list[_Job], list[int]]:
    """Read the calls and plan the jobs; also the indexes of the jobs left to run."""
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
    formats = getattr(tools, "formats", None) or default_formats()
    try:
        natives = _natives(tools, native)
    except ToolError as exc:  # two tools with one native name
        raise DispatchError(str(exc)) from None
    claims = [form for chosen in natives.values() for _, form in chosen.values()]
    fmt, parsed = formats.parse_calls(calls, format, claims=claims)
    deferral = getattr(tools, "deferral", None)
    if deferral is not None:  # a provider's own tool search loaded tools: they are revealed
        deferral.reveal(formats.revealed(calls))
    jobs = _plan(tools, fmt, parsed, allow_parallel, natives.get(fmt.name, {}))
    handlers = getattr(tools, "handlers", None)
    if isinstance(handlers, Handlers):
        for job in jobs:
            job.handlers = handlers
    return fmt, jobs, [i for i, job in enumerate(jobs) if job.result is None]


@overload
def dispatch(
    tools: Mapping[str, AnyTool],
    calls: Sequence[ToolCall],
    **options: Unpack[DispatchOptions],
) -> list[tuple[ToolCall, Observation]]: ...


@overload
def dispatch(
    tools: Mapping[str, AnyTool],
    calls: Any,
    **options: Unpack[DispatchOptions],
) -> list[Any]: ...


def dispatch(
    tools: Mapping[str, AnyTool],
    calls: Any,
    *,
    max_concurrency: int = DEFAULT_CONCURRENCY,
    allow_parallel: bool = False,
    format: str | None = None,
    timeout: float | None = None,
    native: Native | None = None,
) -> list[Any]:
    """Run a batch of tool calls and return one result per call, in call order.

    ``tools`` is a :class:`~toolplug.Toolset` (or any mapping of names to tools);
    ``calls`` is in any shape a registered format reads (the toolset's formats, else
    :func:`~toolplug.formats.default_formats`; see
    :meth:`~toolplug.formats.FormatRegistry.parse_calls`). Results are in the calls'
    format: Chat Completions ``{"role": "tool"}`` messages, Responses
    ``function_call_output`` items, Anthropic ``tool_result`` blocks (send them in one
    user message: :func:`tool_result_message`), Gemini ``functionResponse`` parts and
    Bedrock ``toolResult`` blocks (likewise), MCP ``CallToolResult`` dicts, or
    ``(ToolCall, Observation)`` pairs for :class:`ToolCall` input. The calling thread
    runs the calls, with helper threads beside a call that is slow (see the module's
    notes); async executors run on the core's background loop. ``timeout`` (seconds)
    applies to each call. Never raises for a call's failure; raises
    :class:`DispatchError` only for input in no known shape.

    ``native`` says which tools' calls come in their native form (see
    :mod:`toolplug.formats.forms`): ``True``, ``False`` or tool names. By default a
    :class:`~toolplug.Toolset` reads them as its last ``export(format, native=...)``
    declared them, and a plain mapping has none. A native call runs like any other
    (the same hooks, policy and output budget), with its input translated to the
    tool's arguments, and is answered in the native result shape.
    """
    fmt, jobs, runnable = _prepare(tools, calls, max_concurrency, allow_parallel, format, native)
    if _in_order(runnable, jobs, max_concurrency):
        for i in runnable:
            jobs[i].result = _call(jobs[i], timeout)
    else:
        _Batch(jobs, _waits(runnable, jobs), max_concurrency, timeout).run()
    return _render(fmt, jobs)


@overload
async def adispatch(
    tools: Mapping[str, AnyTool],
    calls: Sequence[ToolCall],
    **options: Unpack[DispatchOptions],
) -> list[tuple[ToolCall, Observation]]: ...


@overload
async def adispatch(
    tools: Mapping[str, AnyTool],
    calls: Any,
    **options: Unpack[DispatchOptions],
) -> list[Any]: ...


async def adispatch(
    tools: Mapping[str, AnyTool],
    calls: Any,
    *,
    max_concurrency: int = DEFAULT_CONCURRENCY,
    allow_parallel: bool = False,
    format: str | None = None,
    timeout: float | None = None,
    native: Native | None = None,
) -> list[Any]:
    """Async :func:`dispatch`: async executors run as tasks, sync ones in worker threads
    (as many as may run at once)."""
    fmt, jobs, runnable = _prepare(tools, calls, max_concurrency, allow_parallel, format, native)
    if _in_order(runnable, jobs, max_concurrency):
        for i in runnable:
            jobs[i].result = await _acall(jobs[i], timeout)
    else:
        await _run_tasks(jobs, _waits(runnable, jobs), max_concurrency, timeout)
    if any(job.form is not None for job in jobs):
        # A native form may act on its tool as it renders (bash's shell form stops a
        # command the call left running): never on the loop, which other tasks share.
        return await _engine.to_thread(_render, fmt, jobs)
    return _render(fmt, jobs)


def tool_result_message(results: Iterable[Any], format: str = "anthropic") -> Any:
    """The one message that carries a turn's results, for providers that want one.

    Anthropic and Bedrock take every result of a turn in one user message, Gemini in one
    ``Content``; for the other formats this is the list of results itself.
    """
    return default_formats()[format].results_message(list(results))
