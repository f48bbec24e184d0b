"""`toolplug mcp serve` for many sessions on one host: the session limit, the health and
readiness endpoints, draining on SIGTERM, closing hundreds of sessions at once (SIGTERM,
DELETE), per-session tool params, and --stateless.

Every test runs the real server with real bash sessions, driven by the official MCP SDK
client (or plain HTTP where the status line and headers are the point) on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from conftest import (
    HAS_BASH,
    INITIALIZE,
    PROTOCOL,
    TOOLPLUG,
    is_alive,
    rpc_answer,
    serve_env,
    start_serve,
    stop,
    until,
    usage_error,
)
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from toolplug.testing import wait_until

pytestmark = pytest.mark.skipif(not HAS_BASH, reason="needs toolplug-bash installed")

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class Server:
    """``toolplug mcp serve --transport http`` on a free port, stderr kept in a file."""

    def __init__(self, tmp_path: Path, *extra: str, plugins: str = "bash") -> None:
        fd, name = tempfile.mkstemp(prefix="serve-", suffix=".txt", dir=tmp_path)
        os.close(fd)
        self.stderr_path = Path(name)
        args = ["--plugins", plugins, "--workspace", str(tmp_path), *extra]
        self.proc, self.url = start_serve(args, serve_env(tmp_path), self.stderr_path)
        self.base = self.url.removesuffix("/mcp")
        self.port = int(self.base.rsplit(":", 1)[1])

    def get(self, path: str) -> httpx2.Response:
        return httpx2.get(self.base + path, timeout=30)

    def open_raw(self) -> httpx2.Response:
        """A plain-HTTP ``initialize`` that would open a session."""
        return httpx2.post(self.url, json=INITIALIZE, headers=ACCEPT, timeout=30)

    def stderr(self) -> str:
        return self.stderr_path.read_text()


@asynccontextmanager
async def session(url: str, *, outlived: bool = False) -> AsyncIterator[ClientSession]:
    """An initialized session of the official SDK client.

    ``outlived``: the server is stopped before the session ends, so the client's
    goodbye (its ``DELETE``) fails; that failure is not the test's.
    """
    stack = AsyncExitStack()
    read, write = await stack.enter_async_context(streamable_http_client(url))
    client = await stack.enter_async_context(ClientSession(read, write))
    try:
        await client.initialize()
        yield client
    finally:
        try:
            await stack.aclose()
        except Exception:
            if not outlived:
                raise


async def bash(client: ClientSession, command: str) -> str:
    result = await client.call_tool("bash", {"command": command})
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    return text.split("\n[", 1)[0].rstrip("\n")  # the output, without bash's status line


def kill_left(pids: list[int]) -> None:
    for pid in pids:
        if is_alive(pid):
            os.kill(pid, signal.SIGKILL)


# -- the session limit, /healthz and /readyz ------------------------------------------


async def test_past_max_sessions_a_new_session_gets_503_and_the_others_go_on(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path, "--max-sessions", "2")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    try:
        assert server.get("/readyz").status_code == 200
        async with session(server.url) as first, session(server.url) as second:
            await bash(first, f"cd {tmp_path / 'a'} && X=first")
            await bash(second, f"cd {tmp_path / 'b'} && X=second")
            health = server.get("/healthz")
            assert health.status_code == 200
            assert health.json() == {
                "status": "ok",
                "sessions": 2,
                "max_sessions": 2,
                "calls_in_flight": 0,
                "stateless": False,
            }
            ready = server.get("/readyz")
            assert ready.status_code == 503 and ready.json()["reason"] == "full"

            # Plain HTTP: the status, Retry-After and a JSON-RPC error body.
            refused = server.open_raw()
            assert refused.status_code == 503
            assert refused.headers["retry-after"] == "5"
            assert "mcp-session-id" not in refused.headers
            body = refused.json()
            assert body["jsonrpc"] == "2.0" and body["id"] is None
            assert "limit of 2 sessions (--max-sessions)" in body["error"]["message"]
            assert body["error"]["data"]["reason"] == "full"

            # The SDK client: an MCPError that says why.
            with pytest.raises(BaseException) as caught:
                async with session(server.url):
                    pass
            errors = _leaves(caught.value)
            assert any(isinstance(e, MCPError) and "--max-sessions" in str(e) for e in errors), (
                errors
            )

            # The two sessions were not touched: their shells are where they were.
            assert await bash(first, "pwd; echo $X") == f"{tmp_path / 'a'}\nfirst"
            assert await bash(second, "pwd; echo $X") == f"{tmp_path / 'b'}\nsecond"

        # Both ended (the clients' DELETE): room again.
        wait_until(lambda: server.get("/healthz").json()["sessions"] == 0, what="sessions ended")
        assert server.get("/readyz").status_code == 200
        async with session(server.url) as third:
            assert await bash(third, "echo $X; echo ok") == "\nok"
    finally:
        stop(server.proc)


def _leaves(exc: BaseException) -> list[BaseException]:
    inner = getattr(exc, "exceptions", None)
    if inner:
        return [leaf for e in inner for leaf in _leaves(e)]
    return [exc]


def test_the_probes_need_no_token_and_answer_head(tmp_path: Path) -> None:
    server = Server(tmp_path, "--token", "s3cret")
    try:
        assert server.open_raw().status_code == 401  # the endpoint keeps its token
        health = server.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        ready = server.get("/readyz")
        assert ready.status_code == 200
        assert ready.json()["ready"] is True and ready.json()["reason"] is None
        head = httpx2.head(server.base + "/readyz", timeout=30)
        assert head.status_code == 200 and head.content == b""
        assert httpx2.post(server.base + "/healthz", timeout=30).status_code != 200
    finally:
        stop(server.proc)


# -- draining on SIGTERM ----------------------------------------------------------------


async def test_sigterm_drains_then_closes_every_sessions_shell(tmp_path: Path) -> None:
    """A call in flight finishes; meanwhile the server is unready, refuses new sessions
    and new calls; then every session's bash is gone and the process ends by SIGTERM."""
    server = Server(tmp_path, "--shutdown-timeout", "120")
    release = tmp_path / "release"
    pids: list[int] = []
    try:
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(session(server.url, outlived=True))
                for _ in range(3)
            ]
            for client in clients:
                pids.append(int(await bash(client, "echo $$")))
            # Background jobs too: a nohup'd one must not outlive the server.
            job = await bash(clients[1], "nohup sleep 1000 >/dev/null 2>&1 & echo $!")
            pids.append(int(job.split()[-1]))  # after the shell's own "[1] pid"
            assert all(is_alive(p) for p in pids)
            # A call that runs until the test lets it go.
            wait = f"while [ ! -e {release} ]; do sleep 0.05; done; echo finished"
            in_flight = asyncio.ensure_future(bash(clients[0], wait))
            await until(lambda: server.get("/healthz").json()["calls_in_flight"] == 1, "call")

            server.proc.send_signal(signal.SIGTERM)
            await until(lambda: server.get("/healthz").json()["status"] == "draining", "drain")
            ready = server.get("/readyz")
            assert ready.status_code == 503 and ready.json()["reason"] == "draining"
            refused = server.open_raw()
            assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
            assert "shutting down" in refused.json()["error"]["message"]
            with pytest.raises(MCPError, match="shutting down and takes no new calls"):
                await clients[2].call_tool("bash", {"command": "echo late"})
            assert server.proc.poll() is None  # still waiting for the call

            release.touch()
            assert await in_flight == "finished"
            await asyncio.to_thread(server.proc.wait, 60)
    finally:
        stop(server.proc)
        wait_until(
            lambda: not any(is_alive(p) for p in pids), what="the shells are gone", timeout=30
        )
        kill_left(pids)
    assert server.proc.returncode == -signal.SIGTERM
    assert "Traceback" not in server.stderr()


