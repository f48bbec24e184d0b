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
At most ``max_concurrency`` calls run at once. In a sync host, the calling thread runs
calls itself and helper threads join when calls take time; a batch whose tools were
all quick (under a millisecond) on their last call runs straight through.

A call to an unknown tool, with malformed arguments, or to a tool that fails becomes an
error result for that call alone. Latent tools (no executor: the model itself produces
the "result") are validated, not run; their result is a :class:`LatentObservation`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import weakref
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from toolplug.content import ContentBlock, TextContent
from toolplug.definition import ToolDefinition
from toolplug.errors import ArgumentError, DispatchError
from toolplug.formats import ToolFormat, default_formats
from toolplug.model import Observation, ToolCall
from toolplug.names import NameMap, name_map, provider_name, unknown_tool_message

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DispatchError",
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
#: A call that finishes within this (seconds) is quick: threads would not speed it up.
_QUICK = 0.001
# Whether each tool's last call was quick. A batch of calls to tools that were all
# quick last time runs straight through in the calling thread.
_quick: weakref.WeakKeyDictionary[AnyTool, bool] = weakref.WeakKeyDictionary()


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


def _unknown(tools: Mapping[str, AnyTool], name: str, names: NameMap | None) -> Observation:
    known = [names.external(n) if names else n for n in tools]
    return Observation.error(unknown_tool_message(name, known))


def _latent(tool: AnyTool, call: ToolCall) -> Observation:
    """Validate a latent tool's call; its arguments are its result."""
    try:
        action, notes = tool.parse_action(call.arguments)
    except ArgumentError as exc:
        return Observation.error(f"Tool '{tool.name}': {exc}")
    data = action.model_dump(mode="json")
    content: list[ContentBlock] = [TextContent(text=json.dumps(data, ensure_ascii=False))]
    if notes:
        content.insert(0, TextContent(text="Note: " + "; ".join(notes) + "."))
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
    """The tool called ``name``, by its own name or the name providers were shown."""
    tool = tools.get(name)
    if tool is None:
        internal = names.internal(name)
        tool = tools.get(internal) if internal is not None else None
    return tool


def _plan(
    tools: Mapping[str, AnyTool], fmt: ToolFormat, calls: Sequence[ToolCall], allow_parallel: bool
) -> list[_Job]:
    names = name_map(tools)
    found: dict[str, AnyTool | None] = {}  # by name, for this batch
    default_keys: dict[str, frozenset[str] | None] = {}  # for tools with default touches()
    jobs: list[_Job] = []
    for call in calls:
        name = call.name
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
            jobs.append(_Job(call, tool, None, default_keys[name]))
        else:
            key = _touches(tool, call.arguments, allow_parallel)
            if type(tool).touches is ToolDefinition.touches:  # the same for every call
                default_keys[name] = key
            jobs.append(_Job(call, tool, None, key))
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


def _call(job: _Job, timeout: float | None) -> Observation:
    assert job.tool is not None
    try:
        return job.tool.call(job.call.arguments, timeout=timeout)
    except Exception as exc:  # call() never raises; this is the last guard
        return Observation.error(f"Tool '{job.tool.name}' failed: {type(exc).__name__}: {exc}")


def _timed_call(job: _Job, timeout: float | None) -> Observation:
    """:func:`_call`, noting whether the tool was quick."""
    start = time.perf_counter()
    result = _call(job, timeout)
    _note_quick({job.tool: time.perf_counter() - start < _QUICK})
    return result


def _note_quick(quick: Mapping[AnyTool | None, bool]) -> None:
    for tool, fast in quick.items():
        if tool is not None and _quick.get(tool) is not fast:
            _quick[tool] = fast


def _all_quick(runnable: Sequence[int], jobs: Sequence[_Job]) -> bool:
    tools = {jobs[i].tool for i in runnable}
    return all(tool is not None and _quick.get(tool, False) for tool in tools)


def _run_quick(runnable: Sequence[int], jobs: Sequence[_Job], timeout: float | None) -> None:
    """Run the jobs one by one in call order (which honours every wait), timing them."""
    quick: dict[AnyTool | None, bool] = {}
    for i in runnable:
        job = jobs[i]
        start = time.perf_counter()
        job.result = _call(job, timeout)
        if time.perf_counter() - start >= _QUICK:
            quick[job.tool] = False
        else:
            quick.setdefault(job.tool, True)
    _note_quick(quick)


async def _acall(job: _Job, timeout: float | None) -> Observation:
    assert job.tool is not None
    try:
        return await job.tool.acall(job.call.arguments, timeout=timeout)
    except Exception as exc:
        return Observation.error(f"Tool '{job.tool.name}' failed: {type(exc).__name__}: {exc}")


