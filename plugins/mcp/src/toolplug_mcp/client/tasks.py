"""Task-augmented tools: started as tasks, polled to their result, cancelled on timeout.

Some tools run as *tasks*: the server answers ``tools/call`` at once with a task id,
and the client asks for the task's state until it is done. How a server says so
depends on the protocol revision the connection speaks:

- **2026-07-28** (the ``io.modelcontextprotocol/tasks`` extension, SEP-2663; what
  fastmcp 4 servers speak): a tool no longer says whether it runs as a task. The
  client declares the extension, and the server answers a call it runs as a task
  with ``resultType: "task"``. :class:`TaskRunner` declares it on every connection
  and drives such a result: ``tasks/get`` until the task is done, then its result;
  ``tasks/cancel`` when the call's timeout passes or the caller gives up, even
  while the ``tools/call`` itself was still unanswered (:func:`answer_of`).
- **2025-11-25**: a tool says it in ``execution.taskSupport``. ``optional`` tools are
  called plainly; ``required`` ones are called as that revision's tasks
  (:mod:`~toolplug_mcp.client.tasks_2025`) when the server declares
  ``tasks.requests.tools.call``.

Where tools cannot run as tasks (a server that declares neither), a ``required``
tool is left out of the toolset with a warning (and a line in
``ServerConnection.left_out``) rather than offered to fail with ``-32601 ... requires
task augmentation``.

Imports the MCP SDK: loaded only when a server is opened.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import mcp_types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict, Field, PrivateAttr

from toolplug_mcp.errors import TaskTimedOut

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

log = logging.getLogger("toolplug.mcp")
T = TypeVar("T")

#: The identifier of the tasks extension (SEP-2663).
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: The first pause between two polls, doubled up to the server's ``pollIntervalMs``.
FIRST_POLL = 0.02
#: The longest pause between two polls when the server suggests none.
DEFAULT_POLL = 1.0
#: How long a ``tasks/cancel`` may take before the client stops waiting for it.
CANCEL_TIMEOUT = 5.0
#: How long a call whose caller gave up still waits (in the background) for the
#: server's answer, to learn whether it started a task that must be cancelled.
ANSWER_GRACE = 3.0
_DONE = frozenset({"completed", "failed", "cancelled"})
_REQUEST_TIMEOUT = -32001
# tasks/cancel requests still in flight after their caller left, and answers still
# awaited for one (kept referenced).
_cancelling: set[asyncio.Task[None]] = set()


# -- the wire (the extension's shapes, read from camelCase) ------------------------------


class _TaskFields(mcp_types.Result):
    model_config = ConfigDict(populate_by_name=True, extra="allow")

    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class CreatedTask(_TaskFields):
    """What a server answers to a call it runs as a task."""

    result_type: Literal["task"] = Field(alias="resultType")
    # Set when finish_task takes the task on (from then on it cancels the task when
    # the call ends early), or once the task is cancelled as abandoned.
    _taken: bool = PrivateAttr(default=False)


class PolledTask(_TaskFields):
    """A ``tasks/get`` answer: the state, and the result or error once it is done."""

    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = Field(default=None, alias="inputRequests")


class TaskRef(mcp_types.RequestParams):
    """The params of ``tasks/get``, ``tasks/cancel`` (and ``tasks/result``): the task id."""

    model_config = ConfigDict(populate_by_name=True)

    task_id: str = Field(serialization_alias="taskId")


class GetTask(mcp_types.Request[TaskRef, Literal["tasks/get"]]):
    """Ask for a task's state (the same request at both revisions)."""

    method: Literal["tasks/get"] = "tasks/get"
    params: TaskRef


class CancelTask(mcp_types.Request[TaskRef, Literal["tasks/cancel"]]):
    """Ask the server to stop a task (the same request at both revisions)."""

    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskRef


# -- driving a task ------------------------------------------------------------------------


