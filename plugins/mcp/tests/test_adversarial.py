"""`toolplug mcp serve` against a hostile or unlucky world: signals, stray DELETEs, bad ids.

Every test runs the real server as a subprocess on 127.0.0.1 and talks to it with
fastmcp's client or raw HTTP (to send what a client would not). The tools whose closing is checked
are the test plugin ``spawn`` (a detached ``sleep`` and a temp dir per call) and, when
toolplug-bash is installed, ``bash`` with a ``nohup`` background job.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from conftest import (
    HAS_BASH,
    INITIALIZE,
    TOOLPLUG,
    children_of,
    is_alive,
    rpc_answer,
    serve_env,
    start_http,
    start_serve,
    stop,
    until,
    usage_error,
)
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from hypothesis import HealthCheck, given, settings, strategies as st
from toolplug.testing import params_listing, run_toolplug, wait_until

PLUGINS = "counter,spawner,bash" if HAS_BASH else "counter,spawner"
NOHUP = "nohup sleep 1000 >/dev/null 2>&1 & echo pid=$!"
PROTOCOL = "2025-06-18"


# -- the client against hostile MCP servers (the serve cases follow this section) -------

HOSTILE_SERVER = Path(__file__).parent / "servers" / "hostile_server.py"
FLOOD_SERVER = Path(__file__).parent / "servers" / "interactive_server.py"

#: Run in a subprocess: one thread calls the ``redos`` tool with an argument on which a
#: backtracking engine takes exponential time (2**40 steps), the other ticks until the
#: call ends. A host frozen by the check never prints, and the test's timeout fails it.
STALL_SCRIPT = """
import json, sys, threading
import toolplug_mcp
from toolplug import Tool, Toolset
from toolplug.testing import registry_from

config = {"mcpServers": {"h": {"command": sys.executable, "args": [sys.argv[1]]}}}
with Toolset.load([Tool("mcp", {"config": config, "timeout": 3})],
                  registry=registry_from(toolplug_mcp)) as toolset:
    got = {}
    call = threading.Thread(
        target=lambda: got.update(redos=toolset.call("redos", {"word": "a" * 40 + "b"})))
    call.start()
    ticks = 0
    while call.is_alive():
        ticks += 1
        call.join(0.001)
    echo = toolset.call("echo", {"text": "still here"})
    print(json.dumps({"ticks": ticks, "redos": got["redos"].text,
                      "redos_error": got["redos"].is_error, "echo": echo.text}))
"""


def hostile_toolset(**params: Any) -> Any:
    """The mcp factory's tools of the hostile server."""

    import toolplug_mcp
    from toolplug import Tool, Toolset
    from toolplug.testing import registry_from

    config = {"mcpServers": {"h": {"command": sys.executable, "args": [str(HOSTILE_SERVER)]}}}
    return Toolset.load(
        [Tool("mcp", {"config": config, **params})], registry=registry_from(toolplug_mcp)
    )