def _run_threads(
    jobs: list[_Job], waits: dict[int, list[int]], limit: int, timeout: float | None
) -> None:
    """Run each job in a worker thread as soon as the jobs it waits for have finished.

    At most ``limit`` run at once; ready jobs start in call order. Batches of quick
    tools never get here (see :func:`_run_quick`), so a pool per batch costs nothing
    that matters next to the tools it runs.
    """
    unblocks: dict[int, list[int]] = {}
    for i, before in waits.items():
        for j in before:
            unblocks.setdefault(j, []).append(i)
    blocked = {i: len(before) for i, before in waits.items()}
    remaining = len(waits)
    lock = threading.Lock()
    done = threading.Event()
    pool = ThreadPoolExecutor(min(limit, len(waits)), thread_name_prefix="toolplug-dispatch")

    def run(i: int) -> None:
        nonlocal remaining
        try:
            jobs[i].result = _timed_call(jobs[i], timeout)
        finally:  # even on SystemExit from a tool: never leave the batch waiting
            if jobs[i].result is None:
                jobs[i].result = Observation.error(f"Tool '{jobs[i].call.name}' was stopped.")
            with lock:
                now_ready = []
                for j in unblocks.get(i, ()):
                    blocked[j] -= 1
                    if not blocked[j]:
                        now_ready.append(j)
                remaining -= 1
                if not remaining:
                    done.set()
            for j in now_ready:
                pool.submit(run, j)

    for i in sorted(i for i, count in blocked.items() if not count):
        pool.submit(run, i)
    done.wait()
    pool.shutdown(wait=False)


async def _run_tasks(
    jobs: list[_Job], waits: dict[int, list[int]], limit: int, timeout: float | None
) -> None:
    """Run the jobs as tasks, at most ``limit`` at once, each after those it waits for."""
    slots = asyncio.Semaphore(limit)
    tasks: dict[int, asyncio.Task[None]] = {}

    async def run(i: int) -> None:
        if waits[i]:
            await asyncio.wait([tasks[j] for j in waits[i]])
        async with slots:
            jobs[i].result = await _acall(jobs[i], timeout)

    for i in waits:
        tasks[i] = asyncio.ensure_future(run(i))
    await asyncio.gather(*tasks.values())


def _render(fmt: ToolFormat, jobs: Iterable[_Job]) -> list[Any]:
    results: list[Any] = []
    for job in jobs:
        assert job.result is not None
        results.append(fmt.render_result(job.call, job.result))
    return results


def _prepare(
    tools: Mapping[str, AnyTool],
    calls: Any,
    max_concurrency: int,
    allow_parallel: bool,
    format: str | None,
) -> tuple[ToolFormat, list[_Job], list[int]]:
    """Read the calls and plan the jobs; also the indexes of the jobs left to run."""
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
    formats = getattr(tools, "formats", None) or default_formats()
    fmt, parsed = formats.parse_calls(calls, format)
    jobs = _plan(tools, fmt, parsed, allow_parallel)
    return fmt, jobs, [i for i, job in enumerate(jobs) if job.result is None]


def dispatch(
    tools: Mapping[str, AnyTool],
    calls: Any,
    *,
    max_concurrency: int = DEFAULT_CONCURRENCY,
    allow_parallel: bool = False,
    format: str | None = None,
    timeout: float | None = None,
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
    ``(ToolCall, Observation)`` pairs for :class:`ToolCall` input. Sync executors run
    in threads, async ones on the core's background loop. ``timeout`` (seconds) applies
    to each call. Never raises for a call's failure; raises :class:`DispatchError` only
    for input in no known shape.
    """
    fmt, jobs, runnable = _prepare(tools, calls, max_concurrency, allow_parallel, format)
    if _in_order(runnable, jobs, max_concurrency):
        for i in runnable:
            jobs[i].result = _call(jobs[i], timeout)
    elif _all_quick(runnable, jobs):  # threads would only cost time
        _run_quick(runnable, jobs, timeout)
    else:
        _run_threads(jobs, _waits(runnable, jobs), max_concurrency, timeout)
    return _render(fmt, jobs)


async def adispatch(
    tools: Mapping[str, AnyTool],
    calls: Any,
    *,
    max_concurrency: int = DEFAULT_CONCURRENCY,
    allow_parallel: bool = False,
    format: str | None = None,
    timeout: float | None = None,
) -> list[Any]:
    """Async :func:`dispatch`: async executors run as tasks, sync ones in worker threads."""
    fmt, jobs, runnable = _prepare(tools, calls, max_concurrency, allow_parallel, format)
    if _in_order(runnable, jobs, max_concurrency):
        for i in runnable:
            jobs[i].result = await _acall(jobs[i], timeout)
    else:
        await _run_tasks(jobs, _waits(runnable, jobs), max_concurrency, timeout)
    return _render(fmt, jobs)


def tool_result_message(results: Iterable[Any], format: str = "anthropic") -> Any:
    """The one message that carries a turn's results, for providers that want one.

    Anthropic and Bedrock take every result of a turn in one user message, Gemini in one
    ``Content``; for the other formats this is the list of results itself.
    """
    return default_formats()[format].results_message(list(results))
