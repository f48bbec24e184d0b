"""What a served tool reports while it runs, relayed to the MCP client that called it.

The session toolsets of ``toolplug mcp serve`` get :data:`HANDLERS`
(:mod:`toolplug.interaction`): a tool's ``report_progress`` becomes an MCP
``notifications/progress`` (when the client sent a ``progressToken`` with the call),
its ``log`` a ``notifications/message`` (at or above the level the client set with
``logging/setLevel``), its ``ask`` an elicitation request (when the client declared
the ``elicitation`` capability; else the question is declined), and its ``ask_model``
a ``sampling/createMessage`` request (when the client declared ``sampling``; else the
tool gets a ``SamplingError`` saying so). The policy plugin's
questions go the same way (:mod:`~toolplug_mcp.server.approval`).

Each handler finds the calling request through fastmcp's request context, which the
core carries into the threads and tasks a call runs in. Outside a request, a log
message a tool sends between calls (bash: a background process ended) goes to its
session's client as ``notifications/message`` on the connection's own stream (stdio,
or the standalone ``GET`` stream over HTTP; dropped when the client has none), when
the session's handlers came from :func:`session_handlers`; else progress and logs go
to Python logging and questions are declined.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastmcp.server.dependencies import get_context
from toolplug import SamplingError
from toolplug.interaction import (
    Answer,
    Handlers,
    LogMessage,
    Progress,
    Question,
    SampleResult,
    SamplingRequest,
)

log = logging.getLogger("toolplug.mcp")
_tools_log = logging.getLogger("toolplug.tools")


def request_context() -> Any:
    """fastmcp's context of the MCP request being served, or ``None`` outside one."""
    try:
        return get_context()
    except RuntimeError:
        return None


def can_elicit(context: Any) -> bool:
    """Whether the client of this request declared the elicitation capability."""
    return _declared(context, "elicitation")


def _declared(context: Any, capability: str) -> bool:
    try:
        capabilities = context.session.client_capabilities
    except (AttributeError, RuntimeError):
        return False
    return capabilities is not None and getattr(capabilities, capability, None) is not None


async def elicit(context: Any, message: str, schema: Mapping[str, Any]) -> Answer:
    """Ask the client's user (MCP form-mode elicitation) within this request.

    ``decline`` when the client cannot be asked, breaks off, or answers nonsense.
    """
    if not can_elicit(context):
        return Answer("decline")
    try:
        result = await context.session.elicit(
            message=message,
            requested_schema=dict(schema),
            related_request_id=context.request_id,
        )
    except Exception as exc:
        log.warning("an elicitation request to the client failed: %s", exc)
        return Answer("decline")
    if result.action == "accept":
        return Answer("accept", dict(result.content or {}))
    return Answer("cancel" if result.action == "cancel" else "decline")


async def on_progress(event: Progress) -> None:
    """A tool's progress, as ``notifications/progress`` for the call's progress token."""
    context = request_context()
    if context is None:
        _tools_log.debug("%s progress %s: %s", event.tool, event.progress, event.message)
        return
    # fastmcp sends it only when the client gave the call a progressToken.
    await context.report_progress(event.progress, event.total, event.message)


async def on_log(event: LogMessage) -> None:
    """A tool's log message, as ``notifications/message`` (logger: the tool's name)."""
    context = request_context()
    if context is None:
        _tools_log.info("%s: %s", event.tool, event.message)
        return
    extra = None
    if event.data is not None:
        extra = event.data if isinstance(event.data, Mapping) else {"data": event.data}
    await context.log(event.message, event.level, logger_name=event.tool, extra=extra)


async def on_elicit(question: Question) -> Answer:
    """A tool's question, as an elicitation request to the calling client."""
    context = request_context()
    if context is None:
        return Answer("decline")
    return await elicit(context, question.message, question.schema)


async def on_sample(request: SamplingRequest) -> SampleResult:
    """A tool's request for a completion, as ``sampling/createMessage`` to the client."""
    from mcp import types

    context = request_context()
    if context is None or not _declared(context, "sampling"):
        raise SamplingError("the MCP client of this session does not offer its model (sampling)")
    messages = [types.SamplingMessage.model_validate(m) for m in request.messages]
    with warnings.catch_warnings():
        # Sampling is deprecated by a later revision (SEP-2577); clients of 2025-11-25
        # still offer it, and the SDK warns on every request.
        warnings.filterwarnings("ignore", "The sampling capability is deprecated")
        result = await context.session.create_message(
            messages,
            max_tokens=request.max_tokens,
            system_prompt=request.system_prompt,
            temperature=request.temperature,
            stop_sequences=request.stop_sequences,
            related_request_id=context.request_id,
        )
    dumped: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True)
    return dumped


#: The MCP log levels, least severe first (for the client's ``logging/setLevel``).
_SEVERITY = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def session_handlers(context: Any) -> Handlers:
    """:data:`HANDLERS` for the tools of the session ``context`` (a fastmcp request
    context) belongs to: a log message sent outside any request reaches that session's
    client. Just :data:`HANDLERS` outside a request or a connection."""
    connection = getattr(getattr(context, "session", None), "_connection", None)
    if connection is None:
        return HANDLERS
    return HANDLERS | Handlers(
        on_log=_out_of_call_log(connection, context.fastmcp, asyncio.get_running_loop())
    )


def _out_of_call_log(
    connection: Any, server: Any, loop: asyncio.AbstractEventLoop
) -> Callable[[LogMessage], Awaitable[None]]:
    """An ``on_log`` that relays to the calling request, and outside one, to the
    connection (on the server's loop, where its streams live)."""

    async def relay_log(event: LogMessage) -> None:
        if request_context() is not None:
            await on_log(event)
            return
        if not _allowed(server, connection, event.level) or loop.is_closed():
            return
        extra = None
        if event.data is not None:
            extra = event.data if isinstance(event.data, Mapping) else {"data": event.data}
        data = {"msg": event.message, "extra": extra}  # as fastmcp's in-request logs
        with warnings.catch_warnings():
            # Logging is deprecated by a later revision (SEP-2577); the connection
            # drops it there, and clients of 2025-11-25 still take it.
            warnings.filterwarnings("ignore", "The logging capability is deprecated")
            sending = connection.log(event.level, data, logger=event.tool)
        try:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(sending, loop))
        except Exception as exc:  # the session ended meanwhile
            log.debug("a log message for a client that has gone was dropped: %s", exc)

    return relay_log


def _allowed(server: Any, connection: Any, level: str) -> bool:
    """Whether the client's ``logging/setLevel`` (else the server's default) lets
    ``level`` through. fastmcp keeps each session's level by its id, or one key for a
    connection without one (stdio), as its own ``Context.log`` reads it."""
    key = getattr(connection, "session_id", None) or "__no_session__"
    levels = getattr(server, "_client_log_levels", {})
    minimum = levels.get(key) or getattr(server, "client_log_level", None)
    if minimum not in _SEVERITY or level not in _SEVERITY:
        return True
    return _SEVERITY.index(level) >= _SEVERITY.index(minimum)


#: The handlers every session's tools get.
HANDLERS = Handlers(
    on_progress=on_progress, on_log=on_log, on_elicit=on_elicit, on_sample=on_sample
)
