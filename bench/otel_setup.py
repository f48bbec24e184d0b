"""The OpenTelemetry SDK set up as in production, shared by ``bench_otel.py`` and the
server processes it starts (through ``otel_sdk/sitecustomize.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult


class DroppingExporter(SpanExporter):
    """An exporter that counts the spans it is handed and sends them nowhere."""

    def __init__(self) -> None:
        self.exported = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.exported += len(spans)
        return SpanExportResult.SUCCESS


def install_sdk() -> DroppingExporter:
    """Set the global tracer and meter providers; return the span exporter."""
    exporter = DroppingExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
    return exporter
