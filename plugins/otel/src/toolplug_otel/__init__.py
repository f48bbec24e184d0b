"""toolplug-otel: an OpenTelemetry span, a duration and an error count for every tool call.

Enabled by name like any other plugin (``--plugins bash,otel``, ``TOOLPLUG_PLUGINS``, or
every installed plugin by default), it wraps each call of the tools its registry
resolves in an ``execute_tool {tool}`` span on OpenTelemetry's GenAI semantic
conventions, and records the ``gen_ai.execute_tool.duration`` histogram and the
``toolplug.execute_tool.errors`` counter. It uses the OpenTelemetry API only: the host
sets up the SDK and its exporters (see docs/observability.md), and without one every
span and measurement is a no-op.
"""

from __future__ import annotations

from collections.abc import Generator
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from toolplug import hookimpl

from toolplug_otel.conventions import DURATION, ERRORS, SCOPE, span_name
from toolplug_otel.telemetry import ToolTelemetry

__all__ = ["DURATION", "ERRORS", "SCOPE", "ToolTelemetry", "span_name", "telemetry", "tool_call"]

try:
    __version__ = version("toolplug-otel")
except PackageNotFoundError:  # imported from a source tree
    __version__ = "0"

#: The tracer and instruments every call is recorded with (from the global providers).
telemetry = ToolTelemetry(__version__)


@hookimpl(wrapper=True, tryfirst=True)
def tool_call(tool: Any) -> Generator[None, Any, Any]:
    """Trace the call of ``tool``: outermost of the wrappers (``tryfirst``), so the span
    covers everything the call goes through, a policy's refusal included."""
    return (yield from telemetry.traced(tool))
