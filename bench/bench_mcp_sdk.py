"""A call through toolplug's sync bridge against the official ``mcp`` SDK client.

    python bench/bench_mcp_sdk.py [--rounds N] [--calls N]

For each of two real servers, one synchronous call of a tool the way a host makes it
(``Toolset.load`` with an ``mcp`` config, then ``toolset.call``: the core's runner,
the sync bridge onto the client loop, toolplug's client on the SDK's session, the
result converted to an observation) against the floor: the SDK's ``ClientSession``
over ``stdio_client`` calling the same tool of its own copy of the same server, awaited
in an asyncio loop with nothing of toolplug's around it. Target: within 1.1x.

- ``mcp-server-time`` (PyPI, Python): ``get_current_time`` with a fixed timezone;
- ``@modelcontextprotocol/server-everything`` (npm, Node): ``echo``, installed with
  npm at a pinned release into a cache under the temp dir (skipped without npm).

The two contenders run in alternating rounds (and which goes first alternates too), so
that a burst of load on the machine hits both alike; each round times a batch of
sequential calls, and the figure is the median of the rounds' per-call times. A second
line gives the CPU time this process spent per call (all its threads), which load on
the machine disturbs less than wall time: the difference is what our layers cost. Only
stdio: nothing leaves the machine except npm fetching the server once.

Two (info) contenders, in the same rounds, split the gap in two:

- the SDK from a sync caller: the floor's own ``session.call_tool`` submitted from this
  thread to the floor's loop thread (``asyncio.run_coroutine_threadsafe``) and waited
  for, no toolplug at all: what any sync bridge over a loop in another thread costs;
- ours on the client loop: ``tool.acall`` awaited on toolplug's client loop itself, so
  our layers (argument checks, the runner, the observation) with no thread hop.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from timing import Stopwatch, report, save

#: The server-everything release the MCP tests pin (its tools differ by release).
EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31"
TARGET = 1.1
INFO_SDK_SYNC = "(info) the SDK from a sync caller"
INFO_OURS_ON_LOOP = "(info) ours on the client loop"
INFO = (INFO_SDK_SYNC, INFO_OURS_ON_LOOP)


@dataclass
class Server:
    """A server to call, and the tool call to time."""

    label: str
    command: str
    args: list[str]
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def entry(self) -> dict[str, Any]:
        """Its ``mcpServers`` entry."""
        return {"command": self.command, "args": self.args}


def time_server() -> Server:
    command = shutil.which("mcp-server-time", path=str(Path(sys.executable).parent))
    if command is None:
        raise SystemExit("mcp-server-time is not installed: pip install mcp-server-time")
    return Server(
        "mcp-server-time get_current_time",
        command,
        ["--local-timezone", "UTC"],
        "get_current_time",
        {"timezone": "Europe/Paris"},
    )


def everything_server() -> Server | None:
    """server-everything, installed once into a cache under the temp dir."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if not npm or not node:
        print("server-everything: skipped (node and npm are needed)")
        return None
    cache = Path(tempfile.gettempdir()) / "toolplug-bench-everything"
    main = cache / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    marker = cache / "installed.txt"
    if not main.exists() or not marker.exists() or marker.read_text() != EVERYTHING:
        cache.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", EVERYTHING],
            cwd=cache,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0 or not main.exists():
            print(f"server-everything: skipped (npm failed: {done.stderr[-300:]})")
            return None
        marker.write_text(EVERYTHING)
    return Server("server-everything echo", node, [str(main), "stdio"], "echo", {"message": "x"})


