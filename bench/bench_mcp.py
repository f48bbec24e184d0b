"""toolplug-mcp benchmarks: each line is our time against a floor measured in this run.

    python bench/bench_mcp.py

1. one call of a trivial tool over stdio through the sync bridge, against a raw
   fastmcp Client calling the same server in an async loop (target <= 1.3x);
2. 100 calls from 8 threads over one shared connection, against the same 100 calls
   made one after another by the raw async client (target <= 1.5x);
3. `toolplug mcp serve` answering a trivial call over HTTP, against a plain fastmcp
   server with the same tool (target <= 1.5x);
4. reading a 10 MB `tools/list` answer one of whose tools nests 5,000 deep (the SDK
   refuses it, the client cuts the tool out and the SDK reads the rest), against the
   SDK reading the same answer without that tool (target <= 3x).
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "plugins" / "mcp" / "tests" / "servers" / "demo_server.py"
COUNTER = ROOT / "plugins" / "mcp" / "tests" / "counter_plugin"
REPEATS = 7


def line(what: str, ours: float, floor: float, target: float, unit: str = "ms") -> None:
    ratio = ours / floor
    verdict = "PASS" if ratio <= target else "MISS"
    print(
        f"{what:<44} ours {ours:8.3f} {unit}  floor {floor:8.3f} {unit}  "
        f"ratio {ratio:5.2f}  target <= {target:.1f}x  {verdict}"
    )


def median_per_call(fn, calls: int, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(calls)
        times.append((time.perf_counter() - start) / calls * 1000)
    return statistics.median(times)


class RawClient:
    """The floor: a bare fastmcp ``Client`` on an event loop of its own thread.

    One task holds the connection open (fastmcp wants it entered and left by the same
    task); the timed calls run as other tasks of that loop, and are timed there, so the
    floor is a raw client awaited in an async loop. Living beside the tool's server,
    it lets the two be measured in alternating rounds.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.ready = threading.Event()
        self.stop: asyncio.Event | None = None
        self.client = None
        self.holder = asyncio.run_coroutine_threadsafe(self._hold(), self.loop)
        if not self.ready.wait(60):
            raise RuntimeError("the raw client did not connect")

    async def _hold(self) -> None:
        from fastmcp import Client
        from fastmcp.client.transports import StdioTransport

        transport = StdioTransport(sys.executable, [str(DEMO)], keep_alive=False)
        self.stop = asyncio.Event()
        async with Client(transport, timeout=30, init_timeout=30) as client:
            self.client = client
            self.ready.set()
            await self.stop.wait()

    def per_call_ms(self, calls: int) -> float:
        """Milliseconds per call over ``calls`` sequential calls, timed in the loop."""

        async def run() -> float:
            start = time.perf_counter()
            for _ in range(calls):
                await self.client.call_tool_mcp("echo", {"text": "x"})
            return (time.perf_counter() - start) / calls * 1000

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(120)

    def close(self) -> None:
        assert self.stop is not None
        self.loop.call_soon_threadsafe(self.stop.set)
        self.holder.result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def stdio_bench() -> None:
    from toolplug import Tool, Toolset

    config = {"mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO)]}}}
    raw = RawClient()
    try:
        with Toolset.load([Tool("mcp", {"config": config})], plugins="mcp") as toolset:
            echo = toolset["echo"]
            args = {"text": "x"}

            def ours(n: int) -> None:
                for _ in range(n):
                    echo.call(args)

            def threaded(n: int) -> None:
                per = n // 8
                threads = [
                    threading.Thread(target=lambda: [echo.call(args) for _ in range(per)])
                    for _ in range(8)
                ]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join(120)

            ours(20)
            raw.per_call_ms(20)
            # Alternating rounds, so that a burst of machine noise hits both alike.
            ours_call, ours_threads, raw_call = [], [], []
            for _ in range(REPEATS):
                ours_call.append(median_per_call(ours, 100, repeats=1))
                ours_threads.append(median_per_call(threaded, 96, repeats=1) * 96)
                raw_call.append(raw.per_call_ms(100))
    finally:
        raw.close()
    floor = statistics.median(raw_call)
    line("stdio call via sync bridge (per call)", statistics.median(ours_call), floor, 1.3)
    line(
        "96 calls from 8 threads vs sequential raw",
        statistics.median(ours_threads),
        floor * 96,
        1.5,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("server did not start")


PLAIN_SERVER = """
import sys
from fastmcp import FastMCP
server = FastMCP("plain")
state = {"value": 0}
@server.tool
def counter(step: int = 1) -> dict:
    state["value"] += step
    return {"value": state["value"]}
port = int(sys.argv[1])
server.run(transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="warning")
"""


def http_bench() -> None:
    from fastmcp import Client

    async def per_call(url: str) -> float:
        async with Client(url, timeout=30, init_timeout=30) as client:
            for _ in range(20):
                await client.call_tool_mcp("counter", {"step": 1})
            times = []
            for _ in range(REPEATS):
                start = time.perf_counter()
                for _ in range(50):
                    await client.call_tool_mcp("counter", {"step": 1})
                times.append((time.perf_counter() - start) / 50 * 1000)
            return statistics.median(times)

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "plain.py"
        script.write_text(PLAIN_SERVER)
        env = {**os.environ, "PYTHONPATH": str(COUNTER)}
        toolplug = str(Path(sys.executable).parent / "toolplug")
        commands = {
            "plain": [sys.executable, str(script)],
            "ours": [toolplug, "mcp", "serve", "--transport", "http", "--plugins", "counter"],
        }
        for name, command in commands.items():
            port = free_port()
            extra = ["--port", str(port)] if name == "ours" else [str(port)]
            proc = subprocess.Popen(
                [*command, *extra], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            try:
                wait_port(port, proc)
                results[name] = asyncio.run(per_call(f"http://127.0.0.1:{port}/mcp"))
            finally:
                proc.terminate()
                proc.wait(20)
    line("serve over HTTP (per call)", results["ours"], results["plain"], 1.5)


def ten_megabyte_list(deep: bool) -> str:
    """A ``tools/list`` answer of about 10 MB: 5,000 ordinary tools, and with ``deep`` a
    first one whose schema nests 5,000 levels."""
    import json

    properties = {f"p{i}": {"type": "string", "description": "d" * 50} for i in range(20)}
    schema = {"type": "object", "properties": properties}
    tools = [
        json.dumps({"name": f"t{n}", "description": "x" * 200, "inputSchema": schema})
        for n in range(5_000)
    ]
    if deep:
        nested = '{"type": "array", "items": ' * 5_000 + "{}" + "}" * 5_000
        tools.insert(0, '{"name": "deep", "inputSchema": ' + nested + "}")
    return '{"jsonrpc": "2.0", "id": 1, "result": {"tools": [' + ", ".join(tools) + "]}}"


def mend_bench() -> None:
    import mcp_types
    from toolplug_mcp.client.wire import MendingReader

    sdk = mcp_types.jsonrpc_message_adapter
    ours, floor = MendingReader(sdk), sdk
    hostile, plain = ten_megabyte_list(True), ten_megabyte_list(False)
    times: dict[str, list[float]] = {"ours": [], "floor": []}
    for _ in range(REPEATS):  # alternated rounds: the machine's load hits both alike
        for name, reader, text in (("ours", ours, hostile), ("floor", floor, plain)):
            start = time.perf_counter()
            read = reader.validate_json(text, by_name=False)
            times[name].append((time.perf_counter() - start) * 1000)
            assert len(read.result["tools"]) == (5_001 if name == "ours" else 5_000)
    median = {name: statistics.median(values) for name, values in times.items()}
    line("10 MB tools/list with a 5,000-deep tool", median["ours"], median["floor"], 3.0)


if __name__ == "__main__":
    stdio_bench()
    http_bench()
    mend_bench()
