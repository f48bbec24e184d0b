"""The conformance suite every toolplug tool passes."""

from __future__ import annotations

import toolplug_grep
from toolplug.testing import ToolConformance


class TestGrepConformance(ToolConformance):
    """grep against the shared checks: registration, entry point, exports, errors."""

    plugin = toolplug_grep
    tool_name = "grep"
    entry_point = "grep"
    tool_params = {"default_limit": 50}
    valid_arguments = {"pattern": "def main", "output_mode": "content"}
    failing_call = {"pattern": "def main", "path": "no/such/dir"}
