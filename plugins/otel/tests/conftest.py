"""The OpenTelemetry SDK, set up once for the test session as a host would: the global
tracer provider exports to memory, the global meter provider is read from memory.

OpenTelemetry lets a process set its global providers once, so every test shares them:
the ``spans`` fixture empties the exporter first, and the ``measurements`` fixture reads
deltas (what was recorded since the last read).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import Counter, Histogram, MeterProvider
from opentelemetry.sdk.metrics.export import AggregationTemporality, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

EXPORTER = InMemorySpanExporter()
READER = InMemoryMetricReader(
    preferred_temporality={
        Counter: AggregationTemporality.DELTA,
        Histogram: AggregationTemporality.DELTA,
    }
)

_tracer_provider = TracerProvider()
_tracer_provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(_tracer_provider)
metrics.set_meter_provider(MeterProvider(metric_readers=[READER]))


class Spans:
    """The spans finished since the test began."""

    def all(self) -> list[ReadableSpan]:
        return list(EXPORTER.get_finished_spans())

    def tools(self) -> list[ReadableSpan]:
        """The ``execute_tool`` spans, in the order they ended."""
        return [s for s in self.all() if s.name.startswith("execute_tool ")]

    def one(self) -> ReadableSpan:
        found = self.tools()
        assert len(found) == 1, [s.name for s in found]
        return found[0]


class Measurements:
    """The metric points recorded since the test began, by instrument name."""

    def read(self) -> dict[str, list[Any]]:
        data = READER.get_metrics_data()
        points: dict[str, list[Any]] = {}
        for resource in data.resource_metrics if data else []:
            for scope in resource.scope_metrics:
                if scope.scope.name != "toolplug_otel":
                    continue
                for metric in scope.metrics:
                    points.setdefault(metric.name, []).extend(metric.data.data_points)
        return points


@pytest.fixture
def spans() -> Iterator[Spans]:
    EXPORTER.clear()
    yield Spans()
    EXPORTER.clear()


@pytest.fixture
def measurements() -> Measurements:
    READER.get_metrics_data()  # what earlier tests recorded is read, and so forgotten
    return Measurements()
