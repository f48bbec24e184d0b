"""A ``tools/call`` sent with as few turns of the event loop as the answer allows.

Waiting on a request in a task of its own beside the connection's task (so that an
error raised there, such as an HTTP 4xx/5xx, ends the call instead of leaving it
waiting) costs the loop several turns, a measurable part of a call to a quick server
(see the MCP section of ``docs/benchmarks.md``). :func:`call_tool` sends the request
in the caller's own task instead, and the connection's task cancels it if it ends
first, so a failing connection still ends the call with its error. Only an answer that
needs more (SEP-2322 input-required rounds, or a claimed result such as a task) goes
the longer way (:meth:`~toolplug_mcp.client.sdk.SdkClient.monitored`). The call has a
client span, and its trace context goes to the server (:mod:`~toolplug_mcp.client.tracing`).

Where the server runs calls as tasks, a caller that gives up must not leave a task
running on the server: a request in flight is then left to finish in the background
(:func:`~toolplug_mcp.client.tasks.answer_of`), and a task that came back but was never
taken on is cancelled (:func:`~toolplug_mcp.client.tasks.abandon`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import mcp_types

from toolplug_mcp.client.tasks import abandon, answer_of, runs_tasks
from toolplug_mcp.client.tracing import call_span, tool_failed, trace_meta

if TYPE_CHECKING:
    from toolplug_mcp.client.sdk import SdkClient

T = TypeVar("T")


async def call_tool(
    client: SdkClient, name: str, arguments: dict[str, Any], timeout: float, progress: Any
) -> mcp_types.CallToolResult:
    """Call tool ``name`` and return its ``CallToolResult`` (see the module)."""
    session = client._open()
    with call_span(name, client.session_id) as span:
        meta = trace_meta()
        claims = bool(client.claim_by_model)
        session_task = client.session_task
        tasks = runs_tasks(client)
        answers: list[Any] = []  # every answer the server gave (one may be a task)

        async def send(responses: Any, state: str | None) -> Any:
            request = session.call_tool(
                name=name,
                arguments=arguments,
                read_timeout_seconds=timeout or None,
                progress_callback=progress,
                meta=meta,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
                allow_claimed=claims,
            )
            if not tasks:
                return await request
            answer = await answer_of(session, request, session_task)
            answers.append(answer)
            return answer

        try:
            answer = await _watched(session_task, send(None, None))
            if isinstance(answer, mcp_types.CallToolResult):
                result = answer
            else:  # input-required rounds, or a claimed result
                answer = await client.monitored(client.drive_input_required(answer, send))
                if isinstance(answer, mcp_types.CallToolResult):
                    result = answer
                else:
                    resolve = client.resolve_claimed(name, answer, timeout or None)
                    result = await client.monitored(resolve)
        except BaseException:
            # Given up (or failed) between a task's answer and its polling: the
            # polling may be cancelled before it starts, so no one would cancel the task.
            for answer in answers:
                abandon(session, answer)
            raise
        if result.is_error:
            first = result.content[0] if result.content else None
            tool_failed(span, first.text if isinstance(first, mcp_types.TextContent) else "")
        return result


async def _watched(session_task: asyncio.Task[Any] | None, work: Coroutine[Any, Any, T]) -> T:
    """Await ``work`` in this task; if the session's task ends first, ``work`` is
    cancelled and the session's error raised (as :meth:`SdkClient.monitored` does)."""
    if session_task is None:
        return await work
    if session_task.done():
        work.close()
        _session_ended(session_task)
    me = asyncio.current_task()
    assert me is not None  # we run in a task: the caller awaits us
    # ended: the session's task ended while we watched, and cancelled us.
    flags = {"watching": True, "ended": False}

    def on_end(_: asyncio.Task[Any]) -> None:
        if flags["watching"]:  # not a callback scheduled just before we stopped watching
            flags["ended"] = True
            me.cancel()

    session_task.add_done_callback(on_end)
    try:
        result = await work
    except asyncio.CancelledError:
        # Ours (the session ended) unless someone else cancelled us too.
        if not flags["ended"] or uncancel(me) > 0:
            raise
        _session_ended(session_task)
    finally:
        flags["watching"] = False
        session_task.remove_done_callback(on_end)
    if flags["ended"]:  # the work ended in spite of our cancellation
        uncancel(me)
    return result


def _session_ended(session_task: asyncio.Task[Any]) -> NoReturn:
    """Raise what ended the session's task."""
    error = session_task.exception()
    if error:
        raise error
    raise RuntimeError("Session task completed unexpectedly")


def uncancel(task: asyncio.Task[Any]) -> int:
    """Take back our own cancellation request; returns the requests left (Python 3.11+
    counts them; 3.10 does not, and gets 0)."""
    undo, cancelling = getattr(task, "uncancel", None), getattr(task, "cancelling", None)
    if undo is None or cancelling is None:
        return 0
    return int(undo()) if cancelling() > 0 else 0
