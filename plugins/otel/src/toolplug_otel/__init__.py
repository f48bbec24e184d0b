"""toolplug-otel: an OpenTelemetry span, a duration and an error count for every tool call.

Enabled by name like any other plugin (``--plugins bash,otel``, ``TOOLPLUG_PLUGINS``, or
every installed plugin by default), it wraps each call of the tools its registry
resolves in an ``execute_tool {tool}`` span on OpenTelemetry's GenAI semantic
conventions, and records the ``gen_ai.execute_tool.duration`` histogram and the
``toolplug.execute_tool.errors`` counter. It uses the OpenTelemetry API only: the host
sets up the SDK and its exporters (see docs/observability.md), and without one every
span and measurement is a no-op.

This module is the plugin's entry point, and it is a guard, so every load imports it
(the core asks each installed guard which settings it takes). The OpenTelemetry API, the
tracer and the instruments are therefore made at the first call, not at import:
``telemetry``, ``ToolTelemetry`` and ``__version__`` are read through the module's
``__getattr__`` (PEP 562).
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from toolplug import hookimpl

from toolplug_otel.conventions import DURATION, ERRORS, SCOPE, span_name

if TYPE_CHECKING:
    from toolplug_otel.telemetry import ToolTelemetry

    #: The tracer and instruments every call is recorded with (from the global
    #: providers), made at the first call.
    telemetry: ToolTelemetry
    __version__: str

__all__ = ["DURATION", "ERRORS", "SCOPE", "ToolTelemetry", "span_name", "telemetry", "tool_call"]

_made: ToolTelemetry | None = None
_making = threading.Lock()


def _telemetry() -> ToolTelemetry:
    """The one `ToolTelemetry`, made (with the OpenTelemetry API's import) on first use."""
    global _made
    if _made is None:
        with _making:
            if _made is None:
                from toolplug_otel.telemetry import ToolTelemetry

                made = ToolTelemetry(_version())
                # Importing the submodule bound the name ``telemetry`` to it: the object wins.
                globals()["telemetry"] = made
                _made = made
    return _made


def _version() -> str:
    """This distribution's version: the instrumentation scope's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("toolplug-otel")
    except PackageNotFoundError:  # imported from a source tree
        return "0"


def __getattr__(name: str) -> Any:
    """``telemetry``, ``ToolTelemetry`` and ``__version__``, made when first read."""
    if name == "telemetry":
        return _telemetry()
    if name == "ToolTelemetry":
        from toolplug_otel.telemetry import ToolTelemetry

        _telemetry()  # the submodule's import rebinds ``telemetry``: keep it the object
        return ToolTelemetry
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@hookimpl(wrapper=True, tryfirst=True)
def tool_call(tool: Any) -> Generator[None, Any, Any]:
    """Trace the call of ``tool``: outermost of the wrappers (``tryfirst``), so the span
    covers everything the call goes through, a policy's refusal included."""
    return (yield from _telemetry().traced(tool))
