"""The client side: MCP servers' tools as toolplug tools, driven against real servers."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import toolplug_mcp
from conftest import COUNTER_PLUGIN, demo_stdio, is_alive
from toolplug import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    Observation,
    ResourceLink,
    TextContent,
    Tool,
    ToolContext,
    ToolError,
    ToolParamsError,
    Toolset,
)
from toolplug.formats import export_tool
from toolplug.testing import registry_from, validate_observation_exports


def load(config: object, tmp_path: Path, **params: object) -> Toolset:
    registry = registry_from(toolplug_mcp)
    spec = Tool("mcp", {"config": config, **params})
    return Toolset.load([spec], registry=registry, context=ToolContext(workspace=tmp_path))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    """One demo server shared by the tests that do not change it (starting one costs ~1 s)."""
    config = {"mcpServers": {"demo": demo_stdio()}}
    with load(config, tmp_path_factory.mktemp("ws")) as toolset:
        pid = server_pid(toolset)
        yield toolset
    assert not is_alive(pid)


@pytest.fixture
def own_demo(demo_config: dict[str, object], tmp_path: Path):
    """A demo server for one test (for tests that kill or slow it)."""
    with load(demo_config, tmp_path) as toolset:
        yield toolset


def server_pid(toolset: Toolset) -> int:
    observation = toolset.call("pid", {})
    assert not observation.is_error, observation.text
    return int(observation.structured_content()["result"])


def test_no_configuration_anywhere_gives_no_tools(tmp_path: Path) -> None:
    registry = registry_from(toolplug_mcp)
    context = ToolContext(workspace=tmp_path, env={"PATH": "/usr/bin"})
    assert registry.resolve("mcp", context) == []


def test_every_server_tool_becomes_a_tool(demo: Toolset) -> None:
    assert {"echo", "add", "shapes", "media", "fail", "slow", "die", "files_read"} <= set(demo)
    observation = demo.call("echo", {"text": "hello"})
    assert not observation.is_error
    assert observation.text == "hello"
    validate_observation_exports(observation)


def test_exported_schema_keeps_bounds_defaults_and_format(demo: Toolset) -> None:
    add = export_tool(demo["add"], "mcp")["inputSchema"]
    assert add["properties"]["a"]["minimum"] == 0
    assert add["properties"]["a"]["maximum"] == 1000
    assert add["properties"]["a"]["description"] == "first"
    assert add["properties"]["b"]["default"] == 2
    assert add["required"] == ["a"]
    shapes = export_tool(demo["shapes"], "anthropic")["input_schema"]
    assert shapes["properties"]["when"]["format"] == "date"
    assert shapes["properties"]["mode"]["enum"] == ["sum", "max"]
    point = shapes["properties"]["points"]["items"]
    assert point["properties"]["y"]["default"] == 0
    assert "$schema" not in shapes


def test_exports_validate_in_every_format(demo: Toolset) -> None:
    from toolplug.testing import validate_tool_exports

    for name in ("echo", "add", "shapes", "files_read"):
        validate_tool_exports(demo[name])


def test_annotations_title_and_output_schema_carry_over(demo: Toolset) -> None:
    exported = export_tool(demo["add"], "mcp")
    assert exported["annotations"]["readOnlyHint"] is True
    assert exported["title"] == "Add numbers"
    assert exported["outputSchema"]["properties"]["total"]["type"] == "integer"
    assert exported["_meta"]["toolplug/mcp"] == {"server": "demo", "tool": "add"}


def test_arguments_are_validated_before_the_call(demo: Toolset) -> None:
    observation = demo.call("add", {"a": 5000})
    assert observation.is_error
    assert "a: 5000 is greater than the maximum of 1000" in observation.text
    assert "b (integer, optional, default 2)" in observation.text
    missing = demo.call("add", {})
    assert missing.is_error and "'a' is a required property" in missing.text


def test_unambiguous_mistakes_are_repaired_and_reported(demo: Toolset) -> None:
    observation = demo.call("add", '{"a": 3, "b": null}')
    assert not observation.is_error, observation.text
    assert observation.structured_content() == {"total": 5}
    assert "'b' was null" in observation.text
    nested = demo.call("shapes", {"points": '[{"x": 1, "y": 2}, {"x": 4}]', "mode": "max"})
    assert not nested.is_error, nested.text
    assert nested.structured_content()["value"] == 4


def test_every_content_kind_and_structured_content_arrive(demo: Toolset) -> None:
    observation = demo.call("media", {})
    kinds = [type(b) for b in observation.content]
    assert kinds == [
        TextContent,
        ImageContent,
        AudioContent,
        ResourceLink,
        EmbeddedResource,
        EmbeddedResource,
    ]
    assert observation.content[1].mimeType == "image/png"
    assert observation.content[3].uri == "file:///tmp/a.txt"
    assert observation.content[4].resource.text == "embedded text"
    assert observation.structured_content() == {"kinds": 6}
    validate_observation_exports(observation)


def test_server_errors_become_error_observations(demo: Toolset) -> None:
    observation = demo.call("fail", {"reason": "because"})
    assert observation.is_error
    assert "failed on purpose: because" in observation.text


def test_dotted_names_are_mapped_and_called_by_their_server_name(demo: Toolset) -> None:
    observation = demo.call("files_read", {"path": "x.txt"})
    assert observation.text == "read x.txt"
    assert export_tool(demo["files_read"], "mcp")["_meta"]["toolplug/mcp"]["tool"] == "files.read"


def test_several_servers_are_prefixed_and_never_collide(tmp_path: Path) -> None:
    config = {"mcpServers": {"one": demo_stdio(), "two": demo_stdio()}}
    with load(config, tmp_path) as toolset:
        assert "one__echo" in toolset and "two__echo" in toolset
        assert toolset.call("two__files_read", {"path": "p"}).text == "read p"
        assert server_pid_of(toolset, "one") != server_pid_of(toolset, "two")


def server_pid_of(toolset: Toolset, server: str) -> int:
    return int(toolset.call(f"{server}__pid", {}).structured_content()["result"])


def test_a_server_killed_mid_call_gives_an_error_then_reconnects(own_demo: Toolset) -> None:
    demo = own_demo
    first = server_pid(demo)
    died = demo.call("die", {})
    assert died.is_error
    assert "stopped while running tool 'die'" in died.text
    assert "restarted on the next call" in died.text
    again = demo.call("echo", {"text": "back"})
    assert again.text == "back"
    assert server_pid(demo) != first
    assert not is_alive(first)


def test_each_call_has_the_servers_timeout(tmp_path: Path) -> None:
    config = {"mcpServers": {"demo": demo_stdio(timeout=500)}}  # milliseconds
    with load(config, tmp_path) as toolset:
        observation = toolset.call("slow", {"seconds": 5})
        assert observation.is_error
        assert "did not answer tool 'slow' within 0.5 seconds" in observation.text
        assert toolset.call("echo", {"text": "still here"}).text == "still here"


def test_closing_ends_every_server_process(tmp_path: Path) -> None:
    config = {"mcpServers": {"a": demo_stdio(), "b": demo_stdio()}}
    toolset = load(config, tmp_path)
    pids = [server_pid_of(toolset, "a"), server_pid_of(toolset, "b")]
    assert all(is_alive(pid) for pid in pids)
    toolset.close()
    assert not any(is_alive(pid) for pid in pids)


def test_disabled_and_failing_servers_are_reported(tmp_path: Path, caplog) -> None:
    config = {
        "mcpServers": {
            "demo": demo_stdio(),
            "off": {**demo_stdio(), "disabled": True},
            "broken": {"command": "/nonexistent/server"},
        }
    }
    with caplog.at_level("WARNING", logger="toolplug.mcp"), load(config, tmp_path) as toolset:
        assert "demo__echo" in toolset
        assert not any(name.startswith(("off__", "broken__")) for name in toolset)
    assert "MCP server 'broken' is not available" in caplog.text


def test_only_failing_servers_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"no MCP server .* could be started:\n- broken: "):
        load({"mcpServers": {"broken": {"command": "/nonexistent/server"}}}, tmp_path)


def test_bad_configuration_is_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(ToolParamsError, match="give a 'command'"):
        load({"mcpServers": {"x": {"args": []}}}, tmp_path)
    with pytest.raises(ToolParamsError, match="'args' must be a list of strings"):
        load({"mcpServers": {"x": {"command": "x", "args": "-v"}}}, tmp_path)
    with pytest.raises(ToolParamsError, match="needs an 'mcpServers' object"):
        load({"servers_typo": {}}, tmp_path)
    with pytest.raises(ToolParamsError, match="does not take the param"):
        load({"mcpServers": {}}, tmp_path, retries=3)


def test_configuration_from_env_var_file_and_workspace(tmp_path: Path) -> None:
    registry = registry_from(toolplug_mcp)
    config = {"mcpServers": {"demo": demo_stdio()}}
    named = tmp_path / "elsewhere.json"
    named.write_text(json.dumps(config))
    context = ToolContext(workspace=tmp_path, env={"TOOLPLUG_MCP_CONFIG": str(named)})
    with Toolset.load(["mcp"], registry=registry, context=context) as toolset:
        assert "echo" in toolset
    (tmp_path / ".toolplug").mkdir()
    (tmp_path / ".toolplug" / "mcp.json").write_text(json.dumps(config))
    with Toolset.load(
        ["mcp"], registry=registry, context=ToolContext(workspace=tmp_path, env={})
    ) as t:
        assert t.call("echo", {"text": "from the workspace"}).text == "from the workspace"


def test_stdio_child_gets_a_clean_environment_plus_its_own(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "SECRET": "s3cret", "NAME": "world"}
    config = {"mcpServers": {"demo": demo_stdio(env={"GREETING": "hello ${NAME}"})}}
    registry = registry_from(toolplug_mcp)
    context = ToolContext(workspace=tmp_path, env=env)
    with Toolset.load([Tool("mcp", {"config": config})], registry=registry, context=context) as t:
        assert t.call("env", {"name": "GREETING"}).text == "hello world"
        assert t.call("env", {"name": "SECRET"}).text == "<unset>"


def test_http_server(http_demo: str, tmp_path: Path) -> None:
    config = {"mcpServers": {"remote": {"url": http_demo, "headers": {"X-Test": "1"}}}}
    with load(config, tmp_path) as toolset:
        assert toolset.call("echo", {"text": "over http"}).text == "over http"
        assert toolset.call("add", {"a": 1, "b": 1}).structured_content() == {"total": 2}


def test_a_server_nobody_here_wrote(tmp_path: Path) -> None:
    config = {
        "mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
    }
    with load(config, tmp_path) as toolset:
        assert {"get_current_time", "convert_time"} <= set(toolset)
        now = toolset.call("get_current_time", {"timezone": "Europe/Paris"})
        assert not now.is_error, now.text
        assert "Europe/Paris" in now.text
        bad = toolset.call("get_current_time", {"timezone": "Not/AZone"})
        assert bad.is_error  # an SDK server answers with a protocol error
        assert "Not/AZone" in bad.text


def test_concurrent_calls_from_threads_share_one_connection(demo: Toolset) -> None:
    pid = server_pid(demo)
    results: dict[int, str] = {}

    def worker(start: int) -> None:
        for i in range(start, 40, 8):
            results[i] = demo.call("echo", {"text": f"n{i}"}).text

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results == {i: f"n{i}" for i in range(40)}
    assert server_pid(demo) == pid


async def test_acall_from_the_hosts_own_event_loop(demo: Toolset) -> None:
    observations = await asyncio.gather(*(demo.acall("echo", {"text": str(i)}) for i in range(10)))
    assert [o.text for o in observations] == [str(i) for i in range(10)]


# -- start-up: nothing of MCP is imported when no server is configured ------------------

#: Load every installed tool (as docs/agent-loops.md does) with no MCP configuration;
#: print which of the libraries named in its arguments were then imported.
NO_CONFIG_LOAD = """
import json, sys
from toolplug import Toolset
with Toolset.load(workspace=".") as toolset:
    names = list(toolset)
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1:]))
print(json.dumps({"heavy": heavy, "tools": names}))
"""
HEAVY = ("mcp", "mcp_types", "fastmcp", "jsonschema")


def _run_unconfigured(
    args: list[str], cwd: Path, pythonpath: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Python with ``args`` in ``cwd``, with every installed plugin and no MCP settings
    from the environment (``pythonpath`` first on the path, if given)."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("TOOLPLUG_MCP_CONFIG", "TOOLPLUG_PLUGINS")
    }
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join([pythonpath, env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


def test_with_no_mcp_config_loading_every_tool_imports_no_mcp(tmp_path: Path) -> None:
    # The counter test plugin gives the load a tool of its own even where toolplug-mcp is
    # the only plugin installed (as in its own tox env); alone, since the other test
    # plugins import the MCP server on purpose.
    plugin = tmp_path / "counter_only"
    info = plugin / "counter_only-0.0.0.dist-info"
    info.mkdir(parents=True)
    shutil.copy(COUNTER_PLUGIN / "counter_plugin.py", plugin)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: counter-only\nVersion: 0.0.0\n")
    (info / "entry_points.txt").write_text("[toolplug]\ncounter = counter_plugin\n")
    done = _run_unconfigured(["-c", NO_CONFIG_LOAD, *HEAVY], tmp_path, str(plugin))
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["tools"]  # the other plugins' tools were loaded
    assert seen["heavy"] == []


def test_with_no_mcp_config_listing_tools_imports_no_mcp(tmp_path: Path) -> None:
    done = _run_unconfigured(["-X", "importtime", "-m", "toolplug", "tools"], tmp_path)
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "toolplug_mcp.client.config" in imported  # the factory looked for a config
    assert not imported & set(HEAVY)


def test_with_no_mcp_config_the_config_models_are_not_built(tmp_path: Path) -> None:
    # Looking for a configuration reads no file and builds no pydantic model.
    done = _run_unconfigured(["-X", "importtime", "-m", "toolplug", "tools"], tmp_path)
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "toolplug_mcp.client.config" in imported
    assert "toolplug_mcp.client.config_model" not in imported


def test_with_an_mcp_config_the_client_is_imported(tmp_path: Path) -> None:
    # The counterpart: a workspace config is found, and its server's tools listed.
    config = tmp_path / ".toolplug" / "mcp.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"demo": demo_stdio()}}))
    done = _run_unconfigured(["-c", NO_CONFIG_LOAD, *HEAVY], tmp_path)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert "mcp" in seen["heavy"] and "echo" in seen["tools"]


@pytest.mark.parametrize("is_error", [False, True])
def test_checking_an_mcp_result_raises_no_deprecation_warning(is_error: bool) -> None:
    import warnings

    import fastmcp  # noqa: F401 - fastmcp makes the SDK warn when isError is read

    observation = Observation(content=[TextContent(text="done")], is_error=is_error)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the SDK's warning about reading isError
        validate_observation_exports(observation)
