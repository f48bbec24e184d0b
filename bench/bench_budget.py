"""The output budget's cost on a result within it (issue #28: at most 1.05x of no budget).

The same tool is called through two toolsets, one with the default budget and one
with none, alternated round by round; the result (2,000 characters of lines) is well
within the budget, so the figure is what counting its text costs on every call.
Run: python bench/bench_budget.py  (with toolplug installed)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping

from timing import Stopwatch, lower_quartile, report, save
from toolplug import Toolset, tool

TEXT = "".join(f"line {i:03d} " + "x" * 30 + "\n" for i in range(50))  # 2,000 characters


@tool
def listing(n: int) -> str:
    """Return ``n`` characters of numbered lines."""
    return TEXT[:n]


def alternated(
    runs: Mapping[str, Callable[[], object]], rounds: int, number: int
) -> dict[str, float]:
    """CPU seconds per call of each run: this thread's, so the machine's other work
    does not count, and the lower quartile, as noise only ever adds time. The runs are
    alternated round by round, their order reversed every other round."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for i in range(rounds):
        for name in names if i % 2 == 0 else names[::-1]:
            run = runs[name]
            with Stopwatch(time.thread_time) as watch:
                for _ in range(number):
                    run()
            samples[name].append(watch.cpu / number)
    return {name: lower_quartile(values) for name, values in samples.items()}


def bench_within_budget() -> bool:
    args = {"n": len(TEXT)}
    # Both toolsets hold a copy of the tool: the same object in each, but for the budget.
    with (
        Toolset([listing.bind_hooks(None)]) as budgeted,
        Toolset([listing.bind_hooks(None)], budget=None) as bare,
    ):
        assert budgeted.spill is not None and bare.spill is None
        assert budgeted.call("listing", args).text == bare.call("listing", args).text == TEXT

        runs = {
            "ours": lambda: budgeted.call("listing", args),
            "floor": lambda: bare.call("listing", args),
        }
        alternated(runs, 4, number=2000)  # warm up
        times = alternated(runs, 40, number=2000)
    return report(
        "core",
        "Toolset.call, 2,000-char result, budget on vs off (CPU)",
        times["ours"],
        times["floor"],
        1.05,
        "us",
    )


if __name__ == "__main__":
    results = [bench_within_budget()]
    save("bench_budget")
    sys.exit(0 if all(results) else 1)
