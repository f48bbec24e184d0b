"""The conformance suite every toolplug tool passes."""

from __future__ import annotations

import toolplug_bash
from toolplug.testing import ToolConformance


class TestBashConformance(ToolConformance):
    plugin = toolplug_bash
    entry_point = "bash"
    tool_name = "bash"
    valid_arguments = {"command": "echo hello"}
    failing_call = {"command": "y", "is_input": True}  # no command runs to answer
    tool_params = {"timeout": 30, "max_output": 10000, "env": {"GREETING": "hi"}}
