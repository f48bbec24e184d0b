"""toolplug's own ``tool_call`` implementation (the one that runs the tool), and the check
of plugins' implementations when they load.

`toolplug.plugins.plugin_manager` registers this module in every plugin manager, under
:data:`NAME`. Marked ``trylast``, it is the last plain implementation pluggy calls, so
any other may refuse the call first, and every wrapper sees the observation it returns.

What to run is the hook's ``pending`` argument, which the runner passes and no other
implementation needs to take (pluggy gives each implementation only the arguments it
names). The runner imports this module, so it stays free of pydantic.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

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


@hookimpl(trylast=True)
def tool_call(tool: Any, action: Any, pending: PendingCall | None) -> Observation:
    """Run the tool the runner is calling."""
    if pending is None or getattr(pending, "action", None) is not action:
        from toolplug.model import Observation

        return Observation.error(
            f"Tool '{tool.name}' was not run: the tool_call hook was called outside "
            "ToolDefinition.call()/acall(), which are the way to call a tool."
        )
    return pending.run(tool)


class PluginManager(pluggy.PluginManager):
    """pluggy's plugin manager, refusing at registration what toolplug cannot call.

    pluggy calls hooks synchronously: an ``async def`` implementation would hand back a
    coroutine nobody awaits. Such a plugin is refused when it loads, with the form to
    use instead (pluggy itself refuses a wrapper that is not a generator).
    """

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> pluggy.HookimplOpts | None:
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is not None:
            function = getattr(plugin, name, None)
            if inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function):
                raise pluggy.PluginValidationError(plugin, _ASYNC_HOOK.format(name=name))
        return opts

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        try:
            return super().register(plugin, name)
        except pluggy.PluginValidationError:
            if self.is_registered(plugin):  # pluggy < 1.7 keeps what came before the error
                self.unregister(plugin)
            raise


_ASYNC_HOOK = (
    "the {name} hook is 'async def', which pluggy cannot call: write it as a plain 'def' "
    "(toolplug calls tool_call in a worker thread on the async path, so it may block), "
    "or as a generator marked @hookimpl(wrapper=True) to wrap a call."
)
