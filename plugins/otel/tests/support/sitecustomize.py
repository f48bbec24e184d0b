"""Set up the OpenTelemetry SDK in a process under test, as a host would at its start.

Put this folder on ``PYTHONPATH`` and name a file in ``TOOLPLUG_OTEL_TEST_SPANS``: Python
imports this module at startup (``site`` does, as ``opentelemetry-instrument`` relies on
too), and every span the process ends is written to that file as one JSON line, at once.
Without the variable it does nothing.
"""

from __future__ import annotations

import os

_path = os.environ.get("TOOLPLUG_OTEL_TEST_SPANS")
if _path:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

    _out = open(_path, "a", encoding="utf-8")  # noqa: SIM115 (open for the process's life)
    _provider = TracerProvider()
    _provider.add_span_processor(
        SimpleSpanProcessor(
            ConsoleSpanExporter(out=_out, formatter=lambda span: span.to_json(indent=None) + "\n")
        )
    )
    trace.set_tracer_provider(_provider)