def test_a_backtracking_pattern_does_not_stall_the_host(tmp_path: Path) -> None:
    import json

    done = subprocess.run(
        [sys.executable, "-c", STALL_SCRIPT, str(HOSTILE_SERVER)],
        capture_output=True,
        text=True,
        timeout=120,  # exponential backtracking would take far longer than this
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["redos_error"] is True
    assert "does not match '^(a+)+$'" in seen["redos"]
    assert seen["echo"] == "still here"
    # A pattern key of patternProperties is matched by RE2 too.
    with hostile_toolset() as toolset:
        tagged = toolset.call("redos", {"word": "aaa", "tags": {"a" * 40 + "b": 1}})
        assert not tagged.is_error, tagged.text  # the key does not match: not checked
        tagged = toolset.call("redos", {"word": "aaa", "tags": {"aaaa": 1}})
        assert tagged.is_error and "1 is not of type 'string'" in tagged.text


def test_a_bad_schema_leaves_out_its_tool_alone(caplog: pytest.LogCaptureFixture) -> None:
    from toolplug.formats import default_formats

    with caplog.at_level("WARNING", logger="toolplug.mcp"), hostile_toolset() as toolset:
        names = set(toolset)
        assert names == {"redos", "backref", "echo", "dialect"}
        warned = caplog.text
        assert "tool 'malformed' of MCP server 'h' left out" in warned
        assert "not a valid JSON schema" in warned
        assert "tool 'deep' of MCP server 'h' left out" in warned
        assert "deeper than 64 levels" in warned
        for fmt in default_formats():  # every export of the rest works
            assert toolset.export(fmt)
        assert toolset.call("echo", {"text": "hi"}).text == "hi"


DEEP_SERVER = Path(__file__).parent / "servers" / "deep_server.py"


@pytest.mark.parametrize("depth", [200, 5_000])
@pytest.mark.parametrize("transport", ["stdio", "http", "http-sse"])
def test_a_schema_deeper_than_the_sdk_reads_leaves_out_its_tool_alone(
    caplog: pytest.LogCaptureFixture, tmp_path: Path, transport: str, depth: int
) -> None:
    # The SDK's JSON reader stops at 200 levels for the whole message: the tool list
    # must be cut down before it reads it, or the whole server is lost.

    import toolplug_mcp
    from toolplug import Tool, Toolset
    from toolplug.testing import registry_from

    command = [sys.executable, str(DEEP_SERVER), str(depth)]
    proc = None
    try:
        if transport == "stdio":
            server: dict[str, Any] = {"command": command[0], "args": command[1:]}
        else:
            # The server binds port 0 and prints the port it got: no port picked and let
            # go. Read from a file, so a server that never prints cannot hang the test.
            printed = tmp_path / "port"
            with printed.open("w") as out:
                proc = subprocess.Popen([*command, transport.removeprefix("http-")], stdout=out)
            port = wait_until(
                lambda: printed.read_text().endswith("\n") and printed.read_text().strip(),
                what="the server's port",
            )
            server = {"url": f"http://127.0.0.1:{port}/mcp"}
        spec = Tool("mcp", {"config": {"mcpServers": {"d": server}}, "init_timeout": 30})
        with (
            caplog.at_level("WARNING", logger="toolplug.mcp"),
            Toolset.load([spec], registry=registry_from(toolplug_mcp)) as toolset,
        ):
            assert set(toolset) == {"echo", "shout"}
            assert "tool 'deep' of MCP server 'd' left out" in caplog.text
            assert toolset.call("echo", {"text": "still here"}).text == "still here"
            assert toolset.call("shout", {"text": "hi"}).text == "HI"
    finally:
        if proc is not None:
            stop(proc)


def test_mending_a_tool_list_reads_strings_and_odd_entries_as_json_does() -> None:
    # Brackets and escaped quotes inside strings are text, not nesting; an entry that is
    # not an object or has no name is cut all the same; the SDK reads what is left.
    import mcp_types
    from toolplug_mcp.client.wire import TOO_DEEP, MendingReader, mend_tool_list

    deep = "[" * 300 + "]" * 300
    tricky = '{"name": "a\\"]}]}", "description": "[[[{{{\\\\", "inputSchema": {}}'
    text = (
        '{"jsonrpc": "2.0", "id": 7, "result": {"tools": ['
        f'{tricky}, {{"inputSchema": {deep}}}, {deep}, '
        f'{{"name": "b", "inputSchema": {{"x": {deep}}}}}], "nextCursor": "]]"}}}}'
    )
    read = MendingReader(mcp_types.jsonrpc_message_adapter).validate_json(text, by_name=False)
    tools = read.result["tools"]
    assert tools[0]["name"] == 'a"]}]}' and tools[0]["description"] == "[[[{{{\\"
    assert [t["name"] for t in tools[1:]] == [
        "(unnamed deep tool 1)",
        "(unnamed deep tool 2)",
        "b",
    ]
    assert all(TOO_DEEP in t["inputSchema"] for t in tools[1:])
    assert read.result["nextCursor"] == "]]"
    # Not a tool list, or deep outside its entries: nothing to mend.
    assert mend_tool_list('{"result": {"other": [' + deep + "]}}") is None
    assert mend_tool_list('{"result": {"tools": [], "_meta": ' + deep + "}}") is None


def test_a_ten_megabyte_deep_tool_list_is_mended_in_bounded_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # 10 MB of strings inside the deep tool's entry: all of it walked to find the end.

    import toolplug_mcp
    from toolplug import Tool, Toolset
    from toolplug.testing import registry_from

    server = {"command": sys.executable, "args": [str(DEEP_SERVER), "5000"]}
    server["env"] = {"DEEP_PAD_MB": "10"}
    spec = Tool("mcp", {"config": {"mcpServers": {"d": server}}, "init_timeout": 120})
    with (
        caplog.at_level("WARNING", logger="toolplug.mcp"),
        Toolset.load([spec], registry=registry_from(toolplug_mcp)) as toolset,
    ):
        assert set(toolset) == {"echo", "shout"}
        assert "tool 'deep' of MCP server 'd' left out" in caplog.text
        assert toolset.call("echo", {"text": "ok"}).text == "ok"


def test_a_pattern_re2_cannot_run_is_left_to_the_server(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level("WARNING", logger="toolplug.mcp"), hostile_toolset() as toolset:
        warned = caplog.text
        assert "tool 'backref' of MCP server 'h': the pattern" in warned
        assert "is not one RE2 runs" in warned
        called = toolset.call("backref", {"pair": "ab-cd"})
        assert not called.is_error and called.text == "backref called with ['pair']"


def test_an_unreadable_tool_list_fails_its_server_at_once(
    caplog: pytest.LogCaptureFixture,
) -> None:

    import toolplug_mcp
    from toolplug import Tool, Toolset
    from toolplug.testing import registry_from

    unreadable = Path(__file__).parent / "servers" / "unreadable_server.py"
    servers = {
        "u": {"command": sys.executable, "args": [str(unreadable)]},
        "h": {"command": sys.executable, "args": [str(HOSTILE_SERVER)]},
    }
    # Waiting out the listing's timeout instead took the whole load down with it.
    spec = Tool("mcp", {"config": {"mcpServers": servers}, "init_timeout": 30})
    with (
        caplog.at_level("WARNING", logger="toolplug.mcp"),
        Toolset.load([spec], registry=registry_from(toolplug_mcp)) as toolset,
    ):
        assert "h__echo" in set(toolset)
        assert not any(name.startswith("u__") for name in toolset)
        assert "MCP server 'u' is not available: it sent a message this client" in caplog.text


@pytest.mark.parametrize(("limit", "expected"), [(None, 20), (3, 3)])
def test_a_server_flooding_its_client_with_requests_is_refused(
    tmp_path: Path, limit: int | None, expected: int
) -> None:

    import toolplug_mcp
    from toolplug import Tool, Toolset
    from toolplug.interaction import Answer
    from toolplug.testing import registry_from

    asked: list[str] = []

    def on_sample(request: Any) -> str:
        asked.append("sample")
        return "fine"

    def on_elicit(question: Any) -> Answer:
        asked.append("elicit")
        return Answer("accept", {})

    server: dict[str, Any] = {"command": sys.executable, "args": [str(FLOOD_SERVER)]}
    if limit is not None:
        server["maxServerRequests"] = limit
    with Toolset.load(
        [Tool("mcp", {"config": {"mcpServers": {"i": server}}})],
        registry=registry_from(toolplug_mcp),
        on_sample=on_sample,
        on_elicit=on_elicit,
    ) as toolset:
        flooded = toolset.call("flood", {"count": 300})
        assert len(asked) == expected
        assert f"granted={expected} refused={600 - expected} " in flooded.text
        assert f"more than {expected} sampling and elicitation requests" in flooded.text
        # The next call has its own allowance.
        again = toolset.call("flood", {"count": 1})
        assert "granted=2 refused=0" in again.text


def temp_left(tmp_path: Path) -> list[str]:
    """What the server's tools left in its TMPDIR."""
    return sorted(p.name for p in (tmp_path / "tmp").iterdir())


class Held:
    """What a session's tools hold: detached processes and temp dirs, killed if left."""

    def __init__(self) -> None:
        self.pids: list[int] = []

    def add(self, result: Any) -> None:
        self.pids.append(int(result.structured_content["pid"]))

    def add_bash(self, result: Any) -> None:
        found = re.search(r"pid=(\d+)", result.content[0].text)
        assert found, result.content[0].text
        self.pids.append(int(found.group(1)))

    def alive(self) -> list[int]:
        return [pid for pid in self.pids if is_alive(pid)]

    def kill_left(self) -> None:
        # Only the processes these tests started (through the server), by their id.
        for pid in self.alive():
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def held() -> Iterator[Held]:
    found = Held()
    try:
        yield found
    finally:
        found.kill_left()


async def hold_things(client: Client, held: Held) -> None:
    """Make the session's tools hold a detached child, a temp dir and a nohup job."""
    held.add(await client.call_tool_mcp("spawn", {}))
    if HAS_BASH:
        result = await client.call_tool_mcp("bash", {"command": NOHUP})
        assert not result.is_error, result.content[0].text
        held.add_bash(result)


# -- SIGTERM and SIGINT ----------------------------------------------------------------


STOP_SIGNALS = pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])


