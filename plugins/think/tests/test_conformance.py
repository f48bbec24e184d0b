"""The core's conformance suite, run against the think tool."""

from __future__ import annotations

import toolplug_think
from toolplug.testing import ToolConformance


class TestThinkConformance(ToolConformance):
    """Everything every toolplug tool promises, checked for ``think``."""

    plugin = toolplug_think
    tool_name = "think"
    entry_point = "think"
    tool_params = {}
    valid_arguments = {"thought": "List the files first, then read the config."}
