"""Every error the MCP plugin defines, client and server, in one place.

A model never sees these raised: a failed call comes back as an error observation (the
client) or an error result (the server). Hosts see :class:`ConfigError` and
:class:`PromptError`; ``toolplug mcp serve`` reports :class:`OriginError`.

The hierarchy::

    ValueError
    ├── ConfigError         the MCP configuration cannot be used (the message says where and why)
    ├── QuestionTooLong     a call too long to show to the person asked for approval
    └── OriginError         an ``--allow-origin`` value that is not an origin
    toolplug.ToolError
    └── PromptError         a prompt that cannot be listed or got (the message says what exists)
    TimeoutError
    └── TaskTimedOut        a task that did not finish within the call's timeout
    Exception
    ├── RequestFailed       a request to a server failed (the message is for the model)
    │   ├── ServerGone      the server's connection broke
    │   ├── CallTimedOut    the server did not answer within the timeout
    │   └── CallRefused     the server answered the call with a protocol error
    ├── UnreadableMessage   the server sent a message the MCP SDK could not parse
    └── TooManyRequests     a server asked for more sampling or elicitation than it may
"""

from __future__ import annotations

from toolplug import ToolError

__all__ = [
    "CallRefused",
    "CallTimedOut",
    "ConfigError",
    "OriginError",
    "PromptError",
    "QuestionTooLong",
    "RequestFailed",
    "ServerGone",
    "TaskTimedOut",
    "TooManyRequests",
    "UnreadableMessage",
]


class ConfigError(ValueError):
    """The MCP configuration cannot be used; the message says where and why.

    ``path`` is where in the configuration the problem is (``("mcpServers", "time",
    "args")``), when it is at one place.
    """

    def __init__(self, message: str, path: tuple[str | int, ...] | None = None) -> None:
        super().__init__(message)
        self.path = path


class QuestionTooLong(ValueError):
    """A call too long to show to the person asked; the message says what to do."""


class OriginError(ValueError):
    """An ``--allow-origin`` value that is not an origin."""


class PromptError(ToolError):
    """A prompt that cannot be listed or got; the message says why and what exists."""


class TaskTimedOut(TimeoutError):
    """A task did not finish within the call's timeout; it was cancelled on the server."""


class RequestFailed(Exception):
    """A request to a server failed; the message says why, for a model to act on."""


class ServerGone(RequestFailed):
    """The server's connection broke (the process died, the network went away)."""


class CallTimedOut(RequestFailed):
    """The server did not answer within the timeout."""


class CallRefused(RequestFailed):
    """The server answered the call with a protocol error (what SDK servers do on failure)."""


class UnreadableMessage(Exception):
    """The server sent a message the MCP SDK could not parse."""


class TooManyRequests(Exception):
    """A server asked for more sampling or elicitation during a call than it may."""