@STOP_SIGNALS
async def test_a_signal_closes_every_http_sessions_tools(
    tmp_path: Path, held: Held, sig: signal.Signals
) -> None:
    proc, url = start_http(tmp_path, "--workspace", str(tmp_path), plugins=PLUGINS)
    try:
        first = Client(url, timeout=20, init_timeout=20)
        second = Client(url, timeout=20, init_timeout=20)
        async with first, second:
            await hold_things(first, held)
            await hold_things(second, held)
            assert len(held.alive()) == len(held.pids) and temp_left(tmp_path)
            proc.send_signal(sig)
            proc.wait(60)
    except Exception:
        # The clients' goodbye (DELETE) finds no server; only the shutdown matters here.
        if proc.returncode is None:
            raise
    finally:
        stop(proc)
    wait_until(lambda: not held.alive(), what="the tools' processes are gone")
    assert temp_left(tmp_path) == []
    assert proc.returncode == -sig  # ended by the signal, after closing


@STOP_SIGNALS
async def test_a_signal_closes_the_stdio_sessions_tools(
    tmp_path: Path, held: Held, sig: signal.Signals
) -> None:
    transport = StdioTransport(
        TOOLPLUG,
        ["mcp", "serve", "--plugins", PLUGINS, "--workspace", str(tmp_path)],
        env=serve_env(tmp_path),
        keep_alive=False,
    )
    server_pid = 0
    try:
        async with Client(transport, timeout=20, init_timeout=30) as client:
            await hold_things(client, held)
            server_pid = (await client.call_tool_mcp("counter", {})).structured_content["pid"]
            os.kill(server_pid, sig)
            wait_until(lambda: not is_alive(server_pid), what="the server has exited", timeout=60)
    except Exception:
        if not server_pid or is_alive(server_pid):
            raise
    wait_until(lambda: not held.alive(), what="the tools' processes are gone")
    assert temp_left(tmp_path) == []
    assert "closed at 1" in (tmp_path / "closed.txt").read_text()


