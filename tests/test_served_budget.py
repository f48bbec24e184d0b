"""`toolplug mcp serve --output-budget`: a served result over the budget is cut, and the
file its marker names is in the workspace, where the served file editor reads it back."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TOOLPLUG = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"
# Within file_editor's own bound for a view (16,000 characters), over the budget given.
LINES = "".join(f"line {i:05d} {'x' * 40}\n" for i in range(250))  # ~13k characters


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if hasattr(block, "text"))


async def view(workspace: Path, *serve_args: str, calls: list[dict[str, Any]]) -> list[Any]:
    """Serve file_editor over stdio with ``serve_args``; make each call in one session."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = StdioServerParameters(
        command=TOOLPLUG,
        args=[
            "mcp",
            "serve",
            "--plugins",
            "file_editor",
            "--workspace",
            str(workspace),
            *serve_args,
        ],
        env=dict(os.environ),
    )
    with (workspace.parent / "serve-stderr.txt").open("w") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [await session.call_tool("file_editor", call) for call in calls]


async def test_a_cut_result_names_a_file_the_served_editor_can_read(tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "big.txt").write_text(LINES)

    first, *_ = await view(
        workspace,
        "--output-budget",
        "2000",
        "--output-folder",
        ".toolplug/output",
        calls=[{"command": "view", "path": "big.txt"}],
    )
    text = text_of(first)
    assert not first.is_error, text
    assert "cut here by the output budget (2,000)" in text and len(text) <= 2_010
    found = re.search(r"The full output is in (\S+) \(read or grep it", text)
    assert found, text
    spilled = Path(found.group(1))
    # In the workspace's folder, kept while the session lived, gone with it.
    assert spilled.parent == workspace / ".toolplug" / "output"
    assert not spilled.exists()


async def test_the_served_editor_reads_the_rest_in_the_same_session(tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "big.txt").write_text(LINES)
    budget = ["--output-budget", "2000", "--output-folder", ".toolplug/output"]

    first, listing = await view(
        workspace,
        *budget,
        calls=[
            {"command": "view", "path": "big.txt"},
            {"command": "view", "path": ".toolplug/output"},
        ],
    )
    # The spill folder is an ordinary folder of the workspace: the editor lists it, so
    # the model can read the whole output with the tools it has (view_range, grep).
    name = re.search(r"The full output is in \S+/(\S+) \(read", text_of(first))
    assert name, text_of(first)
    assert name.group(1) in text_of(listing), text_of(listing)


async def test_off_serves_the_whole_result(tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "big.txt").write_text(LINES)

    (whole,) = await view(
        workspace, "--output-budget", "off", calls=[{"command": "view", "path": "big.txt"}]
    )
    text = text_of(whole)
    assert "output budget" not in text
    assert "line 00249" in text and "line 00125" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--output-budget", "0"], "neither a positive number of characters nor 'off'"),
        (["--output-budget", "lots"], "neither a positive number of characters nor 'off'"),
        (
            ["--output-budget", "off", "--output-folder", "out"],
            "--output-folder is for a budget",
        ),
    ],
)
def test_a_bad_output_budget_is_a_usage_error(args: list[str], message: str) -> None:
    result = subprocess.run(
        [TOOLPLUG, "mcp", "serve", "--plugins", "file_editor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
