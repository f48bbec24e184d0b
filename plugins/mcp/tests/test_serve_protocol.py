"""`toolplug mcp serve` on the wire: what it advertises and how it names itself, how it
answers a call of an unknown tool or a call outside a session, and the HTTP guards (the
Origin check on every bind, the bearer scheme in any case, IPv6 addresses).

Every test runs the real server as a subprocess on 127.0.0.1 (or ::1), talks to it
with the official MCP SDK client or plain HTTP, and uses the test plugin ``counter``.
"""

from __future__ import annotations

import selectors
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
import toolplug_mcp
from conftest import (
    INITIALIZE,
    PROTOCOL,
    TOOLPLUG,
    free_port,
    rpc_answer,
    serve_env,
    start_http,
    start_serve,
    stop,
)
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.inbound import CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY
from mcp_types.version import LATEST_MODERN_VERSION
from toolplug.testing import wait_until

ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def counter_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One served counter over HTTP for the module's tests that need no fresh server
    (each opens a session of its own); its URL."""
    proc, url = start_http(tmp_path_factory.mktemp("counter"), plugins="counter")
    try:
        yield url
    finally:
        stop(proc)


@asynccontextmanager
async def sdk_session(
    transport: str, tmp_path: Path, url: str
) -> AsyncIterator[tuple[ClientSession, Any]]:
    """An initialized official-SDK session, with a fresh server over stdio or with the
    server at ``url`` over HTTP; yields it and the server's answer to ``initialize``."""
    if transport == "stdio":
        params = StdioServerParameters(
            command=TOOLPLUG, args=["mcp", "serve", "--plugins", "counter"], env=serve_env(tmp_path)
        )
        with (tmp_path / "stderr.txt").open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                yield session, await session.initialize()
        return
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write) as session,
    ):
        yield session, await session.initialize()


TRANSPORTS = pytest.mark.parametrize("transport", ["http", "stdio"])


@TRANSPORTS
async def test_the_handshake_advertises_tools_and_logging_as_toolplug(
    transport: str, tmp_path: Path, counter_url: str
) -> None:
    async with sdk_session(transport, tmp_path, counter_url) as (session, init):
        # Tools and logging; no prompts, resources or list changes: toolplug serves none.
        capabilities = init.capabilities.model_dump(by_alias=True, exclude_none=True)
        assert capabilities == {"tools": {}, "logging": {}}
        assert init.server_info.name == "toolplug"
        assert init.server_info.version == toolplug_mcp.__version__
        listed = await session.list_tools()
        assert [t.name for t in listed.tools] == ["counter"]


@TRANSPORTS
async def test_a_call_of_an_unknown_tool_is_invalid_params(
    transport: str, tmp_path: Path, counter_url: str
) -> None:
    async with sdk_session(transport, tmp_path, counter_url) as (session, _):
        with pytest.raises(MCPError) as refused:
            await session.call_tool("no_such_tool", {"step": 1})
        assert refused.value.error.code == -32602
        assert "no_such_tool" in refused.value.error.message
        # The session and its tools live on.
        first = await session.call_tool("counter", {"step": 2})
        second = await session.call_tool("counter", {"step": 2})
        assert (first.structured_content or {})["value"] == 2
        assert (second.structured_content or {})["value"] == 4


def test_hosts_that_ask_for_prompts_and_resources_anyway_get_empty_lists(
    counter_url: str,
) -> None:
    url = counter_url
    http = httpx2.Client(timeout=30, headers=ACCEPT)
    opened = http.post(url, json=INITIALIZE)
    http.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
    http.headers["mcp-protocol-version"] = PROTOCOL
    http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    for method, key in [("prompts/list", "prompts"), ("resources/list", "resources")]:
        answer = http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": method})
        assert answer.status_code == 200, answer.text
        assert rpc_answer(answer)["result"][key] == []


def test_a_tool_call_outside_a_session_is_refused(tmp_path: Path) -> None:
    """A single-exchange (2026) tools/call belongs to no session: refused, no tools made."""
    proc, url = start_http(tmp_path, plugins="counter")
    try:
        meta = {PROTOCOL_VERSION_META_KEY: LATEST_MODERN_VERSION, CLIENT_CAPABILITIES_META_KEY: {}}
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "counter", "arguments": {}, "_meta": meta},
        }
        headers = {
            **ACCEPT,
            "MCP-Protocol-Version": LATEST_MODERN_VERSION,
            "Mcp-Method": "tools/call",
            "Mcp-Name": "counter",
        }
        answer = httpx2.post(url, json=body, headers=headers, timeout=30)
        error = answer.json()["error"]
        assert error["code"] == -32600, error
        assert "initialize" in error["message"]
    finally:
        stop(proc)
    # Only the tools read for their schemas at start-up were ever created (and closed).
    assert (tmp_path / "closed.txt").read_text().splitlines() == ["closed at 0"]


# -- HTTP guards -----------------------------------------------------------------------


def wait_listening(host: str, port: int, proc: subprocess.Popen[bytes]) -> None:
    """Wait (bounded) until the server accepts connections on ``host``."""

    def listening() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            return False

    wait_until(listening, what=f"something to listen on {host} port {port}")


