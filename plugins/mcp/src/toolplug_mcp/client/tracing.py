"""OpenTelemetry on the client side: a span per tool call, its context sent along.

A host that traces (``toolplug-otel``, or its own OpenTelemetry setup) gets a CLIENT
span for each ``tools/call`` and the call's trace context in the request's ``_meta``
(``traceparent``, ``tracestate``), so that the server's spans join the host's trace.

Only the OpenTelemetry API is used, imported here only when something has imported
it already (the MCP SDK's ``__init__`` does): before that no span can be current and
no tracer configured, so there would be nothing to carry.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

#: The instrumentation name of the client's spans.
TRACER_NAME = "toolplug-mcp"


def _traced() -> bool:
    """Whether the host has imported OpenTelemetry (else nothing can be traced)."""
    return "opentelemetry.trace" in sys.modules


def trace_meta() -> Any:
    """The current trace context as a request's ``_meta``, a dict (``None``: there is
    none)."""
    if not _traced():
        return None
    from opentelemetry import propagate

    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    meta: dict[str, Any] = {
        key: carrier[key] for key in ("traceparent", "tracestate") if key in carrier
    }
    return meta or None


@contextlib.contextmanager
def call_span(tool: str, session_id: str | None) -> Iterator[Any]:
    """A CLIENT span ``tools/call <tool>`` around a call (``None`` when not traced);
    an exception raised through it is recorded on it."""
    if not _traced():
        yield None
        return
    from opentelemetry import trace

    attributes = {"mcp.method.name": "tools/call", "gen_ai.tool.name": tool}
    if session_id is not None:
        attributes["mcp.session.id"] = session_id
    tracer = trace.get_tracer(TRACER_NAME)
    with tracer.start_as_current_span(
        f"tools/call {tool}", kind=trace.SpanKind.CLIENT, attributes=attributes
    ) as span:
        try:
            yield span
        except Exception as exc:
            if span.is_recording():
                span.set_attribute("error.type", type(exc).__qualname__)
                span.set_status(trace.Status(trace.StatusCode.ERROR, str(exc)))
            raise


def tool_failed(span: Any, text: str) -> None:
    """Mark the call's span as failed: the tool answered with an error result."""
    if span is None or not span.is_recording():
        return
    from opentelemetry import trace

    span.set_attribute("error.type", "tool_error")
    span.set_status(trace.Status(trace.StatusCode.ERROR, text))
