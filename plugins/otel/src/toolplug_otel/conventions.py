"""The OpenTelemetry names this plugin records under, in one place.

They follow OpenTelemetry's GenAI semantic conventions for tool execution (status:
Development; now kept in the ``open-telemetry/semantic-conventions-genai`` repository,
document ``docs/gen-ai/execute-tool.md``): the ``execute_tool`` span and the
``gen_ai.execute_tool.duration`` metric. The conventions define no error counter;
:data:`ERRORS` is this plugin's own, named under ``toolplug.``.

The names are written out rather than imported from ``opentelemetry-semantic-conventions``:
that package marks the GenAI names deprecated (moved to the new repository) and is a
dependency this plugin does not otherwise need.
"""

from __future__ import annotations

#: The instrumentation scope: the tracer's and the meter's name.
SCOPE = "toolplug_otel"

#: ``gen_ai.operation.name``: which GenAI operation a span or measurement is.
OPERATION_NAME = "gen_ai.operation.name"
#: Its value for a tool call.
EXECUTE_TOOL = "execute_tool"
#: ``gen_ai.tool.name``: the tool's name as the model called it.
TOOL_NAME = "gen_ai.tool.name"
#: ``gen_ai.tool.call.id``: the provider's id of the call, when the host gave one.
TOOL_CALL_ID = "gen_ai.tool.call.id"
#: ``gen_ai.tool.type``: ``function`` (code run by the agent's side), ``extension`` or
#: ``datastore``.
TOOL_TYPE = "gen_ai.tool.type"
#: Every toolplug tool is a function the host's side runs.
FUNCTION = "function"
#: ``error.type``: the class of error a call ended with (set on errors only).
ERROR_TYPE = "error.type"
#: ``error.type`` of a call whose tool answered with an error observation (bad input,
#: a failing command, a timeout, a refusal): toolplug's errors carry no class of their
#: own, so one low-cardinality value stands for them all.
TOOL_ERROR = "tool_error"

#: The call-duration histogram (seconds), as the conventions name it.
DURATION = "gen_ai.execute_tool.duration"
#: The error counter: calls that ended in an error observation or an exception.
ERRORS = "toolplug.execute_tool.errors"

#: Bucket boundaries for :data:`DURATION`, in seconds (advice to the SDK; a host's views
#: may override it): the GenAI conventions' boundaries for operation durations, 10 ms to
#: 82 s, with 1 ms and 5 ms below them, since many tools answer within a millisecond.
DURATION_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92,
)


def span_name(tool: str) -> str:
    """The span's name: ``execute_tool {gen_ai.tool.name}``."""
    return f"{EXECUTE_TOOL} {tool}"
