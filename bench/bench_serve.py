"""`toolplug mcp serve` under many sessions, on one host and behind HAProxy.

    python bench/bench_serve.py [--sessions 200] [--seconds 30] [--rounds 3]

Every session is an official MCP SDK client session over HTTP on 127.0.0.1, and runs
`echo hi` in its own bash in a loop. The contenders of each comparison are alternated
in rounds (each gets ``seconds / rounds`` per round), so that a burst of load on the
machine hits them alike; each ratio is against a floor measured in the same run.

1. One host: N sessions calling at once, against one session calling alone (p50 and
   p99 latency); memory per session (the server's RSS growth / N, and the sessions'
   bash processes counted apart); errors (target: 0).
2. Two replicas behind HAProxy (``docs/deploy/haproxy.cfg``): N sessions through the
   balancer against N sessions on one replica alone (throughput), and one session
   through the balancer against one session straight to a replica (the balancer's
   added latency).

The clients run in this process, on the same machine as the servers: on a small
machine they take a good share of the CPU, which the figures include.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from timing import Stopwatch, report, save

ROOT = Path(__file__).resolve().parent.parent
HAPROXY_CONFIG = ROOT / "docs" / "deploy" / "haproxy.cfg"
TOOLPLUG = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"
HAPROXY = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
COMMAND = {"command": "echo hi"}


# -- processes -----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def serve(workspace: Path, sessions: int) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    args = [TOOLPLUG, "mcp", "serve", "--transport", "http", "--port", str(port)]
    args += ["--plugins", "bash", "--workspace", str(workspace)]
    args += ["--max-sessions", str(sessions * 3 + 10), "--idle-timeout", "3600"]
    proc = subprocess.Popen(args, stderr=subprocess.DEVNULL)
    wait_for_port(port, proc)
    return proc, port


def balancer(ports: list[int]) -> tuple[subprocess.Popen[bytes], int]:
    assert HAPROXY is not None
    port = free_port()
    env = {**os.environ, "TOOLPLUG_LB_BIND": f"127.0.0.1:{port}"}
    for index, replica in enumerate(ports, 1):
        env[f"TOOLPLUG_REPLICA_{index}"] = f"127.0.0.1:{replica}"
    proc = subprocess.Popen(
        [HAPROXY, "-db", "-f", str(HAPROXY_CONFIG)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port, proc)
    return proc, port


def end(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (serve drains and closes its sessions' shells), then wait (bounded)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def rss_kib(pid: int) -> int:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1])
    return 0


def descendants(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True)
    parents = dict(tuple(map(int, row.split())) for row in out.stdout.splitlines())
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - found
        found |= frontier
    return sorted(found)


# -- clients ---------------------------------------------------------------------------


@dataclass
class Calls:
    """Latencies (seconds) and errors of the calls of one timed stretch."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, other: Calls) -> None:
        self.latencies += other.latencies
        self.errors += other.errors
        self.seconds += other.seconds

    def pct(self, q: float) -> float:
        """The ``q`` quantile of the latencies, in seconds."""
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds


async def open_sessions(url: str, count: int, stack: AsyncExitStack) -> list[ClientSession]:
    """``count`` initialized sessions, each with its bash started (one call)."""
    clients: list[ClientSession] = []
    for start in range(0, count, 20):  # in batches: a burst of 200 opens is not the point
        batch = []
        for _ in range(min(20, count - start)):
            read, write = await stack.enter_async_context(streamable_http_client(url))
            client = await stack.enter_async_context(ClientSession(read, write))
            batch.append(client)
        await asyncio.gather(*(c.initialize() for c in batch))
        results = await asyncio.gather(*(c.call_tool("bash", COMMAND) for c in batch))
        if any(r.is_error for r in results):
            raise RuntimeError("a session's bash did not start")
        clients += batch
    return clients


async def loop(clients: list[ClientSession], seconds: float) -> Calls:
    """Every client calls `echo hi` again and again for ``seconds``."""
    calls = Calls(seconds=seconds)
    deadline = time.monotonic() + seconds

    async def one(client: ClientSession) -> None:
        while time.monotonic() < deadline:
            try:
                with Stopwatch() as watch:
                    result = await client.call_tool("bash", COMMAND)
            except Exception as exc:
                calls.errors.append(repr(exc))
                continue
            text = "".join(getattr(block, "text", "") for block in result.content)
            running = (result.structured_content or {}).get("running")
            if result.is_error or running or not text.startswith("hi"):  # failed, not done
                calls.errors.append(text)
            else:
                calls.latencies.append(watch.wall)

    await asyncio.gather(*(one(c) for c in clients))
    return calls


