"""Asking an MCP client's user about a call the permission policy says to ask about.

``toolplug mcp serve --policy FILE`` gives the policy plugin :func:`elicit_approval` as
its approver. For a call the policy marks ``ask``, the server sends the calling session
an elicitation request (a yes/no form) and runs the tool only on an explicit yes. A
client that did not declare the elicitation capability cannot be asked, so the call is
refused, as it is with no terminal on the command line.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable
from typing import Any

from fastmcp.server.dependencies import get_context
from fastmcp.server.elicitation import AcceptedElicitation

log = logging.getLogger("toolplug.mcp")

#: The longest argument text shown in the question.
MAX_ARGUMENTS_SHOWN = 2000


def elicit_approval(tool: Any, action: Any, rule: Any) -> bool | Awaitable[bool]:
    """The approver of ``mcp serve``: ask the calling client's user, when it can be asked.

    Called by the policy plugin (in the worker thread that runs the ``tool_call`` hook,
    whose context is the MCP request's); returns ``False`` when the client cannot be
    asked, else the question, which the policy plugin awaits on the server's loop.
    """
    try:
        context = get_context()
        capabilities = context.session.client_capabilities
    except RuntimeError:  # not inside an MCP request
        return False
    if capabilities is None or capabilities.elicitation is None:
        return False
    return _ask(context, question(tool, action, rule))


def question(tool: Any, action: Any, rule: Any) -> str:
    """What the user reads: the tool, its arguments, and why the policy asks."""
    try:
        arguments = json.dumps(action.model_dump(mode="json", exclude_none=True))
    except (TypeError, ValueError):
        arguments = repr(action)
    if len(arguments) > MAX_ARGUMENTS_SHOWN:
        arguments = arguments[:MAX_ARGUMENTS_SHOWN] + " ..."
    why = f" The policy asks about it: {rule}." if rule is not None else ""
    return f"Allow the tool '{tool.name}' to run with {arguments}?{why}"


async def _ask(context: Any, message: str) -> bool:
    try:
        answer = await context.elicit(message, response_type=bool, response_title="Allow")
    except Exception as exc:  # the client broke off, or answered nonsense: no
        log.warning("the elicitation for a policy question failed: %s", exc)
        return False
    return isinstance(answer, AcceptedElicitation) and answer.data is True