async def test_past_the_shutdown_timeout_calls_are_cut_and_shells_closed(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path, "--shutdown-timeout", "0.5")
    pids: list[int] = []
    try:
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(session(server.url, outlived=True))
            pids.append(int(await bash(client, "echo $$")))
            call = asyncio.ensure_future(
                client.call_tool("bash", {"command": "sleep 1000", "timeout": 600})
            )
            await until(lambda: server.get("/healthz").json()["calls_in_flight"] == 1, "call")
            server.proc.send_signal(signal.SIGTERM)
            await asyncio.to_thread(server.proc.wait, 60)
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)
    finally:
        stop(server.proc)
        wait_until(lambda: not any(is_alive(p) for p in pids), what="the shell is gone", timeout=30)
        kill_left(pids)
    assert server.proc.returncode == -signal.SIGTERM


# -- per-session tool params: the bash sandbox's limits -----------------------------------


def _sandbox_problem() -> str | None:
    """Why the bash plugin's bubblewrap sandbox cannot run here (None: it can), in the
    plugin's own words."""
    from toolplug import ToolError
    from toolplug_bash import sandbox

    try:
        sandbox.check_runs(sandbox.find_bwrap(os.environ.get("PATH")), network=False)
    except ToolError as exc:
        return str(exc)
    return None


async def test_each_session_gets_the_bash_sandbox_limits_given(tmp_path: Path) -> None:
    problem = _sandbox_problem()
    if problem is not None:
        pytest.skip(problem)
    server = Server(
        tmp_path,
        "--tool-param",
        "bash.sandbox=bwrap",
        "--tool-param",
        "bash.max_processes=77",
        "--tool-param",
        "bash.max_memory_mb=1024",
    )
    try:
        async with session(server.url) as first, session(server.url) as second:
            for client in (first, second):
                limits = await bash(client, "ulimit -u; ulimit -v")
                assert limits == f"77\n{1024 * 1024}"
    finally:
        stop(server.proc)


