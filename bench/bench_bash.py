"""Benchmark of toolplug-bash: each target against a floor measured in the same run.

Run: python bench/bench_bash.py (with toolplug-bash installed). Prints one line per
target: what, our time, the floor, the ratio, the target and PASS/MISS. The sandbox's
targets (bubblewrap) are measured against the same tool outside the sandbox; they are
skipped, with the reason, where bubblewrap cannot run.
"""

from __future__ import annotations

import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import toolplug_bash
from timing import interleaved
from toolplug import Tool, ToolContext, ToolError
from toolplug.testing import registry_from
from toolplug_bash import sandbox

REPEATS = 400
START_REPEATS = 30

REGISTRY = registry_from(toolplug_bash)


def make_tool(workspace: str, **params: object):
    """Create a bash tool the way a host does: from its (already loaded) registry."""
    (tool,) = REGISTRY.resolve(Tool("bash", params), ToolContext(workspace=Path(workspace)))
    return tool


def report(what: str, ours: float, floor: float, target: float, unit: str = "ms") -> bool:
    ratio = ours / floor
    scale = 1000.0 if unit == "ms" else 1.0
    verdict = "PASS" if ratio <= target else "MISS"
    print(
        f"{what:<46} ours {ours * scale:9.3f} {unit}  floor {floor * scale:9.3f} {unit}  "
        f"ratio {ratio:6.2f}x  target <= {target:g}x  {verdict}"
    )
    return ratio <= target


