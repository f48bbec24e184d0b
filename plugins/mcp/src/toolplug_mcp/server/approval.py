"""Asking an MCP client's user about a call the permission policy says to ask about.

``toolplug mcp serve --policy FILE`` gives the policy plugin :func:`elicit_approval` as
its approver. For a call the policy marks ``ask``, the server sends the calling session
an elicitation request (a yes/no form) and runs the tool only on an explicit yes. A
client that did not declare the elicitation capability cannot be asked, so the call is
refused, as it is with no terminal on the command line. The elicitation itself is the
one every tool's ``ask`` uses (:mod:`~toolplug_mcp.server.relay`).

The question carries the call's arguments whole: a person approving a command must see
all of it, its end included. A call whose question would be longer than
:data:`MAX_QUESTION` characters is not asked about: the approver raises
:class:`QuestionTooLong`, and the policy refuses the call with its message.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Any

from toolplug_mcp.errors import QuestionTooLong
from toolplug_mcp.server.relay import can_elicit, elicit, request_context

#: The longest question put to a client's user, in characters.
MAX_QUESTION = 100_000


def elicit_approval(tool: Any, action: Any, rule: Any) -> bool | Awaitable[bool]:
    """The approver of ``mcp serve``: ask the calling client's user, when it can be asked.

    Called by the policy plugin (in the worker thread that runs the ``tool_call`` hook,
    whose context is the MCP request's); returns ``False`` when the client cannot be
    asked, else the question, which the policy plugin awaits on the server's loop.
    """
    context = request_context()
    if context is None or not can_elicit(context):  # outside a request, or no way to ask
        return False
    message = question(tool, action, rule)
    if len(message) > MAX_QUESTION:
        raise QuestionTooLong(
            f"the call is {len(message):,} characters long as a question, more than the "
            f"{MAX_QUESTION:,} the client's user can be shown, so it was not asked about; "
            "split it into smaller calls"
        )
    return _ask(context, message)


def question(tool: Any, action: Any, rule: Any) -> str:
    """What the user reads: the tool, all of its arguments (as JSON), and why the policy
    asks."""
    try:
        arguments = json.dumps(action.model_dump(mode="json", exclude_none=True))
    except (TypeError, ValueError):
        arguments = repr(action)
    why = f" The policy asks about it: {rule}." if rule is not None else ""
    return f"Allow the tool '{tool.name}' to run with {arguments}?{why}"


#: The form of a policy question: one yes/no field.
ALLOW_FORM = {
    "type": "object",
    "properties": {"value": {"type": "boolean", "title": "Allow"}},
    "required": ["value"],
}


async def _ask(context: Any, message: str) -> bool:
    # A client that breaks off or answers nonsense gets a decline from elicit(): no.
    answer = await elicit(context, message, ALLOW_FORM)
    return answer.action == "accept" and (answer.content or {}).get("value") is True