async def rounds(
    contenders: dict[str, list[ClientSession]], seconds: float, count: int
) -> dict[str, Calls]:
    """The contenders' loops alternated: ``count`` rounds of ``seconds / count`` each."""
    totals = {name: Calls() for name in contenders}
    for _ in range(count):
        for name, clients in contenders.items():
            totals[name].add(await loop(clients, seconds / count))
    return totals


# -- the two parts ---------------------------------------------------------------------


async def one_host(args: argparse.Namespace, work: Path) -> None:
    proc, port = serve(work, args.sessions)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        await asyncio.sleep(1)
        base = rss_kib(proc.pid)
        async with AsyncExitStack() as stack:
            clients = await open_sessions(url, args.sessions, stack)
            grown = rss_kib(proc.pid) - base
            shells = descendants(proc.pid)
            shell_kib = sum(rss_kib(p) for p in shells if os.path.exists(f"/proc/{p}"))
            got = await rounds({"one": clients[:1], "all": clients}, args.seconds, args.rounds)
        one, every = got["one"], got["all"]
        n = args.sessions
        print(f"\n1. one host: {n} sessions, `echo hi` in each one's bash, {args.seconds:g} s each")
        # The floor: one session calling alone.
        report("serve", f"p50, {n} sessions at once vs one alone", every.pct(0.5), one.pct(0.5))
        report("serve", f"p99, {n} sessions at once vs one alone", every.pct(0.99), one.pct(0.99))
        print(
            f"{'calls':<52} {len(every.latencies)} ({every.rate:.0f}/s); "
            f"one alone {len(one.latencies)} ({one.rate:.0f}/s)"
        )
        errors = len(every.errors) + len(one.errors)
        report("serve", f"errors, {n} sessions", errors, None, unit="errors", limit=0)
        report("serve", "server RSS growth per session", grown / n, None, unit="KiB")
        print(
            f"{'bash processes: count, RSS per session':<52} {len(shells)}, {shell_kib / n:.0f} KiB"
        )
        for error in (every.errors + one.errors)[:3]:
            print("   error:", error[:200])
    finally:
        end(proc)


async def behind_haproxy(args: argparse.Namespace, work: Path) -> None:
    if HAPROXY is None:
        print("\n2. HAProxy: skipped, haproxy is not installed (apt-get install haproxy)")
        return
    replicas = [serve(work, args.sessions) for _ in range(2)]
    lb, lb_port = balancer([port for _, port in replicas])
    through = f"http://127.0.0.1:{lb_port}/mcp"
    direct = f"http://127.0.0.1:{replicas[0][1]}/mcp"
    try:
        async with AsyncExitStack() as stack:
            balanced = await open_sessions(through, args.sessions, stack)
            alone = await open_sessions(direct, args.sessions, stack)
            got = await rounds(
                {
                    "balanced": balanced,
                    "alone": alone,
                    "one-balanced": balanced[:1],
                    "one-direct": alone[:1],
                },
                args.seconds,
                args.rounds,
            )
        n = args.sessions
        print(f"\n2. {n} sessions through HAProxy to two replicas, {args.seconds:g} s each")
        # The floors: the same sessions on one replica with no balancer.
        report(
            "serve",
            "throughput, 2 replicas behind HAProxy vs 1 alone",
            got["balanced"].rate,
            got["alone"].rate,
            unit="call/s",
        )
        report(
            "serve",
            "p50 of one session through HAProxy vs straight",
            got["one-balanced"].pct(0.5),
            got["one-direct"].pct(0.5),
        )
        errors = [e for c in got.values() for e in c.errors]
        report("serve", "errors behind HAProxy", len(errors), None, unit="errors", limit=0)
        for error in sorted(set(errors))[:5]:
            print("   error:", error[:300])
    finally:
        end(lb)
        for proc, _ in replicas:
            end(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0, help="per contender, in all")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-haproxy", action="store_true", help="run part 1 only")
    parser.add_argument("--skip-one-host", action="store_true", help="run part 2 only")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_one_host:
            asyncio.run(one_host(args, Path(tmp)))
        if not args.skip_haproxy:
            asyncio.run(behind_haproxy(args, Path(tmp)))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    save("bench_serve")


if __name__ == "__main__":
    main()