class PipeBash:
    """The floor: an already-open bash over plain pipes."""

    def __init__(self, cwd: str) -> None:
        self.process = subprocess.Popen(
            ["bash", "--norc", "--noprofile"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=cwd,
        )
        self.stdin = self.process.stdin.fileno()  # type: ignore[union-attr]
        self.stdout = self.process.stdout.fileno()  # type: ignore[union-attr]

    def round_trip(self, line: bytes, end: bytes) -> bytes:
        os.write(self.stdin, line)
        data = b""
        while not data.endswith(end):
            chunk = os.read(self.stdout, 65536)
            if not chunk:
                raise RuntimeError(f"the floor's bash ended; read {data!r}")
            data += chunk
        return data

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def bench_round_trip(workspace: str) -> bool:
    tool = make_tool(workspace)
    executor = tool.executor
    pipes = PipeBash(workspace)
    try:
        assert tool.call({"command": "echo hi"}).output == "hi\n"
        echo = b"echo hi\n"
        with_status = b"echo hi; printf '%s;%s\\n' $? \"$PWD\"\n"
        pipes.round_trip(echo, b"hi\n")
        from toolplug_bash import BashAction

        action = BashAction(command="echo hi")
        medians = interleaved(
            {
                "echo": lambda: pipes.round_trip(echo, b"hi\n"),
                "status": lambda: pipes.round_trip(with_status, workspace.encode() + b"\n"),
                "executor": lambda: executor(action),
                "call": lambda: tool.call({"command": "echo hi"}),
            },
            REPEATS,
        )
        floor_echo, floor_status = medians["echo"], medians["status"]
        ours_executor, ours_call = medians["executor"], medians["call"]
    finally:
        pipes.close()
        tool.close()
    ok = report("echo hi round trip, executor (vs pipes+status)", ours_executor, floor_status, 5)
    ok &= report("echo hi round trip, tool.call (vs pipes+status)", ours_call, floor_status, 5)
    report("echo hi round trip, tool.call (vs bare echo)", ours_call, floor_echo, 5)
    return ok


def bench_session_start(workspace: str) -> bool:
    def ours() -> None:
        tool = make_tool(workspace)
        assert tool.call({"command": "echo hi"}).output == "hi\n"
        tool.close()

    def floor() -> None:
        process = subprocess.Popen(["bash"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        out, _ = process.communicate(b"echo hi\n")
        assert out == b"hi\n"

    # Closing is not part of a start: time it out of the measure.
    def ours_start_only() -> float:
        tool = make_tool(workspace)
        start = time.perf_counter()
        tool.call({"command": "echo hi"})
        elapsed = time.perf_counter() - start
        tool.close()
        return elapsed

    ours()
    floor()
    floor_times, our_times = [], []
    for _ in range(START_REPEATS):  # alternated, so that noise hits both alike
        floor_times.append(_timed_call(floor))
        our_times.append(_timed(lambda: make_tool(workspace)) + ours_start_only())
    floor_time, create_and_first = statistics.median(floor_times), statistics.median(our_times)
    return report("session start + first echo hi (vs bare bash)", create_and_first, floor_time, 2)


def _timed_call(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    tool = action()
    elapsed = time.perf_counter() - start
    tool.close()  # type: ignore[attr-defined]
    return elapsed


def _peak_growth(action: Callable[[], object]) -> float:
    """Peak RSS growth of this process while ``action`` runs, in bytes (Linux)."""

    def status(field: str) -> int:
        with open("/proc/self/status") as f:
            return int(next(x for x in f if x.startswith(field)).split()[1]) * 1024

    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS:")
    action()
    return status("VmHWM:") - before


def bench_memory(workspace: str) -> bool:
    tool = make_tool(workspace)
    try:
        tool.call({"command": "echo warm"})
        result: dict[str, object] = {}

        def ours() -> None:
            result["obs"] = tool.call({"command": "seq 1 5000000", "timeout": 60})

        growth = _peak_growth(ours)
        observation = result["obs"]
        assert observation.exit_code == 0 and observation.full_output_path  # type: ignore[attr-defined]
    finally:
        tool.close()

    def floor() -> None:  # the same output read whole, as a plain capture would hold it
        subprocess.run(["seq", "1", "5000000"], stdout=subprocess.PIPE, check=True)

    floor_growth = _peak_growth(floor)
    mib = 1024 * 1024
    verdict = "PASS" if growth < 50 * mib else "MISS"
    print(
        f"{'seq 1 5000000 peak memory growth':<46} ours {growth / mib:9.1f} MB  "
        f"floor {floor_growth / mib:9.1f} MB  ratio {growth / max(floor_growth, 1):6.2f}x  "
        f"target < 50 MB  {verdict}"
    )
    return growth < 50 * mib


def sandbox_problem() -> str | None:
    """Why the bubblewrap sandbox cannot run here (None: it can)."""
    try:
        sandbox.check_runs(sandbox.find_bwrap(os.environ.get("PATH")), network=False)
    except ToolError as exc:
        return str(exc)
    return None


def bench_sandbox_round_trip(workspace: str) -> bool:
    """A warm ``echo hi`` in the sandbox against the same outside it."""
    inside = make_tool(workspace, sandbox="bwrap")
    outside = make_tool(workspace)
    try:
        for tool in (inside, outside):
            assert tool.call({"command": "echo hi"}).output == "hi\n"
        medians = interleaved(
            {
                "outside": lambda: outside.call({"command": "echo hi"}),
                "inside": lambda: inside.call({"command": "echo hi"}),
            },
            REPEATS,
        )
    finally:
        inside.close()
        outside.close()
    return report(
        "sandbox: echo hi round trip (vs no sandbox)", medians["inside"], medians["outside"], 1.2
    )


def bench_sandbox_start(workspace: str) -> bool:
    """Creating the tool, then its first ``echo hi`` (which starts the shell), in the
    sandbox and outside it, alternated; closing is not timed."""

    def start(**params: object) -> float:
        started = time.perf_counter()
        tool = make_tool(workspace, **params)
        assert tool.call({"command": "echo hi"}).output == "hi\n"
        elapsed = time.perf_counter() - started
        tool.close()
        return elapsed

    start(sandbox="bwrap")  # the one-time probe of bwrap is not a session's start
    inside, outside = [], []
    for _ in range(START_REPEATS):
        outside.append(start())
        inside.append(start(sandbox="bwrap"))
    ours, floor = statistics.median(inside), statistics.median(outside)
    extra = ours - floor
    verdict = "PASS" if extra <= 0.060 else "MISS"
    print(
        f"{'sandbox: session start + first echo hi':<46} ours {ours * 1000:9.3f} ms  "
        f"floor {floor * 1000:9.3f} ms  ratio {ours / floor:6.2f}x  "
        f"extra {extra * 1000:.1f} ms, target <= 60 ms  {verdict}"
    )
    return extra <= 0.060


def main() -> int:
    with tempfile.TemporaryDirectory() as workspace:
        workspace = os.path.realpath(workspace)
        ok = bench_round_trip(workspace)
        ok &= bench_session_start(workspace)
        ok &= bench_memory(workspace)
        problem = sandbox_problem()
        if problem is None:
            ok &= bench_sandbox_round_trip(workspace)
            ok &= bench_sandbox_start(workspace)
        else:
            print(f"sandbox benchmarks skipped: {problem}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
