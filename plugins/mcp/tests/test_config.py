"""A configuration file's problems name the file and the line, as the policy file's do:
read through the real loader, the factory and the ``toolplug mcp list`` command."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import toolplug_mcp
from conftest import TOOLPLUG
from toolplug import Tool, ToolParamsError, Toolset
from toolplug.testing import registry_from
from toolplug_mcp.client.config import ConfigError, load_config

#: A configuration whose ``args`` (line 5) is a string.
BAD_ARGS = """{
  "mcpServers": {
    "time": {
      "command": "mcp-server-time",
      "args": "--local-timezone"
    }
  }
}
"""


def load(config: object, workspace: Path, env: dict[str, str] | None = None) -> object:
    return load_config(config, env=env or {}, workspace=workspace, timeout=60, init_timeout=30)


def test_a_file_names_its_path_and_the_line_of_the_key(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(BAD_ARGS)
    with pytest.raises(ConfigError) as caught:
        load(str(path), tmp_path)
    assert str(caught.value) == (
        f"{path}, line 5: MCP server 'time': 'args' must be a list of strings"
    )


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        # a key the server lacks: the server's own line
        ('{"mcpServers": {\n  "r": {"transport": "http"}}}', 2, "needs an http(s) 'url'"),
        # a key inside the oauth settings, and the server's line for a rule across keys
        (
            '{"mcpServers": {"r": {\n "url": "https://x/mcp", "auth": "oauth",\n'
            ' "oauth": {\n  "callback_port": "8765"}}}}',
            4,
            "'oauth.callback_port' must be a port number",
        ),
        (
            '{"mcpServers": {\n "r": {"url": "https://x/mcp",\n "oauth": {}}}}',
            2,
            '\'oauth\' settings need "auth": "oauth"',
        ),
        # the second server, in a "servers" file
        ('{"servers": {"a": {"command": "a"},\n"b": {"command": ""}}}', 2, "'command' string"),
        # a server that is not an object
        ('{"mcpServers": {\n\n  "x": [1]}}', 3, "expected an object, got list"),
    ],
)
def test_the_line_of_each_kind_of_problem(
    tmp_path: Path, text: str, line: int, problem: str
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load(str(path), tmp_path)
    assert str(caught.value).startswith(f"{path}, line {line}: MCP server "), caught.value
    assert problem in str(caught.value)


def test_a_problem_of_the_whole_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"servers_typo": {}}')
    with pytest.raises(ConfigError, match=r"mcp\.json: an MCP configuration needs"):
        load(str(path), tmp_path)


def test_the_env_var_and_workspace_files_are_named_too(tmp_path: Path) -> None:
    named = tmp_path / "named.json"
    named.write_text(BAD_ARGS)
    with pytest.raises(ConfigError, match=r"named\.json, line 5: MCP server 'time'"):
        load(None, tmp_path, {"TOOLPLUG_MCP_CONFIG": str(named)})
    local = tmp_path / ".toolplug" / "mcp.json"
    local.parent.mkdir()
    local.write_text(BAD_ARGS)
    with pytest.raises(ConfigError, match=r"\.toolplug/mcp\.json, line 5: MCP server 'time'"):
        load(None, tmp_path)


def test_a_mapping_has_no_file_or_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load(json.loads(BAD_ARGS), tmp_path)
    assert str(caught.value) == "MCP server 'time': 'args' must be a list of strings"


def test_the_factory_refuses_the_file_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(BAD_ARGS)
    spec = Tool("mcp", {"config": str(path)})
    with pytest.raises(ToolParamsError, match=r"mcp\.json, line 5: MCP server 'time'"):
        Toolset.load([spec], registry=registry_from(toolplug_mcp), workspace=tmp_path)


def test_mcp_list_shows_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(BAD_ARGS)
    env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_MCP_CONFIG"}
    done = subprocess.run(
        [TOOLPLUG, "mcp", "list", "--mcp-config", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode != 0
    assert f"{path}, line 5: MCP server 'time': 'args' must be a list of strings" in done.stderr


def test_the_message_shown_in_the_docs(tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "mcp" / "client.md").read_text()
    shown = re.search(r"```text fragment\n(mcp\.json, line .*?)\n```", page)
    assert shown is not None
    path = tmp_path / "mcp.json"
    path.write_text(BAD_ARGS)
    with pytest.raises(ConfigError) as caught:
        load(str(path), tmp_path)
    assert str(caught.value) == shown[1].replace("mcp.json", str(path), 1)
