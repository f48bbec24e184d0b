"""`toolplug mcp list` and the mapping shown by `toolplug tools`, as real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import demo_stdio
from test_serve import TOOLPLUG


def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None):
    return subprocess.run(
        [TOOLPLUG, *args], capture_output=True, text=True, timeout=120, env=env, cwd=cwd
    )


def test_mcp_list_shows_status_tools_and_exported_names(tmp_path: Path) -> None:
    config = {
        "mcpServers": {
            "demo": demo_stdio(),
            "off": {**demo_stdio(), "disabled": True},
            "broken": {"command": "/nonexistent/server"},
        }
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    done = run("mcp", "list", "--mcp-config", str(path), "--json")
    assert done.returncode == 1, done.stderr  # a server failed
    report = {s["name"]: s for s in json.loads(done.stdout)["servers"]}
    assert report["demo"]["status"] == "connected"
    exported = {t["name"]: t["exported_as"] for t in report["demo"]["tools"]}
    assert exported["files.read"] == "demo__files_read"
    assert report["off"]["status"] == "disabled"
    assert report["broken"]["status"] == "failed" and report["broken"]["error"]
    text = run("mcp", "list", "--mcp-config", str(path))
    assert "demo__files_read  <- files.read" in text.stdout


def test_no_configuration_is_said_plainly(tmp_path: Path) -> None:
    env = {"PATH": str(Path(sys.executable).parent), "HOME": str(tmp_path)}
    done = run("mcp", "list", env=env, cwd=tmp_path)
    assert done.returncode == 0
    assert "No MCP configuration" in done.stdout


def test_tools_lists_mcp_tools_with_their_origin(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"demo": demo_stdio()}}))
    env = {"PATH": str(Path(sys.executable).parent), "TOOLPLUG_MCP_CONFIG": str(path)}
    done = run("tools", "--plugins", "mcp", "--json", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    tools = {t["name"]: t for t in json.loads(done.stdout)}
    assert tools["files_read"]["_meta"]["toolplug/mcp"] == {"server": "demo", "tool": "files.read"}
