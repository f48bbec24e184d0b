"""Every tool of every plugin shipped here, installed together, exports validly everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from toolplug import ToolContext, ToolRegistry, Toolset
from toolplug.plugins import installed_plugins
from toolplug.testing import validate_observation_exports, validate_tool_exports

SHIPPED = {
    "think",
    "finish",
    "bash",
    "file_editor",
    "memory",
    "glob",
    "grep",
    "mcp",
    "policy",
    "otel",
}


def test_every_shipped_plugin_is_installed_and_loads() -> None:
    installed = {r.name for r in installed_plugins(None)}
    assert installed >= SHIPPED, f"missing: {SHIPPED - installed}"
    registry = ToolRegistry.from_plugins(sorted(SHIPPED))
    broken = [(r.name, r.error) for r in registry.reports if r.status != "ok"]
    assert not broken


def _all_tools(workspace: Path) -> list:
    registry = ToolRegistry.from_plugins(sorted(SHIPPED))
    tools = []
    for entry in registry:
        tools.extend(registry.resolve(entry.name, ToolContext(workspace=workspace)))
    return tools


def test_every_export_of_every_tool_validates(tmp_path: Path) -> None:
    tools = _all_tools(tmp_path)
    names = {t.name for t in tools}
    assert {"think", "finish", "bash", "file_editor", "glob"} <= names
    try:
        for tool in tools:
            validate_tool_exports(tool)
    finally:
        for tool in tools:
            tool.close()


CODING = ["bash", "file_editor", "glob", "grep", "think", "finish"]


def _exports(workspace: Path) -> dict[str, list[dict[str, Any]]]:
    with Toolset.load(CODING, workspace=workspace, plugins=CODING) as toolset:
        assert sorted(toolset.keys()) == sorted(CODING)
        return {
            fmt + (" strict" if options else ""): toolset.export(fmt, check="off", **options)
            for fmt in toolset.formats
            for options in ([{}, {"strict": True}] if fmt in ("openai", "responses") else [{}])
        }


def test_a_definition_is_the_same_in_every_workspace(tmp_path: Path) -> None:
    """A prompt cache keyed on the tools survives a second checkout: no definition of
    the coding tools names the workspace it was made in."""
    one, two = tmp_path / "one" / "checkout", tmp_path / "elsewhere"
    one.mkdir(parents=True)
    two.mkdir()
    first, second = _exports(one), _exports(two)
    assert set(first) >= {"openai", "openai strict", "anthropic", "gemini", "bedrock", "mcp"}
    for fmt, exported in first.items():
        assert exported == second[fmt], fmt
        assert str(one) not in str(exported) and str(tmp_path) not in str(exported), fmt


@pytest.mark.parametrize(
    ("tool_name", "arguments"),
    [
        ("think", {"thought": "first list the files"}),
        ("finish", {"message": "done"}),
        ("bash", {"command": "echo exported"}),
        ("file_editor", {"command": "view", "path": "."}),
        ("glob", {"pattern": "**/*"}),
        ("grep", {"pattern": "hello", "output_mode": "content"}),
        ("bash", {"command": "exit_code_please; false"}),
        ("file_editor", {"command": "view", "path": "missing.txt"}),
    ],
)
def test_results_of_every_tool_convert_for_every_provider(
    tmp_path: Path, tool_name: str, arguments: dict
) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    registry = ToolRegistry.from_plugins(sorted(SHIPPED))
    (tool,) = registry.resolve(tool_name, ToolContext(workspace=tmp_path))
    try:
        observation = tool.call(arguments)
        validate_observation_exports(observation)
        assert observation.text
    finally:
        tool.close()
