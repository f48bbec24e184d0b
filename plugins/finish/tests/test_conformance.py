"""The core's conformance suite, run against the finish tool."""

from __future__ import annotations

import toolplug_finish
from toolplug.testing import ToolConformance


class TestFinishConformance(ToolConformance):
    """Everything every toolplug tool promises, checked for ``finish``."""

    plugin = toolplug_finish
    tool_name = "finish"
    entry_point = "finish"
    tool_params = {}
    valid_arguments = {"message": "Renamed the module and updated its three callers."}
