"""One tool call as OpenTelemetry sees it: a span around it, its duration and its errors.

:class:`ToolTelemetry` holds the tracer and the two instruments, made once from the
global providers through the OpenTelemetry API (proxies until the host sets an SDK's
providers, and no-ops if it never does). Its :meth:`~ToolTelemetry.traced` generator is
the body of the plugin's ``tool_call`` wrapper.

The span is made current while the call runs, so what the tool traces (through an
instrumented library, or a span of its own) becomes its child; and it is started in the
caller's context, so it continues whatever trace the host is in (an agent's turn, an
MCP request whose ``_meta`` carried a ``traceparent``).
"""

from __future__ import annotations

import time
from collections.abc import Generator, Mapping
from typing import Any, NamedTuple

from opentelemetry import context, metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from toolplug.interaction import current

import toolplug_otel.conventions as names


class _ToolNames(NamedTuple):
    """What is the same for every call of one tool, made once."""

    span_name: str
    span_attributes: Mapping[str, str]
    ok_attributes: Mapping[str, str]


class ToolTelemetry:
    """The tracer and instruments, and the per-tool names, for tracing tool calls.

    ``version`` is the instrumentation scope's version (this plugin's).
    """

    #: How many tools' names are kept before the cache starts again (tools named at run
    #: time, an MCP server's, are many but few per process).
    CACHE_SIZE = 1024

    def __init__(self, version: str = "") -> None:
        self.tracer = trace.get_tracer(names.SCOPE, version)
        meter = metrics.get_meter(names.SCOPE, version)
        self.duration = meter.create_histogram(
            names.DURATION,
            unit="s",
            description="Duration of tool executions.",
            explicit_bucket_boundaries_advisory=names.DURATION_BUCKETS,
        )
        self.errors = meter.create_counter(
            names.ERRORS,
            unit="{error}",
            description="Tool executions that ended in an error observation or an exception.",
        )
        self._names: dict[str, _ToolNames] = {}

    def names_of(self, tool: str) -> _ToolNames:
        """The span name and attributes for calls of ``tool``."""
        found = self._names.get(tool)
        if found is None:
            if len(self._names) >= self.CACHE_SIZE:
                self._names.clear()
            common = {names.TOOL_NAME: tool, names.TOOL_TYPE: names.FUNCTION}
            found = _ToolNames(
                names.span_name(tool),
                {names.OPERATION_NAME: names.EXECUTE_TOOL, **common},
                common,
            )
            self._names[tool] = found
        return found

    def traced(self, tool: Any) -> Generator[None, Any, Any]:
        """Trace one call of ``tool``: a ``tool_call`` wrapper's body (``yield`` runs the
        call and gives its observation, or raises what an inner implementation raised)."""
        known = self.names_of(tool.name)
        attributes = known.span_attributes
        scope = current.get()
        if scope is not None and scope.call_id:
            attributes = {**attributes, names.TOOL_CALL_ID: scope.call_id}
        span = self.tracer.start_span(
            known.span_name, kind=SpanKind.INTERNAL, attributes=attributes
        )
        token = context.attach(trace.set_span_in_context(span))
        started = time.perf_counter()
        try:
            observation = yield
        except BaseException as exc:
            context.detach(token)
            error = _error_type(exc)
            span.record_exception(exc)
            span.set_status(Status(StatusCode.ERROR, _describe(exc)))
            self._end(span, known, started, error)
            raise
        context.detach(token)
        self._end(span, known, started, names.TOOL_ERROR if _is_error(observation) else None)
        return observation

    def _end(self, span: Any, known: _ToolNames, started: float, error: str | None) -> None:
        """End the span and record the call's duration (and its error, if any)."""
        elapsed = time.perf_counter() - started
        if error is None:
            span.end()
            self.duration.record(elapsed, known.ok_attributes)
            return
        attributes = {**known.ok_attributes, names.ERROR_TYPE: error}
        span.set_attribute(names.ERROR_TYPE, error)
        if error == names.TOOL_ERROR:
            span.set_status(Status(StatusCode.ERROR))
        span.end()
        self.duration.record(elapsed, attributes)
        self.errors.add(1, attributes)


def _is_error(observation: Any) -> bool:
    """Whether the call's outcome is an error: an error observation, or no observation
    (the core answers that with an error of its own)."""
    return bool(getattr(observation, "is_error", True))


def _describe(exc: BaseException) -> str:
    """``Type: message`` for the span's status, even for an exception whose ``str()``
    raises."""
    try:
        message = str(exc)
    except Exception:
        message = "(its message could not be read)"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _error_type(exc: BaseException) -> str:
    """``error.type`` for an exception: its class's fully qualified name (builtins bare)."""
    cls = type(exc)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"
