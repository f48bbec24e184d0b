"""toolplug's conformance suite, on a tool of the demo server."""

from __future__ import annotations

import toolplug_mcp
from conftest import demo_stdio
from toolplug.testing import ToolConformance


class TestMcpConformance(ToolConformance):
    """The ``mcp`` factory makes several tools; the checks run on its ``echo``."""

    plugin = toolplug_mcp
    tool_name = "mcp"
    entry_point = "mcp"
    tool_params = {"config": {"mcpServers": {"demo": demo_stdio()}}, "timeout": 30}
    valid_arguments = {"text": "hi"}
    created_tool_name = "echo"  # the factory names its tools after the server's
