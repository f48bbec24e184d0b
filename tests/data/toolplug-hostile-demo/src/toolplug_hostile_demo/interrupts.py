"""A plugin whose register_tools raises KeyboardInterrupt itself (no Ctrl-C was pressed)."""

from toolplug import hookimpl


@hookimpl
def register_tools(register):
    raise KeyboardInterrupt("raised by the plugin")
