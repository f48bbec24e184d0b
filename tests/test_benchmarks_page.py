"""The benchmarks page shows what the benchmarks measured: its table is drawn from
bench/results, every tool with figures has its plot, and every benchmark times and
reports through bench/timing.py (so that its figures are written as data)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PAGE = ROOT / "docs" / "benchmarks.md"


def test_the_table_of_current_figures_matches_the_data() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "plots.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_tool_with_figures_has_its_plot_on_the_page() -> None:
    tools = {
        figure["tool"]
        for path in (BENCH / "results").glob("*.json")
        for figure in json.loads(path.read_text())["figures"]
    }
    assert tools, "bench/results holds no figures"
    page = PAGE.read_text()
    for tool in tools:
        assert (ROOT / "docs" / "benchmarks" / f"{tool}.svg").is_file(), tool
        assert f"(benchmarks/{tool}.svg)" in page, tool


def test_every_benchmark_reports_through_the_timing_helper() -> None:
    for path in sorted(BENCH.glob("bench_*.py")):
        source = path.read_text()
        assert re.search(r"^(from timing import|import timing)", source, re.M), path.name
        assert "save(" in source, f"{path.name} does not write its figures"
        # Timing by hand is the helper's job: a benchmark's own clock reads are for
        # reporting how long setting up took, never for a figure.
        assert "def report(" not in source or "timing.report(" in source, path.name
