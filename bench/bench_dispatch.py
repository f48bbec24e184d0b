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
import time
from concurrent.futures import ThreadPoolExecutor

from pydantic import Field
from timing import interleaved, lower_quartile, report, save
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
    runs = {"floor": direct, "ours": ours}
    interleaved(runs, 3)  # warm up both
    # The lower quartile: noise on this machine only ever adds time.
    times = interleaved(runs, SLOW_ROUNDS if slow else ROUNDS, statistic=lower_quartile)
    return report("dispatch", label, times["ours"], times["floor"], TARGET, width=34)


def main() -> int:
    print(f"dispatch of {CALLS} calls to a trivial tool vs {CALLS} direct tool.call()")
    results = [
        measure("in order (tool changes things)", read_only=False),
        measure("side by side (read-only tool)", read_only=True),
    ]
    print(f"dispatch of {SLOW_CALLS} read-only calls that block {SLOW * 1e3:g} ms vs a pool")
    results.append(measure("side by side (slow read-only)", read_only=True, slow=True))
    save("bench_dispatch")
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
