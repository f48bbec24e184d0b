"""Benchmark of starting toolplug: each target against a floor measured in the same run.

Run: python bench/bench_start.py (in a venv with toolplug and its built-in plugins
installed, toolplug-mcp among them). Every contender is a fresh process; the
contenders of one target alternate in rounds, so that a burst of load on the shared
machine hits them alike, and the medians are compared. Prints one line per target with
PASS/MISS; exits non-zero on a miss.

- cold call: ``toolplug call think '{"thought": "x"}'`` against
  ``python -c "import pydantic, pluggy, click"`` (the core's own dependencies).
- plugins: ``toolplug plugins`` against the bare metadata scan (the entry points of the
  group ``toolplug``).
- mcp serve: ``toolplug mcp serve`` over stdio, from spawn to the answer to the first
  ``tools/list``, against a minimal fastmcp server with one tool.
- memory: peak RSS of a host that loads every built-in tool but mcp and calls each once,
  against a process that imports only pydantic and pluggy.

Beside the cold call and the memory lines, an (info) line times the least that any
tool whose arguments are a pydantic model costs: the floor's imports, one model with
one field defined, and one value validated (no toolplug at all). Where that line is
over a target already, no change to toolplug's own code can meet the target.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import timing

BIN = Path(sys.executable).parent
PYTHON = sys.executable
TOOLPLUG = str(BIN / "toolplug")

FASTMCP_FLOOR = '''\
from fastmcp import FastMCP

mcp = FastMCP("floor")


@mcp.tool
def think(thought: str) -> str:
    """Log a thought."""
    return "logged"


mcp.run(show_banner=False)
'''

#: Every built-in tool but mcp, and one call of each.
HOST = """\
import json, resource, sys
from toolplug import Toolset

workspace = sys.argv[1]
calls = {
    "think": {"thought": "x"},
    "finish": {"message": "done"},
    "bash": {"command": "echo hi"},
    "file_editor": {"command": "view", "path": workspace + "/a.txt"},
    "glob": {"pattern": "*.txt"},
    "grep": {"pattern": "hello"},
}
with Toolset.load(list(calls), workspace=workspace) as tools:
    for name, arguments in calls.items():
        observation = tools.call(name, arguments)
        assert not observation.is_error, (name, observation.text)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

#: The least a call of a tool with pydantic arguments does: one model, one validation.
ONE_MODEL = """\
import resource, pydantic, pluggy, click
from pydantic import BaseModel


class Arguments(BaseModel):
    thought: str


Arguments.model_validate({"thought": "x"})
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

FLOOR_MEMORY = (
    "import resource, pydantic, pluggy\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def report(
    what: str,
    ours: float,
    floor: float,
    target: float | None,
    unit: str = "ms",
    cpu: tuple[float, float] | None = None,
) -> bool:
    """Report one figure; ``cpu``: our and the floor's child CPU time, printed beside."""
    met = timing.report("start", what, ours, floor, target, unit)
    if cpu is not None:
        print(f"  (cpu {cpu[0] * 1e3:.0f}/{cpu[1] * 1e3:.0f} ms {cpu[0] / cpu[1]:.2f}x)")
    return met


def rounds(runs: dict[str, Callable[[], float]], count: int) -> dict[str, tuple[float, float]]:
    """Per run: the median of what it returns (its time, or a size) and of the CPU time
    its child processes took; the runs alternated, after one untimed warm-up round
    (file cache, bytecode)."""
    for run in runs.values():
        run()
    results: dict[str, list[float]] = {name: [] for name in runs}
    spent: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(count):
        for name, run in runs.items():
            with timing.Stopwatch(_children_cpu) as watch:
                results[name].append(run())
            spent[name].append(watch.cpu)
    return {
        name: (statistics.median(results[name]), statistics.median(spent[name])) for name in runs
    }


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict[str, str], cwd: str | None = None) -> Callable[[], float]:
    run = timing.command(argv, env, cwd=cwd)
    return lambda: timing.median_time(run, 1)


def mcp_first_list(argv: list[str], env: dict[str, str], cwd: str) -> Callable[[], float]:
    """Spawn a stdio MCP server, and time it up to its answer to the first tools/list."""
    lines = b"".join(json.dumps(m).encode() + b"\n" for m in (INITIALIZE, INITIALIZED, LIST))

    def run() -> float:
        with timing.Stopwatch() as watch:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                cwd=cwd,
            )
            assert process.stdin is not None and process.stdout is not None
            # A client sends initialize, waits for its answer, then lists the tools.
            process.stdin.write(lines[: lines.index(b"\n") + 1])
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            assert answer.get("id") == 1, answer
            process.stdin.write(lines[lines.index(b"\n") + 1 :])
            process.stdin.flush()
            while True:
                line = process.stdout.readline()
                if not line:
                    raise RuntimeError(f"{argv[0]} ended before it listed its tools")
                message = json.loads(line)
                if message.get("id") == 2:
                    break
        assert message["result"]["tools"], message
        process.stdin.close()
        process.kill()
        process.wait()
        process.stdout.close()
        return watch.wall

    return run


