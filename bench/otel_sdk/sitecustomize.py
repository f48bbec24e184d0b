"""The OpenTelemetry SDK as a production host sets it up, for a benchmarked server process.

``bench_otel.py`` puts this folder on the server's ``PYTHONPATH`` with
``TOOLPLUG_BENCH_OTEL_SDK=1``; Python imports it at startup. Spans go through a
``BatchSpanProcessor`` to an exporter that drops them (the cost of sending them is the
collector's business, and happens off the calling thread); metrics are kept for a reader
that is never asked.
"""

from __future__ import annotations

import os

if os.environ.get("TOOLPLUG_BENCH_OTEL_SDK"):
    import sys

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from otel_setup import install_sdk

    install_sdk()
