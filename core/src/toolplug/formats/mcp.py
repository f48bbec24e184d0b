"""MCP: ``Tool`` definitions, ``tools/call`` params in, ``CallToolResult`` out (wire JSON).

MCP names allow dots and up to 128 characters: tools keep their own names.

A tool with a ``schema_dialect`` (the ``$schema`` its input schema declared, as an MCP
server's tool from toolplug-mcp has) gets it back here: MCP carries ``$schema``, while
the other formats export the schema without it, since some providers refuse it.
"""

from __future__ import annotations

from typing import Any

from toolplug.formats.base import NotACall, ToolFormat, require
from toolplug.model import Observation, ToolCall


class MCPFormat(ToolFormat):
    """The Model Context Protocol's tools."""

    name = "mcp"
    title = "MCP"
    maps_names = False
    fallback = True  # a bare {"name", "arguments"} is claimed only if nothing else did

    def export_tool(
        self, tool: Any, *, name: str | None = None, security_risk: bool = False, **options: Any
    ) -> dict[str, Any]:
        schema = tool.input_schema(security_risk=security_risk)
        dialect = getattr(tool, "schema_dialect", None)
        if isinstance(dialect, str) and "$schema" not in schema:
            schema = {"$schema": dialect, **schema}
        exported: dict[str, Any] = {
            "name": name or tool.name,
            "description": tool.description,
            "inputSchema": schema,
        }
        if tool.title:
            exported["title"] = tool.title
        output = tool.output_schema()
        if output is not None:
            exported["outputSchema"] = output
        if tool.annotations is not None:
            exported["annotations"] = tool.annotations.model_dump(exclude_none=True)
        if tool.meta:
            exported["_meta"] = tool.meta
        return exported

    def unwrap(self, data: Any) -> list[Any] | None:
        if isinstance(data, dict) and data.get("method") == "tools/call":
            return [data.get("params")]  # a JSON-RPC request
        return None

    def read_call(self, item: Any, index: int) -> ToolCall | NotACall | None:
        if item.get("type") is None and "name" in item:
            return ToolCall(str(item.get("id", index)), item["name"], item.get("arguments"))
        return None

    def render_result(self, call: ToolCall, observation: Observation) -> dict[str, Any]:
        content = [b.model_dump(mode="json", exclude_none=True) for b in observation.llm_content]
        result: dict[str, Any] = {"content": content, "isError": observation.is_error}
        structured = observation.structured_content()
        if structured is not None:
            result["structuredContent"] = structured
        return result

    def check_tool(self, exported: dict[str, Any]) -> None:
        types = require("mcp.types", "mcp", self.title)
        types.Tool.model_validate(exported)

    def check_result(self, result: Any, observation: Observation) -> None:
        types = require("mcp.types", "mcp", self.title)
        parsed = types.CallToolResult.model_validate(result)
        # The SDK's v2 name first: v2 warns when its v1 name ``isError`` is read.
        is_error = getattr(parsed, "is_error", None)
        if is_error is None:
            is_error = getattr(parsed, "isError", None)
        assert bool(is_error) == observation.is_error
