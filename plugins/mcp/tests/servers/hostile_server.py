"""An MCP server whose tool list is hostile to its client (the MCP SDK's low-level
server, over stdio).

python hostile_server.py

Its tools:

- ``redos``: a ``pattern`` (and a ``patternProperties`` key) that a backtracking regex
  engine takes exponential time on: ``^(a+)+$`` against ``aaa...ab``;
- ``backref``: a pattern with a backreference, which a linear-time engine cannot run;
- ``malformed``: an input schema that is not a schema (``properties: 5``);
- ``deep``: an input schema nested 200 levels deep (arrays of arrays);
- ``echo``: a well-behaved tool;
- ``dialect``: a tool whose input schema declares ``$schema`` 2020-12.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

REDOS = "^(a+)+$"
DEPTH = 190  # within what the MCP SDK reads (200 levels, the whole message)


def deep_schema(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(depth - 1):
        node = {"type": "array", "items": node}
    return {"type": "object", "properties": {"grid": node}}


TOOLS: list[dict[str, Any]] = [
    {
        "name": "redos",
        "description": "A pattern that backtracks exponentially.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "word": {"type": "string", "pattern": REDOS},
                "tags": {"type": "object", "patternProperties": {REDOS: {"type": "string"}}},
            },
            "required": ["word"],
        },
    },
    {
        "name": "backref",
        "description": "A pattern only a backtracking engine runs.",
        "inputSchema": {
            "type": "object",
            "properties": {"pair": {"type": "string", "pattern": r"^(\w+)-\1$"}},
        },
    },
    {
        "name": "malformed",
        "description": "Not a schema.",
        "inputSchema": {"type": "object", "properties": 5},
    },
    {
        "name": "deep",
        "description": "A schema 200 levels deep.",
        "inputSchema": deep_schema(DEPTH),
    },
    {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to return."}},
            "required": ["text"],
        },
    },
    {
        "name": "dialect",
        "description": "A schema that names its dialect.",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"n": {"type": "integer", "description": "A number."}},
        },
    },
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    # model_construct: the SDK's own model would refuse the malformed schema, which is
    # what a server written without the SDK sends anyway.
    tools = [
        types.Tool.model_construct(
            name=tool["name"], description=tool["description"], input_schema=tool["inputSchema"]
        )
        for tool in TOOLS
    ]
    return types.ListToolsResult.model_construct(tools=tools)


def text(value: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "echo":
        return text(str(arguments.get("text", "")))
    return text(f"{params.name} called with {sorted(arguments)}")


server = Server("hostile", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
