"""``toolplug mcp serve --preset NAME --model MODEL``: a preset's tools over MCP.

Through the official MCP SDK client against a real ``toolplug mcp serve`` process: the
served tools are exactly the row the model's family gets (MCP has no native forms, so
they are the same function tools any client sees), and they run.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import TOOLPLUG, serve_env

CODING = ["bash", "file_editor", "finish", "glob", "grep", "think"]


async def _served(tmp_path: Path, *args: str) -> tuple[list[str], str]:
    """The tools a stdio server lists, and what its apply_patch or file_editor made."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = StdioServerParameters(
        command=TOOLPLUG,
        args=["mcp", "serve", *args, "--workspace", str(tmp_path)],
        env=serve_env(tmp_path),
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = sorted(t.name for t in (await session.list_tools()).tools)
        if "apply_patch" in names:
            patch = "*** Begin Patch\n*** Add File: made.txt\n+by a patch\n*** End Patch\n"
            done = await session.call_tool("apply_patch", {"input": patch})
        else:
            edit = {"command": "create", "path": "made.txt", "file_text": "by an edit\n"}
            done = await session.call_tool("file_editor", edit)
        assert not done.is_error, done.content
    return names, (tmp_path / "made.txt").read_text()


async def test_a_gpt_5_model_is_served_apply_patch(tmp_path: Path) -> None:
    names, made = await _served(tmp_path, "--preset", "coding", "--model", "gpt-5.1")
    assert names == sorted(["apply_patch", *(n for n in CODING if n != "file_editor")])
    assert made == "by a patch\n"


async def test_a_claude_model_and_any_other_are_served_the_file_editor(tmp_path: Path) -> None:
    names, made = await _served(tmp_path, "--preset", "coding", "--model", "claude-sonnet-4-5")
    assert names == CODING
    assert made == "by an edit\n"
    (tmp_path / "made.txt").unlink()
    names, _ = await _served(tmp_path, "--preset", "coding", "--model", "llama-3.3-70b")
    assert names == CODING


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "cooking"], "unknown preset 'cooking'; known presets: coding"),
        (["--model", "gpt-5.1"], "give --preset too"),
        (["--preset", "coding", "--plugins", "bash,glob"], "needs the tool 'file_editor'"),
        (
            ["--preset", "coding", "--model", "gpt-5", "--tool-param", "counter.start=1"],
            "params given for counter, which is not served",
        ),
    ],
)
def test_bad_preset_options_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run(
        [TOOLPLUG, "mcp", "serve", *args],
        env=serve_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