@pytest.fixture
def network_bind(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """The server bound to 0.0.0.0 (with a token, as it must be); reached on 127.0.0.1."""
    args = ["--plugins", "counter", "--host", "0.0.0.0", "--token", "s3cret"]
    args += ["--allow-origin", "https://app.example"]
    proc, url = start_serve(args, serve_env(tmp_path), tmp_path / "stderr.txt")
    try:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        wait_listening("127.0.0.1", port, proc)
        yield f"http://127.0.0.1:{port}/mcp", port
    finally:
        stop(proc)


def initialize(url: str, **headers: str) -> int:
    """The status of an ``initialize`` request sent with these headers."""
    return httpx2.post(url, json=INITIALIZE, headers={**ACCEPT, **headers}, timeout=30).status_code


def test_the_origin_is_checked_on_a_network_bind(network_bind: tuple[str, int]) -> None:
    url, port = network_bind
    token = {"Authorization": "Bearer s3cret"}
    # A page from another origin is refused, whatever name the server is reached by.
    assert initialize(url, **token, Origin="http://evil.example") == 403
    host = {"Host": f"tools.example:{port}"}
    assert initialize(url, **token, **host, Origin="http://evil.example") == 403
    # The server's own origin, an allowed one, and clients that send none are served.
    assert initialize(url, **token, **host, Origin=f"http://tools.example:{port}") == 200
    assert initialize(url, **token, Origin="https://app.example") == 200
    assert initialize(url, **token, **host) == 200
    assert initialize(url, **token) == 200
    # The token is still required.
    assert initialize(url, Origin="https://app.example") == 401


@pytest.fixture(scope="module")
def token_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server with ``--token s3cret`` for every header the next test tries: each
    try is a request of its own, so they need no server each."""
    proc, url = start_http(tmp_path_factory.mktemp("token"), "--token", "s3cret", plugins="counter")
    try:
        yield url
    finally:
        stop(proc)


@pytest.mark.parametrize(
    ("authorization", "status"),
    [
        ("Bearer s3cret", 200),
        ("bearer s3cret", 200),
        ("BEARER s3cret", 200),
        ("bEaReR   s3cret", 200),
        ("Bearer S3CRET", 401),
        ("Bearer s3cret2", 401),
        ("Bearers3cret", 401),
        ("bearer", 401),
        ("Basic czNjcmV0", 401),
        ("s3cret", 401),
    ],
)
def test_the_bearer_scheme_is_matched_in_any_case(
    token_server: str, authorization: str, status: int
) -> None:
    assert initialize(token_server, Authorization=authorization) == status


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback on this machine")
@pytest.mark.parametrize("host", ["::1", "[::1]"])
async def test_an_ipv6_bind_is_printed_in_brackets(tmp_path: Path, host: str) -> None:
    errors = tmp_path / "stderr.txt"
    args = ["--plugins", "counter", "--host", host]
    proc, url = start_serve(args, serve_env(tmp_path), errors)
    try:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        assert url == f"http://[::1]:{port}/mcp"
        wait_listening("::1", port, proc)
        # The printed URL is one a client can use.
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("counter", {"step": 3})
            assert (result.structured_content or {})["value"] == 3
    finally:
        stop(proc)


# -- the printed URL ----------------------------------------------------------------------


def announced_url(proc: subprocess.Popen[bytes], limit: float = 60.0) -> str:
    """The URL of the server's ``toolplug MCP server on URL`` line on stderr, read as
    soon as it is written (bounded)."""
    assert proc.stderr is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stderr, selectors.EVENT_READ)
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if not selector.select(timeout=deadline - time.monotonic()):
                break
            line = proc.stderr.readline().decode()
            if not line:
                pytest.fail(f"the server exited ({proc.wait(10)}) without printing its URL")
            if line.startswith("toolplug MCP server on "):
                return line.split(" on ", 1)[1].strip()
    pytest.fail(f"no URL printed after {limit} s")


@pytest.mark.parametrize("port", ["free", "0"])
def test_the_url_is_printed_once_the_server_listens(tmp_path: Path, port: str) -> None:
    """The reported race: the line came before the socket listened (13 s before the
    first answer under load), so a script that waited for it connected too early. With
    ``--port 0`` the line names the port the system gave."""
    given = str(free_port()) if port == "free" else "0"
    args = [TOOLPLUG, "mcp", "serve", "--transport", "http", "--plugins", "counter"]
    proc = subprocess.Popen(
        [*args, "--port", given], env=serve_env(tmp_path), stderr=subprocess.PIPE
    )
    try:
        url = announced_url(proc)
        # At once, no retry: the server listens and answers.
        answer = httpx2.post(url, json=INITIALIZE, headers=ACCEPT, timeout=30)
        assert answer.status_code == 200
        assert rpc_answer(answer)["result"]["serverInfo"]["name"] == "toolplug"
        if port == "0":
            assert not url.startswith("http://127.0.0.1:0/")
    finally:
        stop(proc)
        assert proc.stderr is not None
        proc.stderr.close()


def test_no_url_is_printed_when_the_port_cannot_be_bound(tmp_path: Path) -> None:
    """A server that never listens never says it does."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = [TOOLPLUG, "mcp", "serve", "--transport", "http", "--plugins", "counter"]
        done = subprocess.run(
            [*args, "--port", str(port)],
            env=serve_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    assert done.returncode != 0
    assert "toolplug MCP server on" not in done.stderr, done.stderr
    assert "address already in use" in done.stderr.lower()
    assert "Traceback" not in done.stderr