def _start_refused(tmp_path: Path, *options: str, real: bool = True) -> tuple[int, str]:
    """``toolplug mcp serve OPTIONS`` run to its end (these starts are refused): its exit
    status and stderr. One case of each group is ``real`` (a subprocess: the process
    exits 2, with no traceback); the others run in this process
    (:func:`conftest.usage_error`)."""
    if not real:
        return usage_error(["mcp", "serve", *options])
    done = subprocess.run(
        [TOOLPLUG, "mcp", "serve", *options],
        env=serve_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    ("param", "said"),
    [
        ("bash.max_processes=-1", "bash cannot be created with its params"),
        ("bash.no_such_param=1", "bash cannot be created with its params"),
        ("glob.default_limit=5", "params given for glob, which is not served"),
        ("bash", "is not TOOL.KEY=VALUE"),
    ],
)
def test_bad_tool_params_stop_the_start(tmp_path: Path, param: str, said: str) -> None:
    code, stderr = _start_refused(
        tmp_path,
        *("--transport", "http", "--plugins", "bash", "--port", "0"),
        *("--tool-param", param),
        real=param == "bash.max_processes=-1",
    )
    assert code == 2
    assert said in stderr
    assert "Traceback" not in stderr


# -- --stateless ------------------------------------------------------------------------


def test_stateless_refuses_stateful_tools(tmp_path: Path) -> None:
    code, stderr = _start_refused(
        tmp_path,
        *("--transport", "http", "--stateless", "--plugins", "think,glob,bash"),
        *("--port", "0"),
    )
    assert code == 2
    assert "--stateless serves tools that keep no state" in stderr
    assert "bash keeps state per session" in stderr
    assert "Traceback" not in stderr


async def test_stateless_any_request_stands_alone(tmp_path: Path) -> None:
    (tmp_path / "found.txt").write_text("x")
    server = Server(tmp_path, "--stateless", plugins="think,glob")
    other = Server(tmp_path, "--stateless", plugins="think,glob")
    try:
        # A client's calls go to either replica: no session id ties them to one.
        opened = server.open_raw()
        assert opened.status_code == 200 and "mcp-session-id" not in opened.headers
        for url in (server.url, other.url):
            async with session(url) as client:
                found = await client.call_tool("glob", {"pattern": "*.txt"})
                assert not found.is_error
                assert "found.txt" in found.content[0].text  # type: ignore[union-attr]
                thought = await client.call_tool("think", {"thought": "fine"})
                assert not thought.is_error
        health = server.get("/healthz").json()
        assert health["stateless"] is True and health["max_sessions"] is None
        assert server.get("/readyz").status_code == 200
    finally:
        stop(server.proc)
        stop(other.proc)


def test_stateless_needs_http(tmp_path: Path) -> None:
    code, stderr = _start_refused(tmp_path, "--stateless", "--plugins", "think", real=False)
    assert code == 2 and "--stateless is for --transport http" in stderr


# -- closing many sessions: DELETE and SIGTERM ------------------------------------------

#: Sessions of the SIGTERM test: 300, as the issue measured (fewer while developing).
MANY_SESSIONS = int(os.environ.get("TOOLPLUG_TEST_MANY_SESSIONS", "300"))