class SdkFloor:
    """The floor: the SDK's ``ClientSession`` over ``stdio_client``, in an asyncio loop.

    The loop runs in a thread of its own so that the floor and our sync calls can be
    timed in alternating rounds from one script; one task holds the session open (anyio
    wants it entered and left by the same task), and the timed calls run and are timed
    on that loop, so the floor is the SDK awaited in async code, with no thread hop.
    """

    def __init__(self, server: Server, legacy: bool = False) -> None:
        self.server = server
        self.legacy = legacy
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.ready = threading.Event()
        self.stop: asyncio.Event | None = None
        self.session: Any = None
        self.errlog = open(os.devnull, "w")  # noqa: SIM115 - closed in close()
        self.holder = asyncio.run_coroutine_threadsafe(self._hold(), self.loop)
        if not self.ready.wait(60):
            raise RuntimeError(f"the SDK client did not connect to {server.label}")

    async def _hold(self) -> None:
        from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=self.server.command, args=self.server.args, env=dict(os.environ)
        )
        self.stop = asyncio.Event()
        async with (
            stdio_client(params, errlog=self.errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            # The revision the SDK's own Client negotiates by default (and fastmcp's):
            # server/discover first, the initialize handshake for a server without it.
            if self.legacy:
                await session.initialize()
            else:
                try:
                    await session.discover()
                except MCPError:
                    await session.initialize()
            # Listed once, as any client does: the SDK checks results against the
            # tools' output schemas, and would list them at the first call otherwise.
            await session.list_tools()
            self.session = session
            self.ready.set()
            await self.stop.wait()

    def per_call(self, calls: int) -> tuple[float, float]:
        """Wall and CPU milliseconds per call over ``calls`` sequential calls, timed in
        the loop."""
        name, arguments = self.server.tool, self.server.arguments

        async def run() -> tuple[float, float]:
            with Stopwatch() as watch:
                for _ in range(calls):
                    result = await self.session.call_tool(name, arguments)
                    if result.is_error:
                        raise RuntimeError(f"the floor's call failed: {result}")
            return watch.wall / calls * 1000, watch.cpu / calls * 1000

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(120)

    def per_call_from_this_thread(self, calls: int) -> tuple[float, float]:
        """The same calls, each submitted from this (sync) thread to the floor's loop
        and waited for: the SDK behind the plainest sync bridge."""
        name, arguments = self.server.tool, self.server.arguments
        with Stopwatch() as watch:
            for _ in range(calls):
                call = self.session.call_tool(name, arguments)
                result = asyncio.run_coroutine_threadsafe(call, self.loop).result(120)
                if result.is_error:
                    raise RuntimeError(f"the floor's call failed: {result}")
        return watch.wall / calls * 1000, watch.cpu / calls * 1000

    def close(self) -> None:
        if self.stop is not None:
            self.loop.call_soon_threadsafe(self.stop.set)
        try:
            self.holder.result(30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.errlog.close()


@dataclass
class Figures:
    """Per-call medians in ms (wall time, and CPU time of this process) and each
    round's wall-time ratio."""

    ours: float
    floor: float
    ours_cpu: float
    floor_cpu: float
    ratios: list[float]
    #: The (info) contenders' per-call medians in ms (wall time).
    info: dict[str, float] = field(default_factory=dict)


def bench(server: Server, rounds: int, calls: int) -> Figures:
    """Time our calls and the floor's in alternating rounds."""
    from toolplug import Tool, Toolset

    config = {"mcpServers": {"s": server.entry()}}
    floor = SdkFloor(server)
    try:
        with Toolset.load([Tool("mcp", {"config": config})], plugins="mcp") as toolset:
            tool, arguments = server.tool, server.arguments
            if tool not in toolset:
                raise RuntimeError(f"{server.label}: no tool {tool!r} in {sorted(toolset)}")

            def ours_per_call(n: int) -> tuple[float, float]:
                with Stopwatch() as watch:
                    for _ in range(n):
                        observation = toolset.call(tool, arguments)
                        if observation.is_error:
                            raise RuntimeError(f"our call failed: {observation.text}")
                return watch.wall / n * 1000, watch.cpu / n * 1000

            def sdk_from_sync_caller(n: int) -> tuple[float, float]:
                return floor.per_call_from_this_thread(n)

            def ours_on_client_loop(n: int) -> tuple[float, float]:
                from toolplug.loop import run_sync

                definition = toolset[tool]

                async def run() -> tuple[float, float]:
                    with Stopwatch() as watch:
                        for _ in range(n):
                            observation = await definition.acall(arguments)
                            if observation.is_error:
                                raise RuntimeError(f"our call failed: {observation.text}")
                    return watch.wall / n * 1000, watch.cpu / n * 1000

                return run_sync(run())

            contenders = {
                "ours": ours_per_call,
                "floor": floor.per_call,
                INFO_SDK_SYNC: sdk_from_sync_caller,
                INFO_OURS_ON_LOOP: ours_on_client_loop,
            }
            for run in contenders.values():  # warm up (imports, caches, node's JIT)
                run(calls)
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
            for i in range(rounds):
                order = list(contenders.items())
                for name, run in order if i % 2 else reversed(order):
                    times[name].append(run(calls))
    finally:
        floor.close()
    ours, raw = times["ours"], times["floor"]
    return Figures(
        ours=statistics.median(o[0] for o in ours),
        floor=statistics.median(r[0] for r in raw),
        ours_cpu=statistics.median(o[1] for o in ours),
        floor_cpu=statistics.median(r[1] for r in raw),
        ratios=[o[0] / r[0] for o, r in zip(ours, raw)],
        info={name: statistics.median(t[0] for t in times[name]) for name in INFO},
    )


def line(what: str, figures: Figures) -> None:
    """Report the figures (given in milliseconds) of one server."""
    ratios = figures.ratios
    report("mcp", what, figures.ours / 1000, figures.floor / 1000, TARGET)
    print(f"  (ratios of the rounds {min(ratios):.2f}-{max(ratios):.2f}x)")
    report(
        "mcp",
        f"{what}: this process's CPU per call",
        figures.ours_cpu / 1000,
        figures.floor_cpu / 1000,
    )
    for name, wall in figures.info.items():
        report("mcp", f"{what}: {name}", wall / 1000, figures.floor / 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="alternating rounds")
    parser.add_argument("--calls", type=int, default=50, help="sequential calls per round")
    options = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    for server in (time_server(), everything_server()):
        if server is None:
            continue
        line(server.label, bench(server, options.rounds, options.calls))
    save("bench_mcp_sdk")


if __name__ == "__main__":
    main()
