"""Servers' prompts: listed and got from Python (over a toolset's connections, or
servers started for them) and with ``toolplug mcp prompts``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import toolplug_mcp
from conftest import TOOLPLUG, children_of
from test_client_handlers import interactive
from toolplug import Tool, ToolContext, Toolset
from toolplug.testing import registry_from
from toolplug_mcp.client.prompts import Prompt, PromptArgument, PromptError, PromptMessages

GREET = Prompt(
    server="i",
    name="greet",
    description="Greet someone by name.",
    arguments=(PromptArgument("name", "Who to greet.", required=True),),
)


def load(tmp_path: Path, servers: dict[str, Any] | None = None) -> Toolset:
    config = {"mcpServers": servers or {"i": interactive()}}
    return Toolset.load(
        [Tool("mcp", {"config": config})],
        registry=registry_from(toolplug_mcp),
        context=ToolContext(workspace=tmp_path),
    )


def test_a_toolsets_servers_prompts_over_its_connections(tmp_path: Path) -> None:
    with load(tmp_path) as toolset:
        servers = children_of(os.getpid())
        found = toolplug_mcp.prompts(toolset)
        listed = found.list_prompts()
        got = found.get_prompt("greet", {"name": "Ada"})
        assert children_of(os.getpid()) == servers  # no server started for them
    assert listed[0] == GREET
    assert listed[1].name == "review" and listed[1].title == "Code review"
    assert listed[1].arguments[1] == PromptArgument(
        "language", "Its language (default python).", required=False
    )
    assert got == PromptMessages(
        server="i",
        name="greet",
        description="Greet someone by name.",
        messages=[{"role": "user", "content": {"type": "text", "text": "Say hello to Ada."}}],
    )
    assert got.text() == "[user]\nSay hello to Ada."


def test_async_and_values_that_are_not_strings(tmp_path: Path) -> None:
    async def host() -> PromptMessages:
        async with load(tmp_path) as toolset:
            return await toolplug_mcp.prompts(toolset).aget_prompt(
                "review", {"code": [1, 2], "language": "json"}
            )

    got = asyncio.run(host())
    assert got.messages[0]["content"]["text"] == "Review this json code:\n[1, 2]"
    assert [m["role"] for m in got.messages] == ["user", "assistant"]


def test_what_cannot_be_got_says_what_exists(tmp_path: Path) -> None:
    with load(tmp_path, {"i": interactive(), "j": interactive()}) as toolset:
        found = toolplug_mcp.prompts(toolset)
        with pytest.raises(PromptError, match="several MCP servers have a prompt 'greet'"):
            found.get_prompt("greet", {"name": "Ada"})
        assert found.get_prompt("greet", {"name": "Ada"}, server="j").server == "j"
        with pytest.raises(PromptError, match="MCP server 'i' has no prompt 'nope'; its "):
            found.get_prompt("nope", server="i")
        with pytest.raises(PromptError, match=r"needs: name \(Who to greet\.\)"):
            found.get_prompt("greet", server="i")
        with pytest.raises(PromptError, match="no MCP server 'k' here; the servers: i, j"):
            found.list_prompts("k")
        assert [p.server for p in found.list_prompts("j")] == ["j", "j"]


def test_open_prompts_starts_the_servers_and_ends_them(tmp_path: Path) -> None:
    before = children_of(os.getpid())
    config = {"mcpServers": {"i": interactive()}}
    with toolplug_mcp.open_prompts(config, workspace=tmp_path) as found:
        assert children_of(os.getpid()) - before  # the server runs
        assert [p.name for p in found.list_prompts()] == ["greet", "review"]
    assert children_of(os.getpid()) - before == set()


# -- toolplug mcp prompts ------------------------------------------------------------------


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"i": interactive()}}))
    return subprocess.run(
        [TOOLPLUG, "mcp", "prompts", *args, "--mcp-config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TOOLPLUG_PLUGINS": "mcp"},
    )


def test_the_command_lists_the_prompts(tmp_path: Path) -> None:
    done = run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == [
        "i                    greet",
        "                     Greet someone by name.",
        "                       --arg name=... (required): Who to greet.",
    ]
    listed = json.loads(run(tmp_path, "i", "--json").stdout)
    assert [p["name"] for p in listed["prompts"]] == ["greet", "review"]


def test_the_command_gets_a_prompt(tmp_path: Path) -> None:
    done = run(tmp_path, "i", "review", "--arg", "code=x = 1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "[user]\nReview this python code:\nx = 1\n\n[assistant]\nI will look at it line by line.\n"
    )
    got = json.loads(run(tmp_path, "i", "greet", "--arg", "name=Ada", "--json").stdout)
    assert got["messages"][0]["content"]["text"] == "Say hello to Ada."


def test_the_command_says_what_is_wrong(tmp_path: Path) -> None:
    missing = run(tmp_path, "i", "greet")
    assert missing.returncode == 1
    assert "Error: prompt 'greet' of MCP server 'i' needs: name (Who to greet.)" in missing.stderr
    bad = run(tmp_path, "i", "greet", "--arg", "name")
    assert bad.returncode == 2 and "'name' is not KEY=VALUE" in bad.stderr