class TaskRunner(ClientExtension):
    """The client's half of the tasks extension: declared on every connection, it
    turns a task the server started into the tool's result."""

    identifier = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        """The one result shape this extension adds: ``resultType: "task"``."""
        return (
            ResultClaim(
                result_type="task",
                model=CreatedTask,
                resolve=self._finish,
                protocol_versions=frozenset(MODERN_PROTOCOL_VERSIONS),
            ),
        )

    async def _finish(self, task: CreatedTask, ctx: ClaimContext) -> mcp_types.CallToolResult:
        return await finish_task(ctx.session, task, ctx.tool_name, ctx.read_timeout_seconds)


async def finish_task(
    session: ClientSession, task: CreatedTask, tool: str, timeout: float | None
) -> mcp_types.CallToolResult:
    """Poll a task until it is done and return the tool's result.

    A task still running after ``timeout`` seconds, or whose caller is cancelled,
    is cancelled on the server (``tasks/cancel``) before :class:`TaskTimedOut` or the
    cancellation is raised. A failed or cancelled task is an error result; so is one
    that asks for input, which this client cannot answer (it is cancelled too).
    """
    task._taken = True
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    pause = FIRST_POLL
    state: _TaskFields = task
    try:
        # Polled at least once: the result comes with tasks/get, not with the task.
        while state is task or state.status not in _DONE:
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                raise TaskTimedOut(f"task {task.task_id} was cancelled on the server")
            if state is not task:  # the first poll goes at once
                ceiling = (state.poll_interval_ms or DEFAULT_POLL * 1000) / 1000
                pause = min(pause * 2, max(ceiling, FIRST_POLL))
                await asyncio.sleep(pause if left is None else min(pause, left))
            state = await _poll(session, task.task_id, left)
            if state.status == "input_required":
                cancel_soon(session, task.task_id)
                return error_result(
                    f"Tool '{tool}' ran as a task that asked for input, which this host "
                    "cannot answer; the task was cancelled."
                )
    except BaseException:
        # A timeout, the caller's cancellation, a broken connection: the server must
        # not go on with work nobody waits for.
        cancel_soon(session, task.task_id)
        raise
    return _outcome(state, tool)


async def _poll(session: ClientSession, task_id: str, left: float | None) -> PolledTask:
    from mcp import MCPError

    try:
        return await session.send_request(
            GetTask(params=TaskRef(task_id=task_id)),
            PolledTask,
            request_read_timeout_seconds=left,
        )
    except MCPError as exc:
        if exc.code == _REQUEST_TIMEOUT and left is not None:  # the time left ran out
            raise TaskTimedOut(f"task {task_id} was cancelled on the server") from None
        raise


def _outcome(state: _TaskFields, tool: str) -> mcp_types.CallToolResult:
    if state.status == "completed" and isinstance(state, PolledTask):
        return mcp_types.CallToolResult.model_validate(state.result or {})
    if state.status == "failed":
        error = getattr(state, "error", None) or {}
        reason = error.get("message") or state.status_message or "no reason given"
        return error_result(f"Tool '{tool}' ran as a task, and the task failed: {reason}")
    return error_result(f"Tool '{tool}' ran as a task, and the server cancelled it.")


def error_result(text: str) -> mcp_types.CallToolResult:
    """An error ``CallToolResult`` with this text."""
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=text)], is_error=True
    )


def cancel_soon(session: ClientSession, task_id: str) -> None:
    """Send ``tasks/cancel`` in a task of its own, so that it goes out even while the
    caller is being cancelled; a failure to cancel is only logged."""
    _keep(_cancel(session, task_id))


async def _cancel(session: ClientSession, task_id: str) -> None:
    try:
        await session.send_request(
            CancelTask(params=TaskRef(task_id=task_id)),
            mcp_types.Result,
            request_read_timeout_seconds=CANCEL_TIMEOUT,
        )
    except Exception as exc:
        log.info("MCP task %s could not be cancelled: %s", task_id, exc)


