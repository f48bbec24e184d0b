"""The installed distribution, seen through the ``toolplug`` command line and MCP."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from conftest import make_tree
from toolplug.testing import run_toolplug

TREE = {"src/app.py": "def main():\n    pass\n", "notes.md": "call main() first\n"}


def test_toolplug_plugins_lists_grep_with_its_version() -> None:
    done = run_toolplug("plugins", "--json")

    assert done.returncode == 0, done.stderr
    grep = next(p for p in json.loads(done.stdout) if p["name"] == "grep")
    assert grep["distribution"] == "toolplug-grep"
    assert grep["version"] == "0.1.0"
    assert grep["enabled"] is True


def test_grep_is_listed_and_enabled_by_name() -> None:
    listed = run_toolplug("tools", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "grep" in [tool["name"] for tool in json.loads(listed.stdout)]

    alone = run_toolplug("tools", "--json", plugins="grep")
    assert alone.returncode == 0, alone.stderr
    [tool] = json.loads(alone.stdout)
    assert tool["name"] == "grep"


def test_toolplug_call_grep(tmp_path: Path) -> None:
    make_tree(tmp_path, TREE)
    arguments = '{"pattern": "main", "output_mode": "content"}'
    done = run_toolplug("call", "grep", arguments, plugins="grep", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [
        "notes.md:1:call main() first",
        "src/app.py:1:def main():",
    ]

    typed = run_toolplug(
        "call", "grep", '{"pattern": "main"}', "--json", plugins="grep", cwd=tmp_path
    )
    assert typed.returncode == 0, typed.stderr
    result = json.loads(typed.stdout)
    assert result["isError"] is False
    assert sorted(result["structuredContent"]["files"]) == ["notes.md", "src/app.py"]

    bad = run_toolplug("call", "grep", '{"pattern": "ma(in"}', plugins="grep", cwd=tmp_path)
    assert bad.returncode == 1
    assert "cannot be searched" in bad.stdout


async def test_served_over_mcp_stdio(tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    make_tree(tmp_path, TREE)
    toolplug = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"
    server = StdioServerParameters(
        command=toolplug,
        args=["mcp", "serve", "--plugins", "grep", "--workspace", str(tmp_path)],
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        [tool] = (await session.list_tools()).tools
        result = await session.call_tool(
            "grep", {"pattern": "def", "output_mode": "content", "type": "py"}
        )
    assert tool.name == "grep"
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is True
    assert tool.annotations.idempotent_hint is True
    assert tool.annotations.open_world_hint is False
    assert not result.is_error, result.content
    assert result.structured_content is not None
    assert result.structured_content["lines"] == [
        {"file": "src/app.py", "line": 1, "text": "def main():", "is_match": True}
    ]