async def test_sigterm_with_a_call_in_flight(tmp_path: Path, held: Held) -> None:
    proc, url = start_http(tmp_path, plugins=PLUGINS)
    try:
        async with Client(url, timeout=120, init_timeout=20) as client:
            # A call that lasts as long as its child: the shutdown must not wait for it.
            call = asyncio.create_task(client.call_tool_mcp("spawn", {"wait": True}))
            await until(lambda: temp_left(tmp_path), "the call has started")
            await until(lambda: children_of(proc.pid), "the call's child has started")
            held.pids.extend(children_of(proc.pid))
            proc.send_signal(signal.SIGTERM)
            await asyncio.to_thread(proc.wait, 60)
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)
    except Exception:
        if proc.returncode is None:
            raise
    finally:
        stop(proc)
    wait_until(lambda: not held.alive(), what="the call's child is gone")
    assert temp_left(tmp_path) == []
    assert proc.returncode == -signal.SIGTERM


# -- DELETE ----------------------------------------------------------------------------


class RawSession:
    """An MCP session driven with plain HTTP requests, to send what clients would not."""

    def __init__(self, url: str, **headers: str) -> None:
        self.url = url
        self.http = httpx2.Client(timeout=30, headers=headers)
        self.accept = {"Accept": "application/json, text/event-stream"}
        opened = self.post("initialize", self.init_params(), session=False)
        assert opened.status_code == 200, opened.text
        self.id = opened.headers["mcp-session-id"]
        assert self.post("notifications/initialized", None).status_code == 202
        self.calls = 0

    @staticmethod
    def init_params() -> dict[str, Any]:
        info = {"name": "raw", "version": "0"}
        return {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": info}

    def headers(self, session: bool = True) -> dict[str, str]:
        extra = {"mcp-session-id": self.id, "mcp-protocol-version": PROTOCOL} if session else {}
        return {**self.accept, **extra}

    def post(self, method: str, params: Any, session: bool = True) -> httpx2.Response:
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        if not method.startswith("notifications/"):
            body["id"] = 1
        return self.http.post(self.url, json=body, headers=self.headers(session))

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        answer = self.post("tools/call", {"name": tool, "arguments": arguments})
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = rpc_answer(answer)["result"]
        return result

    def delete(self, path: str | None = None, **headers: str) -> httpx2.Response:
        url = self.url if path is None else self.url.rsplit("/", 1)[0] + path
        return self.http.delete(url, headers={**self.headers(), **headers})


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace (and ``closed.txt``) of the module's shared :func:`server`."""
    return tmp_path_factory.mktemp("served")


@pytest.fixture(scope="module")
def server(served: Path) -> Iterator[str]:
    """One served toolplug for the tests that need no fresh server (each opens sessions
    of its own; the idle timeout, 30 minutes, ends none of them while the module runs).
    Its URL."""
    proc, url = start_http(served, "--workspace", str(served), plugins=PLUGINS)
    try:
        yield url
    finally:
        stop(proc)


@pytest.fixture
def closes(served: Path) -> Callable[[], list[str]]:
    """The counters closed since this test began: the shared server's earlier closes
    (and the one it read schemas from, ``closed at 0``, its first line) left out."""
    closed = served / "closed.txt"

    def lines() -> list[str]:
        found = closed.read_text().splitlines() if closed.exists() else []
        assert found[:1] == ["closed at 0"], found
        return found

    start = max(len(closed.read_text().splitlines()) if closed.exists() else 0, 1)
    return lambda: lines()[start:]


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/not-mcp", {}, 404),
        ("/", {}, 404),
        ("/mcp/../not-mcp", {}, 404),
        (None, {"Origin": "http://evil.example"}, 403),
        (None, {"Host": "evil.example"}, 421),
    ],
)
def test_a_refused_delete_leaves_the_session_and_its_tools(
    server: str,
    closes: Callable[[], list[str]],
    held: Held,
    path: str | None,
    headers: dict[str, str],
    status: int,
) -> None:
    session = RawSession(server)
    assert session.call("counter", {"step": 5})["structuredContent"]["value"] == 5
    held.pids.append(session.call("spawn", {})["structuredContent"]["pid"])
    assert session.delete(path, **headers).status_code == status
    # The MCP session is still valid, and its tools are the same ones, still open.
    assert session.call("counter", {"step": 1})["structuredContent"]["value"] == 6
    assert held.alive() == held.pids and closes() == []
    # The real end of the session closes them.
    assert session.delete().status_code == 200
    wait_until(lambda: closes() == ["closed at 6"], what="the counter was closed")
    wait_until(lambda: not held.alive(), what="the spawned child is gone")


