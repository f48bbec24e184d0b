"""The client's seams: its identity, failed loads, names, restarts, start failures,
timeouts and ``toolplug call`` of a server's tool, against real servers and processes."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import toolplug_mcp
from conftest import (
    HERE,
    TOOLPLUG,
    demo_stdio,
    is_alive,
    serve_env,
    start_serve,
    stop,
)
from toolplug import Tool, ToolContext, ToolDefinition, ToolError, ToolParamsError, Toolset
from toolplug.testing import registry_from, wait_until
from toolplug_mcp.client.config import parse_servers
from toolplug_mcp.client.names import exported_names

WITNESS_SERVER = HERE / "servers" / "witness_server.py"


def witness_stdio(*args: str, **env: str) -> dict[str, object]:
    """The mcpServers entry that runs the witness server over stdio."""
    return {"command": sys.executable, "args": [str(WITNESS_SERVER), *args], "env": env}


def load(config: object, tmp_path: Path, **plugin_tools: Callable[..., Any]) -> Toolset:
    """The mcp factory's tools, after the tools of a plugin (name -> function) if given."""
    registry = registry_from(toolplug_mcp)
    for name, function in plugin_tools.items():
        registry.register(ToolDefinition.from_function(function), name=name)
    specs = [*map(Tool, plugin_tools), Tool("mcp", {"config": config})]
    return Toolset.load(specs, registry=registry, context=ToolContext(workspace=tmp_path))


def client_info() -> str:
    """A plugin's tool that has the name of one of the witness server's tools."""
    return "the plugin's"


# -- the client's identity ----------------------------------------------------------------


def test_the_client_introduces_itself_as_toolplug_mcp(tmp_path: Path) -> None:
    with load({"mcpServers": {"w": witness_stdio()}}, tmp_path) as toolset:
        seen = toolset.call("client_info", {})
    assert not seen.is_error, seen.text
    assert seen.structured_content() == {
        "name": "toolplug-mcp",
        "version": toolplug_mcp.__version__,
    }


# -- a failed load ------------------------------------------------------------------------

FAILING_LOAD = r"""
import json, sys
import toolplug_mcp
from toolplug import Tool, ToolContext, ToolDefinition, ToolError, Toolset
from toolplug.testing import registry_from

def client_info() -> str:
    '''A plugin's tool that has the name of one of the witness server's tools.'''
    return "the plugin's"

config, order, workspace, pid_file = sys.argv[1:]
registry = registry_from(toolplug_mcp)
registry.register(ToolDefinition.from_function(client_info))
specs = [Tool("client_info"), Tool("mcp", {"config": json.loads(config)})]
if order == "mcp-first":
    specs.reverse()
try:
    Toolset.load(specs, registry=registry, context=ToolContext(workspace=workspace))
except ToolError as exc:
    print("refused:", exc)


def alive(pid):
    try:
        return "\nState:\tZ" not in open(f"/proc/{pid}/status").read()
    except FileNotFoundError:
        return False


pids = [int(line) for line in open(pid_file).read().split()]
print(json.dumps({"servers": pids, "alive_after_the_load": [p for p in pids if alive(p)]}))
"""


