"""toolplug's own shape: :class:`~toolplug.ToolCall` objects in, ``(call, observation)``
pairs out. Tools are described MCP-style, under their own names."""

from __future__ import annotations

from typing import Any

from toolplug.formats.base import NotACall
from toolplug.formats.mcp import MCPFormat
from toolplug.model import Observation, ToolCall


class ToolplugFormat(MCPFormat):
    """Calls as :class:`~toolplug.ToolCall`, results as the observations themselves."""

    name = "toolplug"
    title = "toolplug ToolCall"
    fallback = False

    def unwrap(self, data: Any) -> list[Any] | None:
        return None

    def read_call(self, item: Any, index: int) -> ToolCall | NotACall | None:
        return item if isinstance(item, ToolCall) else None

    def render_result(self, call: ToolCall, observation: Observation) -> Any:
        return (call, observation)

    def check_result(self, result: Any, observation: Observation) -> None:
        call, returned = result
        assert isinstance(call, ToolCall) and isinstance(returned, Observation)
