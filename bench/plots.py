"""Draw the benchmarks' figures from their data: one plot per tool, and the table of
current figures at the top of ``docs/benchmarks.md``.

    python bench/plots.py          # needs matplotlib (bench/requirements.txt)
    python bench/plots.py --check  # only checks that the docs' table matches the data

The data is ``bench/results/*.json``, written by each benchmark's run (see timing.py).
Each plot shows, per figure, how far it is from its target: the ratio divided by its
target ratio (or our value divided by its absolute limit), so 1.0 is the target on
every row and a bar past it is a miss.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DOCS = HERE.parent / "docs"
PAGE = DOCS / "benchmarks.md"
PLOTS = DOCS / "benchmarks"
START, END = "<!-- figures: start -->", "<!-- figures: end -->"
#: Tools in the order the page shows them.
TOOLS = ["core", "dispatch", "start", "context", "bash", "file_editor", "apply_patch", "glob",
         "grep", "mcp", "serve", "policy", "otel"]  # fmt: skip
SCALE = {"s": 1.0, "ms": 1e3, "us": 1e6}


@dataclass(frozen=True)
class Row:
    """One figure as the page shows it."""

    tool: str
    what: str
    ours: float
    floor: float | None
    target: float | None
    limit: float | None
    extra: float | None
    unit: str
    measured: str
    load: float
    bench: str

    @property
    def ratio(self) -> float | None:
        return self.ours / self.floor if self.floor else None

    @property
    def share(self) -> float | None:
        """How far along its target the figure is: 1.0 is exactly at the target."""
        if self.target is not None and self.ratio is not None:
            return self.ratio / self.target
        if self.limit is not None:  # a limit of 0 (errors): met exactly when none
            if self.limit == 0:
                return 0.0 if self.ours <= 0 else float("inf")
            return self.ours / self.limit
        if self.extra and self.floor is not None:
            return (self.ours - self.floor) / self.extra
        return None

    @property
    def met(self) -> bool | None:
        share = self.share
        return None if share is None else share <= 1.0

    def value(self, number: float) -> str:
        scaled = number * SCALE.get(self.unit, 1.0)
        return f"{scaled:,.3g} {self.unit}" if scaled < 1000 else f"{scaled:,.0f} {self.unit}"

    def goal(self) -> str:
        goals = []
        if self.target is not None:
            goals.append(f"≤ {self.target:g}x")
        if self.limit is not None:
            goals.append(f"≤ {self.value(self.limit)}")
        if self.extra is not None:
            goals.append(f"≤ {self.value(self.extra)} added")
        return ", ".join(goals) or "for scale"


def load() -> list[Row]:
    """Every figure of every benchmark's last run, in the page's order of tools."""
    rows = []
    for path in sorted(RESULTS.glob("*.json")):
        data = json.loads(path.read_text())
        for figure in data["figures"]:
            rows.append(
                Row(
                    tool=figure["tool"],
                    what=figure["what"],
                    ours=figure["ours"],
                    floor=figure["floor"],
                    target=figure["target"],
                    limit=figure.get("limit"),
                    extra=figure.get("extra"),
                    unit=figure["unit"],
                    measured=data["measured"],
                    load=data["machine"]["load_average"],
                    bench=data["bench"],
                )
            )
    order = {tool: index for index, tool in enumerate(TOOLS)}
    return sorted(rows, key=lambda row: order.get(row.tool, len(order)))


def table(rows: list[Row]) -> str:
    """The markdown table of current figures, targets first."""
    lines = [
        "| tool | figure | ours | floor | ratio | target | status | measured (load) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        status = {True: "met", False: "**missed**", None: "for scale"}[row.met]
        floor = "" if row.floor is None else row.value(row.floor)
        ratio = "" if row.ratio is None else f"{row.ratio:.2f}x"
        what = row.what.replace("|", "\\|")
        lines.append(
            f"| {row.tool} | {what} | {row.value(row.ours)} | {floor} | {ratio} | "
            f"{row.goal()} | {status} | {row.measured} ({row.load:g}, {row.bench}) |"
        )
    return "\n".join(lines)


def page_with(text: str, rows: list[Row]) -> str:
    """The benchmarks page with its table of current figures replaced."""
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    return f"{before}{START}\n{table(rows)}\n{END}{after}"


def draw(rows: list[Row]) -> list[Path]:
    """One SVG per tool: each figure's share of its target, 1.0 marked."""
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    # Reproducible files: no date in the metadata, fixed ids.
    matplotlib.rcParams["svg.hashsalt"] = "toolplug"
    matplotlib.rcParams["svg.fonttype"] = "none"
    PLOTS.mkdir(exist_ok=True)
    written = []
    for tool in dict.fromkeys(row.tool for row in rows):
        shown = [row for row in rows if row.tool == tool and row.share is not None]
        if not shown:
            continue
        figure, axes = plt.subplots(figsize=(9, 0.45 * len(shown) + 1.2))
        labels = [_short(row.what) for row in shown]
        # A figure far past its target (or an error where none is allowed) is drawn
        # to the plot's edge.
        edge = max(1.3, *(row.share for row in shown if row.share != float("inf")))
        # On a log scale (a figure ten times past its target and one at a tenth of it
        # are as far from the line), zero drawn as a sliver.
        shares = [max(min(row.share, edge * 1.2), 0.02) for row in shown if row.share is not None]
        colours = ["#2e7d32" if row.met else "#c62828" for row in shown]
        axes.barh(range(len(shown)), shares, color=colours, left=0.015)
        axes.axvline(1.0, color="black", linewidth=1)
        axes.set_yticks(range(len(shown)), labels, fontsize=8)
        axes.invert_yaxis()
        axes.set_xlabel("share of the target, log scale (ratio / target ratio, or value / limit)")
        axes.set_title(f"{tool}: green met, red missed; the line is the target")
        for index, (row, share) in enumerate(zip(shown, shares)):
            axes.text(share, index, f" {row.goal()}", va="center", fontsize=7)
        axes.set_xscale("log")
        axes.set_xlim(0.015, max(2.0, max(shares) * 2.5))
        figure.tight_layout()
        path = PLOTS / f"{tool}.svg"
        figure.savefig(path, metadata={"Date": None})
        plt.close(figure)
        written.append(path)
    return written


def _short(what: str, width: int = 60) -> str:
    return what if len(what) <= width else what[: width - 1] + "…"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="check the page's table only")
    args = parser.parse_args(argv)
    rows = load()
    text = PAGE.read_text()
    wanted = page_with(text, rows)
    if args.check:
        if wanted != text:
            print("docs/benchmarks.md's table differs from bench/results: run bench/plots.py")
            return 1
        return 0
    PAGE.write_text(wanted)
    for path in draw(rows):
        print(f"wrote {path.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
