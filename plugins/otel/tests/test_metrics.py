"""The duration histogram and the error counter, by tool."""

from __future__ import annotations

import types
from typing import Any

import toolplug_otel
import toolplug_think
from conftest import Measurements, Spans
from toolplug import ToolDefinition, Toolset, hookimpl
from toolplug.testing import registry_from


def _flaky(fail: bool) -> str:
    """Fail when asked to."""
    if fail:
        raise RuntimeError("asked to fail")
    return "fine"


def _plugin() -> types.SimpleNamespace:
    tool = ToolDefinition.from_function(_flaky, name="flaky")

    @hookimpl
    def register_tools(register: Any) -> None:
        register(tool)

    return types.SimpleNamespace(register_tools=register_tools)


def _toolset() -> Toolset:
    registry = registry_from(toolplug_otel, toolplug_think, _plugin())
    return Toolset.load(["think", "flaky"], registry=registry)


def test_durations_and_errors_by_tool(measurements: Measurements, spans: Spans) -> None:
    with _toolset() as toolset:
        for _ in range(3):
            toolset.call("think", {"thought": "plan"})
        toolset.call("flaky", {"fail": False})
        toolset.call("flaky", {"fail": True})
        toolset.call("flaky", {"fail": True})
    points = measurements.read()

    durations = {
        tuple(sorted(dict(p.attributes).items())): p for p in points["gen_ai.execute_tool.duration"]
    }
    think = (("gen_ai.tool.name", "think"), ("gen_ai.tool.type", "function"))
    flaky_ok = (("gen_ai.tool.name", "flaky"), ("gen_ai.tool.type", "function"))
    flaky_error = (("error.type", "tool_error"), *flaky_ok)
    assert set(durations) == {think, flaky_ok, flaky_error}
    assert durations[think].count == 3
    assert durations[flaky_ok].count == 1
    assert durations[flaky_error].count == 2
    assert all(p.sum > 0 for p in durations.values())
    # The advised buckets reach down to a millisecond.
    assert durations[think].explicit_bounds[:2] == (0.001, 0.005)

    [errors] = points["toolplug.execute_tool.errors"]
    assert dict(errors.attributes) == dict(flaky_error)
    assert errors.value == 2


def test_one_call_is_one_measurement(measurements: Measurements, spans: Spans) -> None:
    with _toolset() as toolset:
        toolset.call("think", {"thought": "plan"})
    assert len(spans.tools()) == 1
    [point] = measurements.read()["gen_ai.execute_tool.duration"]
    assert point.count == 1
    assert point.min == point.max == point.sum > 0
