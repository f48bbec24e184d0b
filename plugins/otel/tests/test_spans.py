"""The execute_tool span of every call: its name, kind, attributes, status and parent."""

from __future__ import annotations

import asyncio
import types
from pathlib import Path
from typing import Any

import pytest
import toolplug_otel
import toolplug_think
from conftest import Spans
from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode
from toolplug import Observation, ToolDefinition, Toolset, hookimpl
from toolplug.testing import registry_from

tracer = trace.get_tracer("the host")


def _fails(path: str) -> str:
    """Read a file that is not there (the tool fails)."""
    with open(path) as f:
        return f.read()


def _inner_span(note: str) -> str:
    """Start a span of the tool's own, as a traced library inside a tool would."""
    with tracer.start_as_current_span("inside the tool"):
        return note


async def _inner_span_async(note: str) -> str:
    """The same from an async tool."""
    await asyncio.sleep(0)
    with tracer.start_as_current_span("inside the tool"):
        return note


def _tools_plugin() -> types.SimpleNamespace:
    """A plugin with tools that fail or trace something of their own."""
    tools = [
        ToolDefinition.from_function(_fails, name="fails"),
        ToolDefinition.from_function(_inner_span, name="inner"),
        ToolDefinition.from_function(_inner_span_async, name="inner_async"),
    ]

    @hookimpl
    def register_tools(register: Any) -> None:
        for tool in tools:
            register(tool)

    return types.SimpleNamespace(register_tools=register_tools)


@pytest.fixture
def toolset() -> Toolset:
    """think from its installed plugin, and otel from its entry point, by name."""
    return Toolset.load(["think"], plugins="think,otel")


@pytest.fixture
def local() -> Toolset:
    registry = registry_from(toolplug_otel, toolplug_think, _tools_plugin())
    return Toolset.load(["think", "fails", "inner", "inner_async"], registry=registry)


def test_a_call_is_an_execute_tool_span(toolset: Toolset, spans: Spans) -> None:
    observation = toolset.call("think", {"thought": "plan"})
    assert not observation.is_error
    span = spans.one()
    assert span.name == "execute_tool think"
    assert span.kind is SpanKind.INTERNAL
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "think",
        "gen_ai.tool.type": "function",
    }
    assert span.status.status_code is StatusCode.UNSET
    assert span.parent is None
    assert span.instrumentation_scope is not None
    assert span.instrumentation_scope.name == "toolplug_otel"
    assert span.instrumentation_scope.version == "0.1.0"


def test_the_call_id_is_recorded_when_the_host_gives_one(toolset: Toolset, spans: Spans) -> None:
    toolset.call("think", {"thought": "plan"}, call_id="call_5Xq")
    assert (spans.one().attributes or {})["gen_ai.tool.call.id"] == "call_5Xq"


def test_dispatch_records_the_providers_call_ids(toolset: Toolset, spans: Spans) -> None:
    calls = [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "think", "arguments": '{"thought": "a"}'},
        },
        {
            "id": "call_b",
            "type": "function",
            "function": {"name": "think", "arguments": '{"thought": "b"}'},
        },
    ]
    toolset.dispatch(calls)
    ids = sorted((s.attributes or {})["gen_ai.tool.call.id"] for s in spans.tools())
    assert ids == ["call_a", "call_b"]


def test_an_error_observation_sets_error_status(
    local: Toolset, spans: Spans, tmp_path: Path
) -> None:
    observation = local.call("fails", {"path": str(tmp_path / "missing.txt")})
    assert observation.is_error and "FileNotFoundError" in observation.text
    span = spans.one()
    assert span.name == "execute_tool fails"
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "tool_error"
    # The tool's output is not recorded: it may hold anything the tool read.
    assert "missing.txt" not in str(span.to_json())


def test_bad_arguments_never_reach_the_tool_nor_make_a_span(toolset: Toolset, spans: Spans) -> None:
    observation = toolset.call("think", {"thought": 3})
    assert observation.is_error
    assert spans.tools() == []


def test_a_hook_that_raises_is_recorded_as_an_exception(spans: Spans) -> None:
    class Broken:
        @hookimpl
        def tool_call(self, tool: Any) -> None:
            raise LookupError("the approver's table is gone")

    registry = registry_from(toolplug_otel, toolplug_think, Broken())
    with Toolset.load(["think"], registry=registry) as toolset:
        observation = toolset.call("think", {"thought": "plan"})
    assert observation.is_error and "the approver's table is gone" in observation.text
    span = spans.one()
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == "LookupError: the approver's table is gone"
    assert (span.attributes or {})["error.type"] == "LookupError"
    [event] = span.events
    assert event.name == "exception"
    assert (event.attributes or {})["exception.type"] == "LookupError"


def test_a_refusal_is_inside_the_span(spans: Spans) -> None:
    class ReadOnly:
        @hookimpl(tryfirst=True)
        def tool_call(self, tool: Any) -> Observation | None:
            return Observation.error("this session is read-only")

    registry = registry_from(ReadOnly(), toolplug_think, toolplug_otel)
    with Toolset.load(["think"], registry=registry) as toolset:
        assert toolset.call("think", {"thought": "plan"}).text == "this session is read-only"
    span = spans.one()
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "tool_error"


def test_the_span_continues_the_hosts_trace(toolset: Toolset, spans: Spans) -> None:
    with tracer.start_as_current_span("agent turn") as turn:
        toolset.call("think", {"thought": "plan"})
    span = spans.one()
    assert span.parent is not None
    assert span.parent.span_id == turn.get_span_context().span_id
    assert span.context.trace_id == turn.get_span_context().trace_id


@pytest.mark.parametrize("tool", ["inner", "inner_async"])
def test_what_the_tool_traces_is_a_child_of_the_call(
    local: Toolset, spans: Spans, tool: str
) -> None:
    assert local.call(tool, {"note": "n"}).text == "n"
    [inner] = [s for s in spans.all() if s.name == "inside the tool"]
    call = spans.one()
    assert inner.parent is not None and inner.parent.span_id == call.context.span_id


@pytest.mark.parametrize("tool", ["inner", "inner_async", "think"])
async def test_async_calls_are_traced_alike(local: Toolset, spans: Spans, tool: str) -> None:
    arguments = {"thought": "plan"} if tool == "think" else {"note": "n"}
    with tracer.start_as_current_span("agent turn") as turn:
        observation = await local.acall(tool, arguments, call_id="call_async")
    assert not observation.is_error
    call = spans.one()
    assert call.name == f"execute_tool {tool}"
    assert (call.attributes or {})["gen_ai.tool.call.id"] == "call_async"
    assert call.parent is not None and call.parent.span_id == turn.get_span_context().span_id
    inner = [s for s in spans.all() if s.name == "inside the tool"]
    assert all(s.parent is not None and s.parent.span_id == call.context.span_id for s in inner)


def test_concurrent_async_calls_get_a_span_each(local: Toolset, spans: Spans) -> None:
    async def many() -> None:
        await asyncio.gather(
            *(local.acall("inner_async", {"note": str(i)}, call_id=f"c{i}") for i in range(20))
        )

    asyncio.run(many())
    calls = spans.tools()
    assert sorted((s.attributes or {})["gen_ai.tool.call.id"] for s in calls) == sorted(
        f"c{i}" for i in range(20)
    )
    by_id = {s.context.span_id: s for s in calls}
    inner = [s for s in spans.all() if s.name == "inside the tool"]
    assert len(inner) == 20
    assert all(s.parent is not None and s.parent.span_id in by_id for s in inner)
    assert len({s.parent.span_id for s in inner if s.parent}) == 20
