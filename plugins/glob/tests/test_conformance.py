"""The conformance suite every toolplug tool passes."""

from __future__ import annotations

import toolplug_glob
from toolplug.testing import ToolConformance


class TestGlobConformance(ToolConformance):
    """glob against the shared checks: registration, entry point, exports, errors."""

    plugin = toolplug_glob
    tool_name = "glob"
    entry_point = "glob"
    tool_params = {"default_limit": 50}
    valid_arguments = {"pattern": "**/*.py"}
    failing_call = {"pattern": "**/*.py", "path": "no/such/dir"}
