"""toolplug's conformance suite, on a tool of the demo server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import toolplug_mcp
from conftest import demo_stdio
from toolplug import ToolDefinition
from toolplug.testing import ToolConformance


class TestMcpConformance(ToolConformance):
    """The ``mcp`` factory makes several tools; the checks run on its ``echo``."""

    plugin = toolplug_mcp
    tool_name = "mcp"
    entry_point = "mcp"
    tool_params = {"config": {"mcpServers": {"demo": demo_stdio()}}, "timeout": 30}
    valid_arguments = {"text": "hi"}
    created_tool = "echo"

    def _tool(self, workspace: Path) -> Iterator[ToolDefinition[Any, Any]]:
        # The suite looks for a created tool named like the registered one; a factory
        # of many tools names them after the server's tools instead.
        tools = self._tools(workspace)
        try:
            yield next(t for t in tools if t.name == self.created_tool)
        finally:
            for tool in tools:
                tool.close()
