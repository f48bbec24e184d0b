"""Tools that run only as tasks at the 2025-11-25 revision (``execution.taskSupport:
"required"``), for servers that declare ``tasks.requests.tools.call``.

The call is sent with a ``task`` field and answered with a task (``CreateTaskResult``);
``tasks/get`` is polled until the task is done or waits for input, and
``tasks/result`` then gives the tool's result (it also delivers the requests of a task
that waits for input, which the session answers as it answers any such request). When the call's
timeout passes, or its caller gives up, ``tasks/cancel`` is sent.

The MCP SDK checks a ``tools/call`` answer against ``CallToolResult``, which a task is
not, so the call itself is sent one level lower, through the session's dispatcher
(:func:`_send_raw`, the one use of the SDK's private API here).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal

import mcp_types
from pydantic import ConfigDict, Field

from toolplug_mcp.client.tasks import (
    FIRST_POLL,
    GetTask,
    TaskRef,
    answer_of,
    cancel_soon,
    error_result,
)
from toolplug_mcp.errors import TaskTimedOut

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

#: The revision whose task requests this module sends.
REVISION = "2025-11-25"
#: How long the server is asked to keep a task (its ``ttl``), in milliseconds.
TASK_TTL_MS = 10 * 60 * 1000
_WAITING = frozenset({"working"})
_REQUEST_TIMEOUT = -32001


class _TaskResult(mcp_types.Request[TaskRef, Literal["tasks/result"]]):
    method: Literal["tasks/result"] = "tasks/result"
    params: TaskRef


class _TaskState(mcp_types.Result):
    model_config = ConfigDict(populate_by_name=True, extra="allow")

    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval: int | None = Field(default=None, alias="pollInterval")


def serves_tasks(client: Any) -> bool:
    """Whether the connection speaks 2025-11-25 and the server runs tool calls as tasks."""
    session = getattr(client, "session", None)
    if getattr(session, "protocol_version", None) != REVISION:
        return False
    tasks = getattr(client.server_capabilities, "tasks", None)
    requests = getattr(tasks, "requests", None)
    return getattr(getattr(requests, "tools", None), "call", None) is not None


async def call_as_task(
    session: ClientSession, name: str, arguments: dict[str, Any], timeout: float
) -> mcp_types.CallToolResult:
    """Call a tool as a 2025-11-25 task and return its result (see the module)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    # A caller giving up before the answer comes still learns the task's id, and
    # cancels the task on the server (see answer_of).
    answer = await answer_of(
        session,
        _send_raw(
            session,
            "tools/call",
            {"name": name, "arguments": arguments, "task": {"ttl": TASK_TTL_MS}},
            timeout,
        ),
        task_of=_task_id,
    )
    if "task" not in answer:  # the server ran it as a plain call after all
        return mcp_types.CallToolResult.model_validate(answer)
    state = _TaskState.model_validate(answer["task"])
    task_id = state.task_id
    pause = FIRST_POLL
    try:
        while state.status in _WAITING:
            ceiling = (state.poll_interval or 1000) / 1000
            pause = min(pause * 2, max(ceiling, FIRST_POLL))
            await asyncio.sleep(min(pause, _left(deadline, loop, task_id)))
            state = await _request(session, GetTask, task_id, _TaskState, deadline)
        if state.status == "cancelled":
            return error_result(f"Tool '{name}' ran as a task, and the server cancelled it.")
        # Done, failed, or waiting for input: tasks/result gives the outcome (and
        # delivers the questions of a task that waits for input).
        outcome: mcp_types.CallToolResult = await _request(
            session, _TaskResult, task_id, mcp_types.CallToolResult, deadline
        )
        return outcome
    except BaseException:
        cancel_soon(session, task_id)
        raise


def _task_id(answer: dict[str, Any]) -> str | None:
    """The id of the task a ``tools/call`` answer names, if it names one."""
    task = answer.get("task")
    task_id = task.get("taskId") if isinstance(task, dict) else None
    return task_id if isinstance(task_id, str) else None


def _left(deadline: float, loop: asyncio.AbstractEventLoop, task_id: str) -> float:
    left = deadline - loop.time()
    if left <= 0:
        raise TaskTimedOut(f"task {task_id} was cancelled on the server")
    return left


async def _request(
    session: ClientSession, kind: Any, task_id: str, result: Any, deadline: float
) -> Any:
    from mcp import MCPError

    left = _left(deadline, asyncio.get_running_loop(), task_id)
    try:
        return await session.send_request(
            kind(params=TaskRef(task_id=task_id)), result, request_read_timeout_seconds=left
        )
    except MCPError as exc:
        if exc.code == _REQUEST_TIMEOUT:
            raise TaskTimedOut(f"task {task_id} was cancelled on the server") from None
        raise


async def _send_raw(
    session: ClientSession, method: str, params: dict[str, Any], timeout: float
) -> dict[str, Any]:
    """Send a request whose answer the SDK would reject, and return the answer's JSON."""
    data: dict[str, Any] = {"method": method, "params": params}
    opts: Any = {"timeout": timeout}  # the SDK's CallOptions
    stamp = getattr(session, "_stamp", None)
    if callable(stamp):  # what send_request adds for the negotiated revision
        stamp(data, opts)
    raw: dict[str, Any] = await session._dispatcher.send_raw_request(
        method, data.get("params"), opts
    )
    return raw