def marked_jobs(marker: str) -> list[int]:
    """The live processes whose command line carries ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and is_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


@pytest.fixture
def marker(tmp_path: Path) -> Iterator[str]:
    """A marker unique to the test; processes that carry it are killed (by id) after."""
    unique = f"toolplug-test-{os.getpid()}-{tmp_path.name}"
    yield unique
    kill_left(marked_jobs(unique))


class RawSessions:
    """MCP sessions driven with plain HTTP (no client holds a stream open): light
    enough to open hundreds from one test. Session ``n``'s bash starts a ``nohup`` job
    whose command line carries ``MARKER-n-``."""

    def __init__(self, server: Server, marker: str) -> None:
        self.server = server
        self.marker = marker
        self.http = httpx2.Client(
            timeout=120, headers=ACCEPT, limits=httpx2.Limits(max_connections=64)
        )
        self.ids: list[str] = []

    def open(self, count: int, *, job: bool = True) -> list[str]:
        """Open ``count`` more sessions (their bash started, a marked job running)."""
        first = len(self.ids)
        with ThreadPoolExecutor(16) as pool:
            opened = list(pool.map(lambda n: self._open_one(n, job), range(first, first + count)))
        self.ids += opened
        return opened

    def _open_one(self, n: int, job: bool) -> str:
        opened = self.http.post(self.server.url, json=INITIALIZE)
        assert opened.status_code == 200, opened.text
        sid = opened.headers["mcp-session-id"]
        self.post(sid, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        # sh stays (sleep is not its last command) with the marker in its arguments.
        command = f"nohup sh -c 'sleep 1000; : {self.marker}-{n}-' >/dev/null 2>&1 &"
        self.call(sid, command if job else "true")
        return sid

    def post(self, sid: str, body: dict[str, object]) -> httpx2.Response:
        headers = {"mcp-session-id": sid, "mcp-protocol-version": PROTOCOL}
        return self.http.post(self.server.url, json=body, headers=headers)

    def call(self, sid: str, command: str, timeout: float | None = None) -> str:
        arguments: dict[str, object] = {"command": command}
        if timeout is not None:
            arguments["timeout"] = timeout
        params = {"name": "bash", "arguments": arguments}
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
        answer = self.post(sid, body)
        assert answer.status_code == 200, answer.text
        result = rpc_answer(answer)["result"]
        assert not result["isError"], result
        return str(result["content"][0]["text"])

    def delete(self, n: int) -> int:
        headers = {"mcp-session-id": self.ids[n], "mcp-protocol-version": PROTOCOL}
        return self.http.delete(self.server.url, headers=headers).status_code

    def jobs(self, n: int | None = None) -> list[int]:
        """The live marked jobs (of session ``n``, else of every session)."""
        return marked_jobs(self.marker if n is None else f"{self.marker}-{n}-")


def test_sigterm_with_many_bash_sessions_ends_within_the_shutdown_timeout(
    tmp_path: Path, marker: str
) -> None:
    """With 300 bash sessions, each with a ``nohup`` job, a ``DELETE`` ends its session's
    shell at once, and SIGTERM ends the server leaving no session's process.

    It took 47-72 s before issue #26; quiet, it now takes 2.4-3.8 s, inside the issue's
    ``--shutdown-timeout`` plus 2 s (docs/benchmarks-history.md). The bound here is
    looser than that figure: at a load average of 11 on two cores (two CI envs running
    this suite at once) the stop took more than 7 s, so a bound of 2 s over the timeout
    failed with nothing wrong. 20 s over it still fails the old 47-72 s."""
    shutdown_timeout = 5
    bound = shutdown_timeout + 20
    server = Server(tmp_path, "--shutdown-timeout", str(shutdown_timeout))
    sessions = RawSessions(server, marker)
    try:
        sessions.open(MANY_SESSIONS)
        assert len(sessions.jobs()) == MANY_SESSIONS
        assert server.get("/healthz").json()["sessions"] == MANY_SESSIONS

        # Ten clients leave at once: their shells and jobs go, the others' stay.
        leaving = range(10)
        with ThreadPoolExecutor(10) as pool:
            assert list(pool.map(sessions.delete, leaving)) == [200] * 10
        wait_until(
            lambda: not any(sessions.jobs(n) for n in leaving),
            what="the left ones' jobs end",
            timeout=15,
        )
        assert len(sessions.jobs()) == MANY_SESSIONS - 10

        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        try:
            server.proc.wait(bound)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server still runs {bound} s after SIGTERM")
        took = time.monotonic() - started
    finally:
        stop(server.proc)
    assert server.proc.returncode == -signal.SIGTERM
    wait_until(lambda: not sessions.jobs(), what="no session's job is left", timeout=5)
    assert "Traceback" not in server.stderr()
    print(f"SIGTERM with {MANY_SESSIONS} sessions: exited after {took:.1f} s")


def test_a_deleted_sessions_shell_ends_while_other_sessions_calls_run(
    tmp_path: Path, marker: str
) -> None:
    """Long calls in other sessions do not hold up the end of a session's tools: as
    many calls as asyncio's default thread pool has threads (which served both calls
    and closing) run while one session is deleted."""
    busy = min(32, (os.cpu_count() or 1) + 4) + 1
    release = tmp_path / "release"
    server = Server(tmp_path, "--shutdown-timeout", "0.5")
    sessions = RawSessions(server, marker)
    calls: list[Future[str]] = []
    pool = ThreadPoolExecutor(busy)
    try:
        sessions.open(1)
        sessions.open(busy, job=False)
        wait = f"while [ ! -e {release} ]; do sleep 0.1; done"
        calls = [pool.submit(sessions.call, sid, wait, 600) for sid in sessions.ids[1:]]
        wait_until(
            lambda: server.get("/healthz").json()["calls_in_flight"] == busy, what="the calls run"
        )
        assert sessions.jobs(0)
        assert sessions.delete(0) == 200
        wait_until(lambda: not sessions.jobs(0), what="the deleted session's job ends", timeout=30)
        release.touch()
        for call in calls:
            call.result(120)
    finally:
        release.touch()
        stop(server.proc)
        pool.shutdown(cancel_futures=True)
    assert "Traceback" not in server.stderr()
