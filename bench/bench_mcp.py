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
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from timing import interleaved, interleaved_self_timed, median_time, per_call_async, report, save

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "plugins" / "mcp" / "tests" / "servers" / "demo_server.py"
COUNTER = ROOT / "plugins" / "mcp" / "tests" / "counter_plugin"
REPEATS = 7


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

    def per_call(self, calls: int) -> float:
        """Seconds per call over ``calls`` sequential calls, timed in the loop."""

        async def call() -> object:
            return await self.client.call_tool_mcp("echo", {"text": "x"})

        timed = per_call_async(call, calls, repeats=1)
        return asyncio.run_coroutine_threadsafe(timed, self.loop).result(120)

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
            raw.per_call(20)
            times = interleaved_self_timed(
                {
                    "ours": lambda: median_time(lambda: ours(100), 1) / 100,
                    "threads": lambda: median_time(lambda: threaded(96), 1),
                    "raw": lambda: raw.per_call(100),
                },
                REPEATS,
            )
    finally:
        raw.close()
    floor = times["raw"]
    report("mcp", "stdio call via sync bridge (per call)", times["ours"], floor, 1.3)
    report("mcp", "96 calls from 8 threads vs sequential raw", times["threads"], floor * 96, 1.5)


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

            async def call() -> object:
                return await client.call_tool_mcp("counter", {"step": 1})

            await per_call_async(call, 20, repeats=1)  # warm up
            return await per_call_async(call, 50, REPEATS)

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
    report("mcp", "serve over HTTP (per call)", results["ours"], results["plain"], 1.5)


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

    def read(reader: object, text: str, tools: int) -> None:
        answer = reader.validate_json(text, by_name=False)  # type: ignore[attr-defined]
        assert len(answer.result["tools"]) == tools

    times = interleaved(
        {
            "ours": lambda: read(ours, hostile, 5_001),
            "floor": lambda: read(floor, plain, 5_000),
        },
        REPEATS,
    )
    report("mcp", "10 MB tools/list with a 5,000-deep tool", times["ours"], times["floor"], 3.0)


if __name__ == "__main__":
    stdio_bench()
    http_bench()
    mend_bench()
    save("bench_mcp")
