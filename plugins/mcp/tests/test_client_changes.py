"""A server's ``notifications/tools/list_changed`` is followed into the toolset: new
tools appear, removed ones go, changed ones are replaced, and the host is told."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import toolplug_mcp
from conftest import HERE
from test_client_handlers import interactive
from toolplug import Tool, ToolChange, ToolContext, ToolDefinition, Toolset, hookimpl
from toolplug.testing import registry_from, wait_until
from toolplug_mcp.client.names import META_KEY


def load(tmp_path: Path, servers: dict[str, Any] | None = None, *plugins: Any) -> Toolset:
    """The interactive server's tools (and the given plugins' tools, loaded first)."""
    registry = registry_from(toolplug_mcp, *plugins)
    config = {"mcpServers": servers or {"i": interactive()}}
    specs = [name for name in registry.names() if name != "mcp"]
    return Toolset.load(
        [*specs, Tool("mcp", {"config": config})],
        registry=registry,
        context=ToolContext(workspace=tmp_path),
    )


def test_a_new_tool_appears_and_the_host_is_told(tmp_path: Path) -> None:
    with load(tmp_path) as toolset:
        assert "fresh" not in toolset
        assert toolset.call("grow", {"name": "fresh"}).text == "added fresh"
        wait_until(lambda: "fresh" in toolset, what="the new tool")
        assert toolset.changes() == [ToolChange("added", "fresh")]
        assert toolset.changes() == []
        called = toolset.call("fresh", {"word": "hi"})
        exported = [t["function"]["name"] for t in toolset.to_openai_tools()]
    assert called.text == 'fresh: {"word": "hi"}'
    assert "fresh" in exported


def test_a_removed_tool_goes(tmp_path: Path) -> None:
    with load(tmp_path) as toolset:
        toolset.call("shrink", {"name": "echo"})
        wait_until(lambda: "echo" not in toolset, what="the tool to go")
        assert toolset.changes() == [ToolChange("removed", "echo")]
        called = toolset.call("echo", {"text": "x"})
    assert called.is_error
    assert "There is no tool named 'echo'" in called.text


def test_a_changed_schema_replaces_the_tool(tmp_path: Path) -> None:
    with load(tmp_path) as toolset:
        before = toolset["echo"]
        toolset.call("retype", {"name": "echo", "argument": "loud"})
        wait_until(lambda: toolset["echo"] is not before, what="the changed tool")
        assert toolset.changes() == [ToolChange("changed", "echo")]
        schema = toolset["echo"].input_schema()
        called = toolset.call("echo", {"text": "x", "loud": "yes"})
    assert set(schema["properties"]) == {"text", "loud"}
    assert called.text == 'echo: {"loud": "yes", "text": "x"}'


def test_new_tools_are_named_as_at_load(tmp_path: Path) -> None:
    servers = {"i": interactive(), "j": interactive()}
    with load(tmp_path, servers) as toolset:
        toolset.call("j__grow", {"name": "fresh"})
        wait_until(lambda: "j__fresh" in toolset, what="the new tool")
        assert toolset.changes() == [ToolChange("added", "j__fresh")]
        assert toolset["j__fresh"].meta[META_KEY] == {"server": "j", "tool": "fresh"}


def fresh() -> str:
    """A plugin's tool with the name a server's new tool will want."""
    return "the plugin's"


class Plugin:
    """A plugin with a ``fresh`` tool, and a hook that marks every call it sees."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(ToolDefinition.from_function(fresh), name="fresh")

    @hookimpl(wrapper=True)
    def tool_call(self, tool: Any) -> Any:
        self.seen.append(tool.name)
        return (yield)


def test_a_new_tool_takes_no_name_of_another_and_goes_through_the_same_hooks(
    tmp_path: Path,
) -> None:
    plugin = Plugin()
    with load(tmp_path, None, plugin) as toolset:
        toolset.call("grow", {"name": "fresh"})
        wait_until(lambda: bool(toolset.changes()), what="the new tool")
        [added] = [n for n in toolset if toolset[n].meta.get(META_KEY, {}).get("tool") == "fresh"]
        mine = toolset.call("fresh", {})
        theirs = toolset.call(added, {"word": "w"})
    assert added.startswith("fresh_")  # renamed: the plugin keeps its name
    assert mine.text == "the plugin's"
    assert theirs.text == 'fresh: {"word": "w"}'
    assert plugin.seen == ["grow", "fresh", added]


def test_an_async_host_sees_the_change_too(tmp_path: Path) -> None:
    async def host() -> list[ToolChange]:
        async with load(tmp_path) as toolset:
            await toolset.acall("grow", {"name": "later"})
            for _ in range(2000):  # bounded: the change comes on its own
                if "later" in toolset:
                    break
                await asyncio.sleep(0.01)
            observation = await toolset.acall("later", {"word": "w"})
            assert observation.text == 'later: {"word": "w"}'
            return toolset.changes()

    assert asyncio.run(host()) == [ToolChange("added", "later")]


def test_a_2026_server_is_heard_on_a_listen_stream(tmp_path: Path) -> None:
    modern = {"command": sys.executable, "args": [str(HERE / "servers" / "modern_server.py")]}
    with load(tmp_path, {"m": modern}) as toolset:
        assert toolset.call("grow", {"name": "fresh"}).text.startswith("added fresh")
        wait_until(lambda: "fresh" in toolset, what="the new tool")
        called = toolset.call("fresh", {"word": "hi"})
        assert ToolChange("added", "fresh") in toolset.changes()
    assert called.text == "fresh: hi"
