"""A server of the 2026-07-28 revision (the MCP SDK's ``MCPServer``, over stdio) that
announces tool list changes on ``subscriptions/listen`` streams, as that revision has
it: ``grow`` adds a tool and says so.

python modern_server.py
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("modern")


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool that echoes a word, and announce that the tool list changed."""

    def made(word: str) -> str:
        return f"{name}: {word}"

    server.add_tool(made, name=name, description="Added while running.")
    await ctx.notify_tools_changed()
    return f"added {name}"


@server.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


if __name__ == "__main__":
    server.run()
