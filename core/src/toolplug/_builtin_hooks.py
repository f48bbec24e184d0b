"""toolplug's own ``tool_call`` implementation: the one that runs the tool.

`toolplug.plugins.plugin_manager` registers this module in every plugin manager, under
:data:`NAME`. Marked ``trylast``, it is the last plain implementation pluggy calls, so
any other may refuse the call first, and every wrapper sees the observation it returns.

What to run is not among the hook's arguments (the public signature stays
``tool_call(tool, action)``): the runner puts the pending call in :data:`PENDING` before
it calls the hook. This module stays free of pydantic, so that making a plugin manager
(``toolplug plugins``, the CLI's plugin commands) stays cheap.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any, Protocol

from toolplug.hookspecs import hookimpl

if TYPE_CHECKING:
    from toolplug.model import Observation

#: The name this plugin is registered under.
NAME = "toolplug.core"


class PendingCall(Protocol):
    """A call on its way through the hook, as the runner hands it over."""

    action: Any

    def run(self, tool: Any) -> Observation:
        """Run the tool on :attr:`action` (never raises)."""
        ...


#: The call the runner is making in this context (set around the hook call).
PENDING: contextvars.ContextVar[PendingCall | None] = contextvars.ContextVar(
    "toolplug_pending_call", default=None
)


@hookimpl(trylast=True)
def tool_call(tool: Any, action: Any) -> Observation:
    """Run the tool the runner is calling."""
    pending = PENDING.get()
    if pending is None or pending.action is not action:
        from toolplug.model import Observation

        return Observation.error(
            f"Tool '{tool.name}' was not run: the tool_call hook was called outside "
            "ToolDefinition.call()/acall(), which are the way to call a tool."
        )
    return pending.run(tool)
