"""Benchmark: dispatch of Chat Completions tool calls, against a floor in the same run.

Quick calls: 100 calls to a trivial tool; the floor is the same 100 calls made directly
through ``tool.call``. Dispatch adds reading the calls, planning, running and the
``{"role": "tool"}`` messages. Two cases: a tool that changes things (its calls run in
order) and a read-only tool (its calls may run side by side: the calling thread runs
them, and a helper would join a slow one).

Slow calls: 8 calls to a read-only tool that blocks for 50 ms (a network read); the
floor is a thread pool running the same 8 ``tool.call`` at once. Dispatch predicts
nothing: helpers join once a call has run for about a millisecond.

Target: within 1.5x of the floor. Prints our time, the floor, the ratio and PASS/MISS.

    python bench/bench_dispatch.py
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from pydantic import Field
from toolplug import Action, Observation, ToolAnnotations, ToolDefinition, Toolset
from toolplug.dispatch import dispatch

CALLS = 100
TARGET = 1.5
ROUNDS = 60
SLOW_CALLS = 8
SLOW = 0.05  # seconds each slow call blocks
SLOW_ROUNDS = 20


class Add(Action):
    a: int = Field(description="First number.")
    b: int = Field(description="Second number.")


def add(action: Add) -> Observation:
    return Observation.from_text(str(action.a + action.b))


def wait(action: Add) -> Observation:
    time.sleep(SLOW)
    return Observation.from_text(str(action.a + action.b))


def timed(
    direct: Callable[[], object], ours: Callable[[], object], rounds: int = ROUNDS
) -> tuple[float, float]:
    """Both sides, alternating round by round so that noise hits them alike.

    Returns the lower quartile of each side's times, in seconds.
    """
    floor: list[float] = []
    mine: list[float] = []
    for _ in range(rounds):
        for fn, times in ((direct, floor), (ours, mine)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return (statistics.quantiles(floor, n=4)[0], statistics.quantiles(mine, n=4)[0])


def chat_calls(count: int) -> list[dict[str, object]]:
    return [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "add", "arguments": json.dumps({"a": i, "b": 1})},
        }
        for i in range(count)
    ]


def measure(label: str, read_only: bool, slow: bool = False) -> bool:
    annotations = ToolAnnotations(readOnlyHint=True) if read_only else None
    tool = ToolDefinition(
        name="add",
        description="Add.",
        action_type=Add,
        executor=wait if slow else add,
        annotations=annotations,
    )
    toolset = Toolset([tool])
    count = SLOW_CALLS if slow else CALLS
    calls = chat_calls(count)
    arguments = [c["function"]["arguments"] for c in calls]  # type: ignore[index]

    def direct() -> None:
        if slow:  # side by side, in a pool's threads
            with ThreadPoolExecutor(count) as pool:
                list(pool.map(tool.call, arguments))
        else:
            for args in arguments:
                tool.call(args)

    def ours() -> None:
        dispatch(toolset, calls)

    results = dispatch(toolset, calls)
    assert [r["content"] for r in results] == [str(i + 1) for i in range(count)]
    for _ in range(3):  # warm up both
        direct()
        ours()
    floor, mine = timed(direct, ours, SLOW_ROUNDS if slow else ROUNDS)
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
    print(f"dispatch of {SLOW_CALLS} read-only calls that block {SLOW * 1e3:g} ms vs a pool")
    results.append(measure("side by side (slow read-only)", read_only=True, slow=True))
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