def test_a_delete_without_the_token_leaves_the_session(tmp_path: Path, held: Held) -> None:
    proc, url = start_http(tmp_path, "--token", "s3cret", plugins=PLUGINS)
    try:
        session = RawSession(url, Authorization="Bearer s3cret")
        held.pids.append(session.call("spawn", {})["structuredContent"]["pid"])
        refused = httpx2.delete(url, headers={"mcp-session-id": session.id})
        assert refused.status_code == 401
        assert held.alive() == held.pids
        assert session.call("counter", {})["structuredContent"]["value"] == 1
    finally:
        stop(proc)
    wait_until(lambda: not held.alive(), what="the spawned child is gone")


def test_requests_after_the_end_of_a_session(server: str, closes: Callable[[], list[str]]) -> None:
    session = RawSession(server)
    session.call("counter", {"step": 2})
    assert session.delete().status_code == 200
    wait_until(lambda: closes() == ["closed at 2"], what="the counter was closed")
    # The ended session is gone for good: no call, no second end, no new tools.
    assert session.post("tools/call", {"name": "counter", "arguments": {}}).status_code == 404
    assert session.delete().status_code == 404
    assert closes() == ["closed at 2"]
    # Other clients are not affected.
    assert RawSession(server).call("counter", {})["structuredContent"]["value"] == 1


# -- hostile session ids and requests --------------------------------------------------

session_ids = st.one_of(
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=200),
    st.binary(min_size=1, max_size=200).filter(lambda b: b"\r" not in b and b"\n" not in b),
    st.just("x" * 60_000),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(session_id=session_ids, method=st.sampled_from(["POST", "GET", "DELETE"]))
def test_unknown_session_ids_are_refused(
    server: str, closes: Callable[[], list[str]], session_id: str | bytes, method: str
) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    body["params"] = {"name": "counter", "arguments": {}}  # type: ignore[assignment]
    headers: dict[str, Any] = {
        "Accept": "application/json, text/event-stream",
        "mcp-session-id": session_id,
        "mcp-protocol-version": PROTOCOL,
    }
    try:
        answer = httpx2.request(method, server, json=body, headers=headers, timeout=30)
    except httpx2.LocalProtocolError:
        pass  # not even sent: the client refuses the header (a NUL, say)
    except (httpx2.RemoteProtocolError, httpx2.ReadError):
        # The HTTP server dropped a request it could not parse (a 60 kB header), by
        # closing or by resetting the connection: nothing was served.
        pass
    else:
        assert answer.status_code in (400, 404, 405, 406, 413, 431), answer.text
    # No tools were created for the id, and the server still serves everyone else.
    assert closes() == []
    assert RawSession(server).call("counter", {})["structuredContent"]["value"] == 1


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize(
    "arguments",
    [
        '"not an object"',
        "[1, 2, 3]",
        '{"step": "' + "x" * 100_000 + '"}',
        '{"step": ' + "9" * 5_000 + "}",  # past Python's 4,300-digit int limit
        '{"step": ' + deep(1_000) + "}",
        '{"step": ' + deep(100_000) + "}",
        '{"step": "\\ud800"}',  # a lone surrogate
    ],
    ids=["string", "array", "long-string", "huge-int", "deep", "deeper", "surrogate"],
)
def test_hostile_arguments_are_refused_and_the_session_lives_on(
    server: str, arguments: str
) -> None:
    session = RawSession(server)
    body = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
    body += '"params": {"name": "counter", "arguments": ' + arguments + "}}"
    answer = session.http.post(
        server, content=body, headers={**session.headers(), "Content-Type": "application/json"}
    )
    # Refused by the JSON-RPC layer (400) or answered with an error result, never a 500.
    if answer.status_code != 400:
        assert answer.status_code == 200, answer.text
        reply = rpc_answer(answer)
        assert reply.get("error") or reply["result"]["isError"], reply
    # The session and its tools are still usable.
    assert session.call("counter", {"step": 3})["structuredContent"]["value"] == 3


def test_a_call_of_an_unknown_tool_and_methods_out_of_order(server: str) -> None:
    session = RawSession(server)
    unknown = rpc_answer(session.post("tools/call", {"name": "no-such-tool", "arguments": {}}))
    assert unknown["error"]["code"] == -32602, unknown  # Invalid params, as the spec lists
    again = session.post("initialize", RawSession.init_params())
    assert again.status_code < 500
    assert session.call("counter", {})["structuredContent"]["value"] == 1


# -- hostile command lines -------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        ["--idle-timeout", "nan"],
        ["--idle-timeout", "inf"],
        ["--idle-timeout", "0"],
        ["--idle-timeout", "-5"],
        ["--port", "70000"],
        ["--port", "-1"],
        ["--path", "no-slash"],
        ["--path", ""],
    ],
    ids=lambda o: " ".join(o),
)
def test_bad_serve_options_are_usage_errors(tmp_path: Path, options: list[str]) -> None:
    code, stderr = serve_usage_error(tmp_path, options, real=options == ["--idle-timeout", "nan"])
    assert code == 2, stderr
    assert "Traceback" not in stderr
    assert options[0] in stderr or options[0].lstrip("-").replace("-", " ") in stderr


