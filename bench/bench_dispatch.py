"""Benchmark: dispatch of 100 Chat Completions tool calls to a trivial tool.

The floor is the same 100 calls made directly through ``tool.call`` in the same run;
dispatch adds reading the calls, planning, running and the ``{"role": "tool"}`` messages.
Two cases: a tool that changes things (its calls run in order, in the calling thread)
and a read-only tool (its calls may run side by side, so worker threads join in).
Target: within 1.5x of the floor. Prints our time, the floor, the ratio and PASS/MISS.

    python bench/bench_dispatch.py
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

from pydantic import Field
from toolplug import Action, Observation, ToolAnnotations, ToolDefinition, Toolset
from toolplug.dispatch import dispatch

CALLS = 100
TARGET = 1.5
ROUNDS = 60


class Add(Action):
    a: int = Field(description="First number.")
    b: int = Field(description="Second number.")


def add(action: Add) -> Observation:
    return Observation.from_text(str(action.a + action.b))


def timed(direct: Callable[[], object], ours: Callable[[], object]) -> tuple[float, float]:
    """Both sides, alternating round by round so that noise hits them alike.

    Returns the lower quartile of each side's times, in seconds.
    """
    floor: list[float] = []
    mine: list[float] = []
    for _ in range(ROUNDS):
        for fn, times in ((direct, floor), (ours, mine)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return (statistics.quantiles(floor, n=4)[0], statistics.quantiles(mine, n=4)[0])


def measure(label: str, read_only: bool) -> bool:
    annotations = ToolAnnotations(readOnlyHint=True) if read_only else None
    tool = ToolDefinition(
        name="add", description="Add.", action_type=Add, executor=add, annotations=annotations
    )
    toolset = Toolset([tool])
    calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "add", "arguments": json.dumps({"a": i, "b": 1})},
        }
        for i in range(CALLS)
    ]
    arguments = [c["function"]["arguments"] for c in calls]  # type: ignore[index]

    def direct() -> None:
        for args in arguments:
            tool.call(args)

    def ours() -> None:
        dispatch(toolset, calls)

    results = dispatch(toolset, calls)
    assert [r["content"] for r in results] == [str(i + 1) for i in range(CALLS)]
    for _ in range(3):  # warm up both
        direct()
        ours()
    floor, mine = timed(direct, ours)
    ratio = mine / floor
    ok = ratio <= TARGET
    print(
        f"{label:<34} ours {mine * 1e3:7.3f} ms   floor {floor * 1e3:7.3f} ms   "
        f"ratio {ratio:5.2f}   target <= {TARGET}   {'PASS' if ok else 'MISS'}"
    )
    return ok


def main() -> int:
    print(f"dispatch of {CALLS} calls to a trivial tool vs {CALLS} direct tool.call()")
    results = [
        measure("in order (tool changes things)", read_only=False),
        measure("side by side (read-only tool)", read_only=True),
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
