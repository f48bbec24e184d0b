"""What every benchmark shares: timing (medians, contenders run in alternation) and its
figures, printed as one line each and written as data for the docs' plots.

A benchmark times with :func:`per_call`, :func:`median_time`, :func:`interleaved` or
:func:`run_median`, and reports each figure with :func:`report`, which prints::

    <what>   ours 1.23 ms  floor 1.00 ms  ratio  1.23x  target <= 1.5x  PASS

and keeps the figure. :func:`save` writes the run's figures to ``bench/results/<bench>.json``
(a benchmark calls it last); ``python bench/plots.py`` draws ``docs/benchmarks/*.svg`` and
the table of current figures in ``docs/benchmarks.md`` from those files.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

RESULTS = Path(__file__).with_name("results")

#: Units a figure can be printed in, with the factor from seconds.
UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6}


# -- timing -------------------------------------------------------------------------------


class Stopwatch:
    """Wall time and this process's CPU time of a ``with`` block, in seconds, for code
    that must time itself (inside an event loop, or leaving out its setting up)::

        with Stopwatch() as watch:
            work()
        watch.wall, watch.cpu
    """

    wall = cpu = 0.0

    def __init__(self, cpu_clock: Callable[[], float] = time.process_time) -> None:
        """``cpu_clock``: ``time.thread_time`` counts the calling thread's CPU alone."""
        self._clock = cpu_clock

    def __enter__(self) -> Stopwatch:
        self._cpu, self._wall = self._clock(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = self._clock() - self._cpu


def median_time(run: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``run`` over ``repeats`` calls, in seconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def per_call(run: Callable[[], object], number: int, repeats: int = 7) -> float:
    """Median seconds per call of ``run``, over ``repeats`` loops of ``number`` calls (a
    loop amortises the timer for calls of a few microseconds)."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(number):
            run()
        samples.append((time.perf_counter() - started) / number)
    return statistics.median(samples)


async def per_call_async(
    run: Callable[[], Awaitable[object]], number: int, repeats: int = 7
) -> float:
    """:func:`per_call` for a coroutine function, timed inside its event loop."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(number):
            await run()
        samples.append((time.perf_counter() - started) / number)
    return statistics.median(samples)


def lower_quartile(samples: Sequence[float]) -> float:
    """The first quartile: a figure for code whose noise only ever adds time."""
    return statistics.quantiles(samples, n=4)[0]


def interleaved(
    runs: Mapping[str, Callable[[], object]],
    repeats: int,
    number: int = 1,
    statistic: Callable[[list[float]], float] = statistics.median,
) -> dict[str, float]:
    """Seconds per call of each run (the median of ``repeats`` samples, or ``statistic``),
    the runs alternated round by round so that machine noise (a burst of load) hits them
    alike rather than one of them alone. ``number`` calls make one sample, for calls too
    quick to time one at a time."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            started = time.perf_counter()
            for _ in range(number):
                run()
            times[name].append((time.perf_counter() - started) / number)
    return {name: statistic(values) for name, values in times.items()}


def command(
    argv: Sequence[str], env: Mapping[str, str] | None = None, **options: object
) -> Callable[[], object]:
    """A run of ``argv`` to its end (it must succeed, its output is dropped), to time."""
    return lambda: subprocess.run(
        list(argv),
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        **options,  # type: ignore[call-overload]
    )


def interleaved_self_timed(
    runs: Mapping[str, Callable[[], float]], repeats: int
) -> dict[str, float]:
    """Like :func:`interleaved`, for runs that time themselves (each returns the seconds
    of the part that counts, leaving out its own setting up and cleaning up)."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            times[name].append(run())
    return {name: statistics.median(values) for name, values in times.items()}


def run_median(
    argv: Sequence[str], repeats: int, env: Mapping[str, str] | None = None, **options: object
) -> float:
    """Median wall time of running ``argv`` to its end (it must succeed), in seconds."""
    return median_time(command(argv, env, **options), repeats)


# -- figures ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """One measured figure: our time against a floor measured in the same run."""

    tool: str
    what: str
    ours: float
    """Seconds (or the unit's base for figures that are not times, such as bytes)."""
    floor: float | None
    """The floor measured in the same run; None for a figure with an absolute limit only."""
    target: float | None
    """The ratio the issue asks for at most; None for a figure shown for scale only."""
    unit: str
    limit: float | None = None
    """An absolute bound on ``ours`` (same base unit), where the issue gives one."""
    extra: float | None = None
    """A bound on ``ours - floor``, where the issue asks for at most so much added."""

    @property
    def ratio(self) -> float | None:
        return self.ours / self.floor if self.floor else None

    @property
    def met(self) -> bool:
        return (
            (self.target is None or (self.ratio is not None and self.ratio <= self.target))
            and (self.limit is None or self.ours <= self.limit)
            and (self.extra is None or self.ours - (self.floor or 0.0) <= self.extra)
        )

    @property
    def bounded(self) -> bool:
        """Whether the figure has any target at all (else it is shown for scale)."""
        return not (self.target is None and self.limit is None and self.extra is None)


_figures: list[Figure] = []


def report(
    tool: str,
    what: str,
    ours: float,
    floor: float | None,
    target: float | None = None,
    unit: str = "ms",
    *,
    limit: float | None = None,
    extra: float | None = None,
    width: int = 52,
) -> bool:
    """Print one figure's line, keep it for :func:`save`, and say whether it met its
    targets (a ratio ``target``, an absolute ``limit``, an ``extra`` over the floor).

    ``ours``, ``floor``, ``limit`` and ``extra`` are in seconds for the time units (``s``,
    ``ms``, ``us``) and printed in ``unit``; any other unit (``MB``) is printed as given.
    """
    figure = Figure(tool, what, ours, floor, target, unit, limit, extra)
    _figures.append(figure)
    scale = UNITS.get(unit, 1.0)
    goals = []
    if target is not None:
        goals.append(f"target <= {target:g}x")
    if limit is not None:
        goals.append(f"limit {limit * scale:g} {unit}")
    if extra is not None:
        added = (ours - (floor or 0.0)) * scale
        goals.append(f"extra {added:.1f} {unit}, at most {extra * scale:g}")
    verdict = "  ".join(goals) + ("  PASS" if figure.met else "  MISS") if goals else "(info)"
    against = "" if floor is None else f"floor {floor * scale:9.3f} {unit}  "
    ratio = "" if figure.ratio is None else f"ratio {figure.ratio:6.2f}x  "
    print(f"{what:<{width}} ours {ours * scale:9.3f} {unit}  {against}{ratio}{verdict}")
    return figure.met


def figures() -> list[Figure]:
    """The figures reported so far in this run."""
    return list(_figures)


def save(bench: str) -> Path | None:
    """Write this run's figures to ``bench/results/<bench>.json`` (replacing the last run's)
    with when, where and how loaded the machine was; ``TOOLPLUG_BENCH_NO_SAVE=1`` skips it.
    """
    if os.environ.get("TOOLPLUG_BENCH_NO_SAVE") or not _figures:
        return None
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{bench}.json"
    data = {
        "bench": bench,
        "measured": datetime.date.today().isoformat(),
        "machine": {
            "cpus": os.cpu_count(),
            "load_average": round(os.getloadavg()[0], 2),
            "python": platform.python_version(),
        },
        "figures": [
            asdict(figure) | {"ratio": figure.ratio, "met": figure.met} for figure in _figures
        ],
    }
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"figures written to {path}")
    return path