def serve_usage_error(tmp_path: Path, options: list[str], *, real: bool) -> tuple[int, str]:
    """``toolplug mcp serve --transport http --plugins counter OPTIONS``: its exit status
    and stderr. One case of each group is ``real`` (a subprocess: the process exits 2,
    with no traceback); the others run in this process (:func:`conftest.usage_error`)."""
    args = ["mcp", "serve", "--transport", "http", "--plugins", "counter", *options]
    if not real:
        return usage_error(args)
    done = subprocess.run(
        [TOOLPLUG, *args],
        env=serve_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stderr


# ======================================================================================
# serve: hostile HTTP clients (issue #26). Raw sockets: HTTP clients merge or refuse to
# send duplicate headers, and cannot send a request slowly.
# ======================================================================================


def raw_status(port: int, headers: list[tuple[str, str]], host: str | None = None) -> int:
    """The status of an ``initialize`` POSTed with exactly these headers (and ``Host``)."""
    body = json.dumps(INITIALIZE).encode()
    lines = ["POST /mcp HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}"]
    lines += [f"{name}: {value}" for name, value in headers]
    lines += [
        "Accept: application/json, text/event-stream",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        status = sock.makefile("rb").readline()
    assert status.startswith(b"HTTP/1.1 "), status
    return int(status.split()[1])


@pytest.fixture(scope="module")
def loopback_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A served counter on 127.0.0.1, shared by the module's tests (they only send
    requests and read statuses); its port."""
    proc, url = start_http(tmp_path_factory.mktemp("loopback"), plugins="counter")
    try:
        yield int(url.rsplit(":", 1)[1].split("/")[0])
    finally:
        stop(proc)


def test_the_origin_must_be_the_servers_own_scheme_host_and_port(loopback_port: int) -> None:
    """The reported hole: on loopback only the host name was compared, so
    ``http://127.0.0.1:PORT.evil.com`` and pages on other ports were served."""
    port = loopback_port
    own = f"127.0.0.1:{port}"
    refused = [
        (own, f"http://127.0.0.1:{port}.evil.com"),
        (own, f"http://127.0.0.1:{port + 1}"),
        (own, "http://127.0.0.1"),
        (own, f"https://127.0.0.1:{port}"),
        (own, f"http://localhost:{port}"),  # another origin than the Host names
        (own, f"http://[::1]:{port}"),
        (own, f"http://127.0.0.1.:{port}"),
        (own, f"http://user@127.0.0.1:{port}"),
        (own, f"http://127.0.0.1:{port}/"),
        (own, f"http://127.0.0.1:{port}, http://127.0.0.1:{port}"),
        (own, "null"),
        (own, ""),
        (f"localhost:{port}", f"http://localhost:{port + 1}"),
        (f"localhost:{port}", f"http://localhost.:{port}"),
    ]
    served = [
        (own, f"http://127.0.0.1:{port}"),
        (own, f"HTTP://127.0.0.1:{port}"),  # scheme and host compare in any case
        (f"localhost:{port}", f"http://localhost:{port}"),
        (f"LOCALHOST:{port}", f"http://localhost:{port}"),
        (f"[::1]:{port}", f"http://[::1]:{port}"),
        (f"[0:0::1]:{port}", f"http://[::1]:{port}"),
        # A port forward: the page and the Host name the forwarded port.
        ("localhost:9", "http://localhost:9"),
    ]
    wrong = [
        (host, origin, status)
        for cases, expected in ((refused, 403), (served, 200))
        for host, origin in cases
        if (status := raw_status(port, [("Origin", origin)], host=host)) != expected
    ]
    assert wrong == [], wrong
    assert raw_status(port, []) == 200  # clients that are not browsers send no Origin


def test_a_foreign_host_is_misdirected_on_loopback(loopback_port: int) -> None:
    port = loopback_port
    for host in ("localhost.", f"127.0.0.1.evil.example:{port}", "::1", f"a@127.0.0.1:{port}"):
        assert raw_status(port, [], host=host) == 421, host


@pytest.mark.parametrize(
    "headers",
    [
        [("Origin", "{own}"), ("Origin", "{own}")],
        [("Origin", "{own}"), ("ORIGIN", "{own}")],
        [("Origin", "{own}"), ("origin", "http://evil.example")],
        [("Authorization", "Bearer x"), ("Authorization", "Bearer x")],
        [("Mcp-Session-Id", "a"), ("mcp-session-id", "b")],
        [("Host", "{host}")],  # a second Host (the first is raw_status's)
    ],
    ids=["origin", "origin-case", "origin-other", "authorization", "session-id", "host"],
)
def test_a_header_sent_twice_is_refused(loopback_port: int, headers: list[tuple[str, str]]) -> None:
    port = loopback_port
    given = [
        (name, value.format(own=f"http://127.0.0.1:{port}", host=f"127.0.0.1:{port}"))
        for name, value in headers
    ]
    assert raw_status(port, given) == 400
    if given[0][0] != "Host":
        assert raw_status(port, given[:1]) != 400  # once is fine


def test_duplicate_authorization_is_refused_even_when_both_hold_the_token(
    tmp_path: Path,
) -> None:
    proc, url = start_http(tmp_path, "--token", "s3cret", plugins="counter")
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    try:
        token = ("Authorization", "Bearer s3cret")
        assert raw_status(port, [token]) == 200
        assert raw_status(port, [token, token]) == 400
        assert raw_status(port, [("Authorization", "Bearer nope"), token]) == 400
    finally:
        stop(proc)


@pytest.mark.parametrize(
    "origin", ["https://app.example/path", "app.example", "null", "https://u@app.example"]
)
def test_an_allowed_origin_that_is_not_an_origin_is_a_usage_error(
    tmp_path: Path, origin: str
) -> None:
    code, stderr = serve_usage_error(
        tmp_path, ["--allow-origin", origin], real=origin == "https://u@app.example"
    )
    assert code == 2, stderr
    assert "--allow-origin" in stderr and "is not an origin" in stderr
    assert "Traceback" not in stderr


class LoggedServer:
    """``toolplug mcp serve --transport http`` with its stderr kept in a file."""

    def __init__(self, tmp_path: Path, *extra: str) -> None:
        fd, name = tempfile.mkstemp(prefix="serve-", suffix=".txt", dir=tmp_path)
        os.close(fd)
        self.errors = Path(name)
        args = ["--plugins", "counter", *extra]
        self.proc, url = start_serve(args, serve_env(tmp_path), self.errors)
        self.port = int(url.rsplit(":", 1)[1].split("/")[0])

    def log(self) -> list[str]:
        """What the server wrote to stderr after the line with its URL."""
        return self.errors.read_text().splitlines()[1:]

    def headers(self, length: int) -> bytes:
        return (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n"
        ).encode()


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed the socket (its 408 read and dropped)."""
    try:
        while True:
            if not sock.recv(4096):
                return True
    except BlockingIOError:
        return False
    except OSError:  # reset: the server closed with our bytes unread
        return True


def trickle(socks: list[socket.socket], data: bytes, limit: float) -> list[socket.socket]:
    """Send ``data`` a byte at a time (every 0.2 s) on each socket until the server
    closes it, or ``limit`` seconds pass; the sockets still open then."""
    for sock in socks:
        sock.setblocking(False)
    open_ = list(socks)
    deadline = time.monotonic() + limit
    sent = 0
    while open_ and time.monotonic() < deadline:
        time.sleep(0.2)
        for sock in list(open_):
            if closed_by_server(sock):
                open_.remove(sock)
                continue
            try:
                sock.send(data[sent % len(data) : sent % len(data) + 1])
            except BlockingIOError:
                pass
            except OSError:
                open_.remove(sock)
        sent += 1
    return open_


def test_slow_headers_are_timed_out(tmp_path: Path) -> None:
    """The reported hole: 60 of 60 clients sending their headers slowly held their
    sockets. With --header-timeout 1 each is closed; so is one that sends nothing."""
    server = LoggedServer(tmp_path, "--header-timeout", "1")
    socks = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(60)]
    silent = socket.create_connection(("127.0.0.1", server.port))
    silent.setblocking(False)
    try:
        header = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Slow: ".encode()
        assert trickle(socks, header + b"a" * 10_000, limit=60) == []
        wait_until(lambda: closed_by_server(silent), what="the silent client is closed", timeout=30)
        # Meanwhile and after, the server answers.
        assert httpx2.get(f"http://127.0.0.1:{server.port}/healthz", timeout=30).status_code == 200
    finally:
        for sock in [*socks, silent]:
            sock.close()
        stop(server.proc)
    said = [line for line in server.log() if "(--header-timeout)" in line]
    assert len(said) == 61, server.log()
    assert "Traceback" not in server.errors.read_text()


def test_a_slow_body_is_timed_out(tmp_path: Path) -> None:
    server = LoggedServer(tmp_path, "--body-timeout", "1")
    sock = socket.create_connection(("127.0.0.1", server.port))
    try:
        sock.sendall(server.headers(100_000))
        assert trickle([sock], b"[" * 100_000, limit=60) == []
    finally:
        sock.close()
        stop(server.proc)
    assert [line for line in server.log() if "(--body-timeout)" in line], server.log()
    assert "Traceback" not in server.errors.read_text()


def test_the_timeout_answer_is_408(tmp_path: Path) -> None:
    server = LoggedServer(tmp_path, "--body-timeout", "1")
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(server.headers(100) + b"{")
            assert sock.makefile("rb").readline().startswith(b"HTTP/1.1 408 ")
    finally:
        stop(server.proc)


def test_a_client_that_leaves_mid_body_is_one_log_line(tmp_path: Path) -> None:
    server = LoggedServer(tmp_path)
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(server.headers(1000) + b'{"jsonrpc": "2.0", "id": 1, ')
            time.sleep(0.5)  # the server has the headers and part of the body
        wait_until(lambda: server.log(), what="the server logs the client's leaving", timeout=30)
        time.sleep(1)  # anything else it would log about it
        assert len(server.log()) == 1, server.log()
        assert "went away before the end of the body" in server.log()[0]
        # Nothing reached the MCP layer: no session was opened.
        health = httpx2.get(f"http://127.0.0.1:{server.port}/healthz", timeout=30).json()
        assert health["sessions"] == 0
    finally:
        stop(server.proc)
    assert "Traceback" not in server.errors.read_text()


@pytest.mark.parametrize("option", ["--header-timeout", "--body-timeout"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_bad_request_timeouts_are_usage_errors(tmp_path: Path, option: str, value: str) -> None:
    real = (option, value) == ("--header-timeout", "nan")
    code, stderr = serve_usage_error(tmp_path, [option, value], real=real)
    assert code == 2, stderr
    assert option in stderr and "Traceback" not in stderr


# -- the configuration: whatever a file holds, a ConfigError or servers -----------------

_KEYS = ["command", "args", "env", "cwd", "url", "headers", "transport", "type", "auth"]
_KEYS += ["oauth", "timeout", "prefix", "disabled", "maxServerRequests", "junk"]
_SCALARS = st.none() | st.booleans() | st.integers(-3, 70000) | st.floats(-1, 1e6)
_SCALARS |= st.sampled_from(["", "x", "stdio", "http", "sse", "oauth", "https://h/sse"])
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from([*_KEYS, "scopes", "callback_port", "cache_dir"]), inner, max_size=3
        )
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    servers=st.dictionaries(
        st.sampled_from(["a", "b", "c"]),
        st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=6) | _VALUES,
        max_size=3,
    )
)
def test_any_configuration_gives_servers_or_a_config_error(servers: dict[str, Any]) -> None:
    """The pydantic errors of any entry are turned into a message naming the server,
    never into another exception (a KeyError of an error that has no sentence)."""
    from toolplug_mcp.client.config import ConfigError, parse_servers

    try:
        specs = parse_servers({"mcpServers": servers}, env={}, workspace=Path("/ws"))
    except ConfigError as exc:
        assert re.match(r"MCP server '[abc]': \S", str(exc)), str(exc)
    else:
        assert [s.name for s in specs] == list(servers)
        assert all(s.transport in ("stdio", "http", "sse") for s in specs)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(data=_JSON)
def test_the_line_of_every_json_value_is_found(data: object) -> None:
    """Whatever the keys hold (quotes, backslashes, braces, other scripts), each member
    and element is found on the line where json.dumps wrote it."""
    from toolplug_mcp.client.json_lines import value_lines

    text = json.dumps(data, indent=1, ensure_ascii=False)
    rows = text.split("\n")  # as JSON counts lines (not str.splitlines, which splits at \x85)
    for path, line in value_lines(text).items():
        row = rows[line - 1].strip()
        last = path[-1]
        if isinstance(last, str):
            assert row.startswith(json.dumps(last, ensure_ascii=False) + ":"), (path, row)
        else:
            value: Any = data
            for step in path:
                value = value[step]
            written = json.dumps(value, ensure_ascii=False)
            assert row.startswith(written if not isinstance(value, (list, dict)) else written[0])
    assert set(value_lines(json.dumps(data)).values()) <= {1}


# -- the mcp factory's params: described and bounded in its annotations --------------------


def test_every_param_of_the_factory_is_typed_and_described(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLPLUG_MCP_CONFIG", raising=False)
    properties = params_listing("mcp", plugins="mcp")
    assert set(properties) == {
        "config",
        "timeout",
        "init_timeout",
        "resources",
        "max_server_requests",
    }
    assert [n for n, p in properties.items() if not p.get("description")] == []
    assert properties["timeout"]["type"] == "number"


def test_a_timeout_that_bounds_nothing_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLPLUG_MCP_CONFIG", raising=False)
    done = run_toolplug(
        "call", "mcp/anything", "{}", "--param", "init_timeout=0", plugins="mcp", cwd=tmp_path
    )

    assert done.returncode == 2
    assert "Invalid params for tool 'mcp'" in done.stderr
    assert "- init_timeout: Input should be greater than 0" in done.stderr


def test_a_server_that_does_not_come_up_in_time_is_not_left_running(tmp_path: Path) -> None:
    """The reported leak: the HTTP fixture raised when its wait for the server expired,
    and the server it had started outlived the test run, still listening."""
    before = children_of(os.getpid())
    with pytest.raises(AssertionError, match="still waiting for the server's URL"):
        start_http(tmp_path, plugins="counter", limit=0)
    assert children_of(os.getpid()) - before == set()