@pytest.mark.parametrize("order", ["plugin-first", "mcp-first"])
def test_a_failed_load_ends_the_servers_it_started(tmp_path: Path, order: str) -> None:
    pid_file = tmp_path / "pids.txt"
    config = {"mcpServers": {"w": witness_stdio(WITNESS_PID_FILE=str(pid_file))}}
    places = (tmp_path, pid_file)
    done = subprocess.run(
        [sys.executable, "-c", FAILING_LOAD, json.dumps(config), order, *map(str, places)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "default", "PYTHONDEVMODE": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert "refused: two tools in one toolset are named 'client_info'" in done.stdout
    report = json.loads(done.stdout.splitlines()[-1])
    assert len(report["servers"]) == 1
    # Ended by the failed load itself, not at the interpreter's exit.
    assert report["alive_after_the_load"] == []
    for warning in ("Task was destroyed", "never awaited", "Exception ignored"):
        assert warning not in done.stderr, done.stderr


DROPPED_TOOLS = r"""
import gc, json, sys
import toolplug_mcp
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from

config, workspace = sys.argv[1:]
tools = registry_from(toolplug_mcp).resolve(
    Tool("mcp", {"config": json.loads(config)}), ToolContext(workspace=workspace)
)
print(tools[0].call({}).text if tools[0].name == "client_info" else "listed")
del tools
gc.collect()
"""


def test_tools_dropped_without_closing_end_their_servers_at_exit(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids.txt"
    config = {"mcpServers": {"w": witness_stdio(WITNESS_PID_FILE=str(pid_file))}}
    done = subprocess.run(
        [sys.executable, "-c", DROPPED_TOOLS, json.dumps(config), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "default", "PYTHONDEVMODE": "1"},
    )
    assert done.returncode == 0, done.stderr
    (pid,) = map(int, pid_file.read_text().split())
    assert not is_alive(pid)
    for warning in ("Task was destroyed", "never awaited", "Exception ignored"):
        assert warning not in done.stderr, done.stderr


# -- names --------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["dotted-first", "plain-first"])
def test_a_rewritten_name_never_takes_another_tools_name(tmp_path: Path, order: str) -> None:
    config = {"mcpServers": {"w": witness_stdio(TOOL_ORDER=order)}}
    with load(config, tmp_path) as toolset:
        assert toolset.call("files_read", {"path": "p"}).text == "plain p"
        dotted = [n for n in toolset if n.startswith("files_read_")]
        assert dotted == ["files_read_601e4eb6"]  # the same in either order
        assert toolset.call(dotted[0], {"path": "p"}).text == "dotted p"
        assert toolset[dotted[0]].meta["toolplug/mcp"] == {"server": "w", "tool": "files.read"}


def test_exported_names_do_not_depend_on_the_listing_order() -> None:
    names = ["a.b", "a_b", "a b", "c.d", "e", "x" * 70, "x" * 70 + ".y"]
    first = dict(zip(names, exported_names(names, set())))
    assert first["a_b"] == "a_b" and first["e"] == "e"
    assert first["c.d"] == "c_d"  # rewritten, and nothing else wants c_d
    assert first["a.b"] != first["a b"] and first["a.b"].startswith("a_b_")
    assert len(set(first.values())) == len(names)
    for order in itertools.permutations(names):
        assert dict(zip(order, exported_names(list(order), set()))) == first


def test_a_taken_name_is_never_given() -> None:
    taken = {"list_resources", "a_b"}
    given = exported_names(["list_resources", "a.b", "q"], taken)
    assert given[0].startswith("list_resources_") and given[1].startswith("a_b_")
    assert given[2] == "q" and set(given) <= taken


def test_a_prefix_can_be_forced_on_a_single_server(tmp_path: Path) -> None:
    config = {"mcpServers": {"w": {**witness_stdio(), "prefix": True}}}
    with load(config, tmp_path, client_info=client_info) as toolset:  # no clash
        assert {"w__client_info", "w__files_read", "w__pid"} <= set(toolset)
        assert toolset.call("client_info", {}).text == "the plugin's"
        assert toolset.call("w__client_info", {}).structured_content()["name"] == "toolplug-mcp"


def test_without_a_prefix_one_clash_fails_the_load(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as raised:
        load({"mcpServers": {"w": witness_stdio()}}, tmp_path, client_info=client_info)
    assert str(raised.value) == (
        "two tools in one toolset are named 'client_info' (tool 'client_info' of MCP server 'w')"
    )


def test_a_prefix_of_its_own_or_none_among_several_servers(tmp_path: Path) -> None:
    config = {
        "mcpServers": {
            "witness": {**witness_stdio(), "prefix": "wit"},
            "demo": {**demo_stdio(), "prefix": False},
        }
    }
    with load(config, tmp_path) as toolset:
        assert {"wit__client_info", "wit__pid", "echo", "pid"} <= set(toolset)
        assert toolset.call("echo", {"text": "plain"}).text == "plain"
        assert toolset.call("wit__pid", {}).text != toolset.call("pid", {}).text


@pytest.mark.parametrize("bad", ["", 3, ["a"]])
def test_a_bad_prefix_is_refused_with_the_choices(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ToolParamsError, match=r"'prefix' must be true .*, false .* or a non-empty"):
        load({"mcpServers": {"w": {**witness_stdio(), "prefix": bad}}}, tmp_path)


# -- a server that stopped between calls --------------------------------------------------


def test_a_server_that_died_between_calls_is_started_before_the_next(tmp_path: Path) -> None:
    with load({"mcpServers": {"demo": demo_stdio()}}, tmp_path) as toolset:
        first = int(toolset.call("pid", {}).structured_content()["result"])
        os.kill(first, signal.SIGKILL)
        connection = toolset["echo"].executor.connection
        wait_until(lambda: not connection.running, interval=0.02, what="the client to see it go")
        again = toolset.call("echo", {"text": "still here"})
        assert not again.is_error, again.text
        assert again.content[-1].text == "still here"
        assert "MCP server 'demo' had stopped since an earlier call" in again.text
        assert "started again for this one" in again.text
        second = int(toolset.call("pid", {}).structured_content()["result"])
        assert second != first and is_alive(second)
        quiet = toolset.call("echo", {"text": "no note now"})
        assert quiet.text == "no note now"


def serve_http(tmp_path: Path, port: int = 0) -> tuple[subprocess.Popen[bytes], str]:
    """``toolplug mcp serve`` over HTTP on 127.0.0.1 with the test's counter tool: on
    the port it binds, or again on ``port``; its process and URL."""
    stderr = tmp_path / f"serve-{port}.txt"
    return start_serve(["--plugins", "counter"], serve_env(tmp_path), stderr, port=port)


def test_a_remote_server_that_restarted_between_calls_gets_a_new_session(
    tmp_path: Path,
) -> None:
    # The restarted server answers the old session id with 404: the call never ran
    # there, so the client starts a new session and makes it (the spec's way).
    server, url = serve_http(tmp_path)
    try:
        remote = {"url": url}
        with load({"mcpServers": {"remote": remote}}, tmp_path) as toolset:
            assert counted(toolset.call("counter", {"step": 2})) == 2
            assert counted(toolset.call("counter", {"step": 1})) == 3
            stop(server)
            server, _ = serve_http(tmp_path, port=int(url.rsplit(":", 1)[1].split("/")[0]))
            again = toolset.call("counter", {"step": 1})
            assert not again.is_error, again.text
            assert "MCP server 'remote' had ended the session" in again.text
            assert counted(again) == 1  # a new session: the old count is gone
            quiet = toolset.call("counter", {"step": 1})
            assert counted(quiet) == 2 and "had ended" not in quiet.text
            stop(server)
            gone = toolset.call("counter", {"step": 1})
            assert gone.is_error and "remote" in gone.text
    finally:
        stop(server)


def counted(observation: Any) -> int:
    """The counter's total in a call's result."""
    return int(observation.structured_content()["value"])


# -- a server that fails to start ---------------------------------------------------------


def test_a_start_failure_quotes_the_servers_last_lines_on_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config = {"mcpServers": {"w": witness_stdio("--fail-after-stderr")}}
    with pytest.raises(ToolError) as raised:
        load(config, tmp_path)
    message = str(raised.value)
    assert "- w: the connection closed before the server finished starting" in message
    assert "the last lines it wrote on stderr:" in message
    assert message.endswith("  witness: cannot open the database: permission denied")
    assert "step 30" in message and "step 21" not in message  # the last ten lines
    # ...and everything it wrote still reached the host's stderr, as before.
    assert "witness: starting, step 1\n" in capfd.readouterr().err


def test_mcp_list_shows_the_stderr_of_a_server_that_failed(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"w": witness_stdio("--fail-after-stderr")}}))
    done = subprocess.run(
        [TOOLPLUG, "mcp", "list", "--mcp-config", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    (server,) = json.loads(done.stdout)["servers"]
    assert server["status"] == "failed"
    assert server["error"].endswith("witness: cannot open the database: permission denied")


# -- timeouts -----------------------------------------------------------------------------


def test_a_small_timeout_is_read_as_milliseconds_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    raw = {"mcpServers": {"quick": {"command": "x", "timeout": 30}, "ok": {"command": "x"}}}
    with caplog.at_level("WARNING", logger="toolplug.mcp"):
        quick, ok = parse_servers(raw, env={}, workspace=tmp_path)
        parse_servers(
            {"mcpServers": {"a": {"command": "x", "timeout": 100}}}, env={}, workspace=tmp_path
        )
    assert quick.timeout == 0.03 and ok.timeout == 60.0
    (record,) = caplog.records
    assert record.getMessage() == (
        "MCP server 'quick': 'timeout' 30 is read as milliseconds (0.03 s), as the format "
        "has it; write 30000 for 30 seconds"
    )


def test_auth_is_a_bearer_token_or_oauth(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/mcp"
    (server,) = parse_servers(
        {"mcpServers": {"r": {"url": url, "auth": "${TOKEN}"}}},
        env={"TOKEN": "t0"},
        workspace=tmp_path,
    )
    assert server.headers == {"Authorization": "Bearer t0"}
    (signed,) = parse_servers(
        {"mcpServers": {"r": {"url": url, "auth": "oauth"}}}, env={}, workspace=tmp_path
    )
    assert signed.oauth is not None and signed.headers == {}  # test_client_oauth.py
    with pytest.raises(ToolParamsError, match="'auth' must be a bearer token"):
        load({"mcpServers": {"r": {"url": url, "auth": {"type": "bearer"}}}}, tmp_path)


# -- toolplug call ------------------------------------------------------------------------


def run(*args: str, config: dict[str, object], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    env = {**os.environ, "TOOLPLUG_MCP_CONFIG": str(path)}
    env.pop("TOOLPLUG_PLUGINS", None)
    return subprocess.run(
        [TOOLPLUG, *args], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path
    )


def test_toolplug_call_takes_the_name_toolplug_tools_shows(tmp_path: Path) -> None:
    config = {"mcpServers": {"one": demo_stdio(), "two": demo_stdio()}}
    listed = run("tools", "--plugins", "mcp", "--json", config=config, tmp_path=tmp_path)
    assert listed.returncode == 0, listed.stderr
    names = {tool["name"] for tool in json.loads(listed.stdout)}
    assert {"one__echo", "two__files_read"} <= names
    done = run("call", "one__echo", '{"text": "as shown"}', config=config, tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "as shown"
    dotted = run("call", "two__files_read", '{"path": "x"}', config=config, tmp_path=tmp_path)
    assert dotted.stdout.strip() == "read x"
    old_way = run("call", "mcp/one__echo", '{"text": "still"}', config=config, tmp_path=tmp_path)
    assert old_way.stdout.strip() == "still"


def test_toolplug_call_of_an_unknown_name_still_says_how(tmp_path: Path) -> None:
    config = {"mcpServers": {"demo": demo_stdio()}}
    done = run("call", "--plugins", "mcp", "ech", "{}", config=config, tmp_path=tmp_path)
    assert done.returncode == 2
    assert "There is no tool named 'ech'" in done.stderr
    assert "called as FACTORY/TOOL" in done.stderr