def _keep(work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` in a task of its own, waited for by :func:`cancels_sent`."""
    pending = asyncio.ensure_future(work)
    _cancelling.add(pending)
    pending.add_done_callback(_cancelling.discard)


def abandon(session: ClientSession, answer: object) -> None:
    """The call that got ``answer`` ended before it was finished (its caller gave up,
    or it failed): a task it created that :func:`finish_task` never took on is
    cancelled on the server. Any other answer is left as it is."""
    task_id = _untaken(answer)
    if task_id is not None:
        cancel_soon(session, task_id)


async def answer_of(
    session: ClientSession,
    request: Coroutine[Any, Any, T],
    session_ended: asyncio.Future[Any] | None = None,
    task_of: Callable[[Any], str | None] | None = None,
) -> T:
    """Await a request that the server may answer with a task.

    If the caller is cancelled while the request is in flight, its answer may be a
    task already running on the server, whose id only that answer tells. So the
    request is not abandoned with the caller: it goes on in a task of its own, for
    :data:`ANSWER_GRACE` seconds at most (less if ``session_ended`` ends first), and
    a task it created is cancelled on the server (see :func:`abandon`; ``task_of``
    reads the id of the task to cancel from an answer of another shape). The caller's
    cancellation is raised at once.
    """
    pending = asyncio.ensure_future(request)
    try:
        return await asyncio.shield(pending)
    except asyncio.CancelledError:
        _keep(_settle(session, pending, session_ended, task_of or _untaken))
        raise


async def _settle(
    session: ClientSession,
    pending: asyncio.Future[Any],
    session_ended: asyncio.Future[Any] | None,
    task_of: Callable[[Any], str | None],
) -> None:
    """Wait (bounded) for the answer nobody awaits any more, and cancel its task."""
    waiting = {pending} if session_ended is None else {pending, session_ended}
    await asyncio.wait(waiting, timeout=ANSWER_GRACE, return_when=asyncio.FIRST_COMPLETED)
    if not pending.done():  # no answer in time: the request is abandoned after all
        pending.cancel()
        await asyncio.wait({pending}, timeout=CANCEL_TIMEOUT)
        return
    if pending.cancelled() or pending.exception() is not None:
        return
    task_id = task_of(pending.result())
    if task_id is not None:
        await _cancel(session, task_id)


def _untaken(answer: object) -> str | None:
    """The id of a created task nobody has taken on (and now nobody will)."""
    if isinstance(answer, CreatedTask) and not answer._taken:
        answer._taken = True
        return answer.task_id
    return None


async def cancels_sent() -> None:
    """Wait (bounded) for every ``tasks/cancel`` still in flight (before a close)."""
    if _cancelling:
        await asyncio.wait(set(_cancelling), timeout=CANCEL_TIMEOUT)


# -- which tools are offered ---------------------------------------------------------------


def task_support(remote: Any) -> str:
    """A listed tool's ``execution.taskSupport``: ``forbidden`` when it says nothing."""
    execution = getattr(remote, "execution", None)
    return getattr(execution, "task_support", None) or "forbidden"


def runs_tasks(client: Any) -> bool:
    """Whether the server may run calls as tasks of the 2026-07-28 revision: the
    connection speaks it and the server declares the tasks extension."""
    session = getattr(client, "session", None)
    if getattr(session, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
        return False
    extensions = getattr(client.server_capabilities, "extensions", None) or {}
    return TASKS_EXTENSION in extensions


def offered(server: str, tools: list[Any], tasks: bool) -> tuple[list[Any], list[str]]:
    """The tools to offer, and a note for each ``required`` task tool left out.

    ``tasks`` says whether the connection runs tasks, at either revision.
    """
    if tasks:
        return list(tools), []
    kept: list[Any] = []
    notes: list[str] = []
    for remote in tools:
        if task_support(remote) == "required":
            notes.append(
                f"tool '{remote.name}' of MCP server '{server}' runs only as a task "
                "(execution.taskSupport: required), and the server does not declare "
                "that it runs tools as tasks; left out"
            )
        else:
            kept.append(remote)
    for note in notes:
        log.warning("%s", note)
    return kept, notes
