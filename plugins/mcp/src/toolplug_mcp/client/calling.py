"""A ``tools/call`` sent as fastmcp's client sends it, with fewer turns of the event loop.

fastmcp's ``Client.call_tool_mcp`` runs the request in a task of its own and waits on
it beside the session's task (so that an error raised in the session's task, such as
an HTTP 4xx/5xx, ends the call instead of leaving it waiting), then does the same again
to drive SEP-2322 input-required rounds, even when the server answered at once. Each
such task costs the loop several turns, which is a measurable part of a call to a quick
server (see the MCP section of ``docs/benchmarks.md``).

:func:`call_tool` sends the same request in the caller's own task, and the session's
task cancels it if it ends first, so a failing session still ends the call with the
session's error. Only an answer that needs more (input-required rounds, or a claimed
result such as a task) is handed to fastmcp's own machinery. The client span and the
trace context sent to the server are fastmcp's, as before.

Where the server runs calls as tasks, a caller that gives up must not leave a task
running on the server: a request in flight is then left to finish in the background
(:func:`~toolplug_mcp.client.tasks.answer_of`), and a task that came back but was never
taken on is cancelled (:func:`~toolplug_mcp.client.tasks.abandon`).

This reads a few private attributes of the pinned fastmcp ``Client``; without them
(another fastmcp), :func:`call_tool` is ``call_tool_mcp`` itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, NoReturn, TypeVar

import mcp_types

from toolplug_mcp.client.tasks import abandon, answer_of, runs_tasks

T = TypeVar("T")

#: The private parts of fastmcp's ``Client`` this module needs.
_NEEDED = (
    "_session_state",
    "_claim_by_model",
    "_progress_handler",
    "_await_with_session_monitoring",
    "_drive_input_required",
    "_resolve_claimed_result",
)


async def call_tool(
    client: Any, name: str, arguments: dict[str, Any], timeout: float, progress: Any
) -> mcp_types.CallToolResult:
    """``client.call_tool_mcp(name, arguments, timeout=timeout, progress_handler=progress)``:
    the same request, the same result or error, the same span (only fastmcp's debug log
    line "called call_tool" is not written); see the module."""
    if not all(hasattr(client, attribute) for attribute in _NEEDED):
        result: mcp_types.CallToolResult = await client.call_tool_mcp(
            name, arguments, timeout=timeout, progress_handler=progress
        )
        return result
    from fastmcp.client.telemetry import client_span
    from fastmcp.telemetry import inject_trace_context
    from opentelemetry.trace import Status, StatusCode

    with client_span(
        f"tools/call {name}",
        "tools/call",
        name,
        session_id=client.transport.get_session_id(),
        tool_name=name,
    ) as span:
        meta = inject_trace_context(None) or None
        claims = bool(client._claim_by_model)
        session_task = client._session_state.session_task
        tasks = runs_tasks(client)
        answers: list[Any] = []  # every answer the server gave (one may be a task)

        async def send(responses: Any, state: str | None) -> Any:
            request = client.session.call_tool(
                name=name,
                arguments=arguments,
                read_timeout_seconds=timeout or None,
                progress_callback=progress or client._progress_handler,
                meta=meta,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
                allow_claimed=claims,
            )
            if not tasks:
                return await request
            answer = await answer_of(client.session, request, session_task)
            answers.append(answer)
            return answer

        try:
            answer = await _watched(session_task, send(None, None))
            if isinstance(answer, mcp_types.CallToolResult):
                result = answer
            else:  # input-required rounds, or a claimed result: fastmcp's own path
                watch = client._await_with_session_monitoring
                answer = await watch(client._drive_input_required(answer, send))
                if isinstance(answer, mcp_types.CallToolResult):
                    result = answer
                else:
                    resolve = client._resolve_claimed_result(name, answer, timeout or None)
                    result = await watch(resolve)
        except BaseException:
            # Given up (or failed) between a task's answer and its polling: fastmcp
            # may cancel the polling before it starts, so no one would cancel the task.
            for answer in answers:
                abandon(client.session, answer)
            raise
        if result.is_error and span.is_recording():
            first = result.content[0] if result.content else None
            text = first.text if isinstance(first, mcp_types.TextContent) else ""
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR, text))
        return result


async def _watched(session_task: asyncio.Task[Any] | None, work: Coroutine[Any, Any, T]) -> T:
    """Await ``work`` in this task; if the session's task ends first, ``work`` is
    cancelled and the session's error raised (as fastmcp's session monitoring does)."""
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
    """Raise what ended the session's task (as fastmcp does)."""
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