def bench_cold_call(env: dict[str, str], count: int) -> bool:
    think = dict(env, TOOLPLUG_PLUGINS="think")
    medians = rounds(
        {
            "floor": timed([PYTHON, "-c", "import pydantic, pluggy, click"], env),
            "ours": timed([TOOLPLUG, "call", "think", '{"thought": "x"}'], env),
            "ours, TOOLPLUG_PLUGINS=think": timed(
                [TOOLPLUG, "call", "think", '{"thought": "x"}'], think
            ),
            "one model": timed([PYTHON, "-c", ONE_MODEL], env),
        },
        count,
    )
    floor = medians["floor"]
    ours, think_only = medians["ours"], medians["ours, TOOLPLUG_PLUGINS=think"]
    ok = report(
        "toolplug call think (cold process)", ours[0], floor[0], 1.3, cpu=(ours[1], floor[1])
    )
    report(
        "the same, TOOLPLUG_PLUGINS=think",
        think_only[0],
        floor[0],
        None,
        cpu=(think_only[1], floor[1]),
    )
    one_model = medians["one model"]
    report(
        "no toolplug: one pydantic model (cold process)",
        one_model[0],
        floor[0],
        None,
        cpu=(one_model[1], floor[1]),
    )
    return ok


def bench_plugins(env: dict[str, str], count: int) -> bool:
    scan = (
        "from importlib.metadata import entry_points\n"
        "print([e.name for e in entry_points(group='toolplug')])\n"
    )
    medians = rounds(
        {
            "floor": timed([PYTHON, "-c", scan], env),
            "ours": timed([TOOLPLUG, "plugins"], env),
        },
        count,
    )
    ours, floor = medians["ours"], medians["floor"]
    return report(
        "toolplug plugins (cold process)", ours[0], floor[0], 1.5, cpu=(ours[1], floor[1])
    )


def bench_mcp_serve(env: dict[str, str], workspace: str, count: int) -> bool:
    floor_script = Path(workspace) / "floor_server.py"
    floor_script.write_text(FASTMCP_FLOOR)
    medians = rounds(
        {
            "floor": mcp_first_list([PYTHON, str(floor_script)], env, workspace),
            "ours": mcp_first_list([TOOLPLUG, "mcp", "serve"], env, workspace),
        },
        count,
    )
    ours, floor = medians["ours"], medians["floor"]
    return report(
        "mcp serve: spawn to first tools/list", ours[0], floor[0], 1.2, cpu=(ours[1], floor[1])
    )


def peak_kib(argv: list[str], env: dict[str, str]) -> float:
    out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def bench_memory(env: dict[str, str], workspace: str, count: int) -> bool:
    Path(workspace, "a.txt").write_text("hello\n")
    medians = rounds(
        {
            "floor": lambda: peak_kib([PYTHON, "-c", FLOOR_MEMORY], env),
            "ours": lambda: peak_kib([PYTHON, "-c", HOST, workspace], env),
            "one model": lambda: peak_kib([PYTHON, "-c", ONE_MODEL], env),
        },
        count,
    )
    floor = medians["floor"][0] / 1024
    ok = report(
        "peak RSS: every tool but mcp, one call each",
        medians["ours"][0] / 1024,
        floor,
        1.5,
        unit="MB",
    )
    report(
        "no toolplug: one pydantic model, peak RSS",
        medians["one model"][0] / 1024,
        floor,
        None,
        unit="MB",
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="rounds per target")
    options = parser.parse_args()
    # Bytecode is written and used, as in a user's install (a dev environment may set
    # PYTHONDONTWRITEBYTECODE, and then every start compiles every module anew).
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TOOLPLUG_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    with tempfile.TemporaryDirectory() as workspace:
        ok = bench_cold_call(env, options.rounds)
        ok &= bench_plugins(env, options.rounds)
        ok &= bench_mcp_serve(env, workspace, max(options.rounds // 2, 5))
        ok &= bench_memory(env, workspace, 5)
    print(f"  (medians of the rounds, contenders alternated; load average {_load()})")
    timing.save("bench_start")
    return 0 if ok else 1


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
