"""Replicas of `toolplug mcp serve` behind HAProxy, with the config the docs give
(`docs/deploy/haproxy.cfg`, used as it is): sessions stick to the replica that holds
their shell, new sessions go round robin, and killing a replica ends only its sessions.

HAProxy is a Debian package (`apt-get install haproxy`; `.ci/run` installs it); without
it these tests are skipped and say so. All traffic is on 127.0.0.1.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from contextlib import AsyncExitStack
from pathlib import Path

import httpx2
import pytest
from conftest import (
    HAS_BASH,
    INITIALIZE,
    children_of,
    free_port,
    is_alive,
    stop,
    wait_for_port,
)
from mcp import MCPError
from test_serve_scale import ACCEPT, Server, bash, session
from toolplug.testing import wait_until

HAPROXY = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
CONFIG = Path(__file__).resolve().parents[3] / "docs" / "deploy" / "haproxy.cfg"

pytestmark = [
    pytest.mark.skipif(not HAS_BASH, reason="needs toolplug-bash installed"),
    pytest.mark.skipif(
        HAPROXY is None, reason="haproxy is not installed (apt-get install haproxy)"
    ),
]


class Balancer:
    """HAProxy in the foreground with the docs' config, in front of two replicas."""

    def __init__(self, tmp_path: Path, replicas: list[Server]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        env = {
            **os.environ,
            "TOOLPLUG_LB_BIND": f"127.0.0.1:{self.port}",
            "TOOLPLUG_REPLICA_1": f"127.0.0.1:{replicas[0].port}",
            "TOOLPLUG_REPLICA_2": f"127.0.0.1:{replicas[1].port}",
        }
        assert HAPROXY is not None
        self.log = tmp_path / "haproxy.txt"
        with self.log.open("w") as log:
            self.proc = subprocess.Popen(
                [HAPROXY, "-db", "-f", str(CONFIG)], env=env, stdout=log, stderr=log
            )
        wait_for_port(self.port, self.proc)


def replica_of(workspaces: dict[Path, int], where: str) -> int:
    """Which replica a shell runs on, from the workspace it started in."""
    return workspaces[Path(where)]


async def test_sessions_stick_spread_and_outlive_another_replica(tmp_path: Path) -> None:
    workspaces = {}
    replicas = []
    for index in (0, 1):
        home = tmp_path / f"replica{index}"
        home.mkdir()
        workspaces[home] = index
        replicas.append(Server(home, "--idle-timeout", "600"))
    balancer = Balancer(tmp_path, replicas)
    count = 8
    for i in range(count):
        (tmp_path / f"work{i}").mkdir()
    shells: list[int] = []
    try:
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(session(balancer.url, outlived=True))
                for _ in range(count)
            ]
            # Each new session went to some replica, in turn: its shell starts there.
            homes = [replica_of(workspaces, await bash(c, "pwd")) for c in clients]
            assert sorted(homes) == [0] * (count // 2) + [1] * (count // 2), homes
            for i, client in enumerate(clients):
                pid = await bash(client, f"cd {tmp_path}/work{i}; X=v{i}; echo $$")
                shells.append(int(pid))
            # Every later call of a session reaches its own shell.
            for _ in range(2):
                for i, client in enumerate(clients):
                    assert await bash(client, "pwd; echo $X") == f"{tmp_path}/work{i}\nv{i}"

            # Kill replica 0 outright (a crash): only its sessions end.
            orphans = children_of(replicas[0].proc.pid)
            replicas[0].proc.send_signal(signal.SIGKILL)
            replicas[0].proc.wait(30)
            for pid in orphans:  # its shells lost their server; end them ourselves
                if is_alive(pid):
                    os.kill(pid, signal.SIGKILL)
            for i, client in enumerate(clients):
                if homes[i] == 0:
                    # The request reaches the other replica, which does not know the
                    # session: 404, the MCP signal to start a new one.
                    with pytest.raises(MCPError, match="Session not found"):
                        await client.call_tool("bash", {"command": "pwd"})
                else:
                    assert await bash(client, "pwd; echo $X") == f"{tmp_path}/work{i}\nv{i}"

            # New sessions still open, on the replica that is left.
            async with session(balancer.url) as late:
                assert replica_of(workspaces, await bash(late, "pwd")) == 1
    finally:
        stop(balancer.proc)
        for replica in replicas:
            stop(replica.proc)
        wait_until(lambda: not any(is_alive(p) for p in shells), what="every shell is gone")


async def test_a_full_replica_sends_new_sessions_to_the_other(tmp_path: Path) -> None:
    """Each replica holds one session: the balancer retries a refused opening on the
    other replica, and when both are full the client gets the replicas' 503."""
    replicas = [Server(tmp_path, "--max-sessions", "1") for _ in (0, 1)]
    balancer = Balancer(tmp_path, replicas)
    base = balancer.url.removesuffix("/mcp")
    try:
        async with session(balancer.url) as first, session(balancer.url) as second:
            assert await bash(first, "echo one") == "one"
            assert await bash(second, "echo two") == "two"
            counts = [r.get("/healthz").json()["sessions"] for r in replicas]
            assert counts == [1, 1]
            refused = httpx2.post(balancer.url, json=INITIALIZE, headers=ACCEPT, timeout=30)
            assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
            assert refused.json()["error"]["data"]["reason"] == "full"
            # The balancer passes the probes through to a replica.
            ready = httpx2.get(base + "/readyz", timeout=30)
            assert ready.status_code == 503 and ready.json()["reason"] == "full"
    finally:
        stop(balancer.proc)
        for replica in replicas:
            stop(replica.proc)
