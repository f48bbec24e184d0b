"""toolplug-mcp: every MCP server's tools as toolplug tools, and toolplug tools over MCP.

Loading this plugin is cheap: fastmcp, jsonschema and the MCP SDK are imported only
when an MCP server is configured (the ``mcp`` factory finds a configuration) or when
``toolplug mcp ...`` runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolplug import hookimpl

if TYPE_CHECKING:
    import click
    from toolplug import ToolContext, ToolDefinition

__version__ = "0.2.1"
__all__ = ["mcp_tools", "register_commands", "register_tools"]


def mcp_tools(
    context: ToolContext,
    *,
    config: Any = None,
    timeout: float = 60.0,
    init_timeout: float = 30.0,
    resources: bool = True,
) -> list[ToolDefinition[Any, Any]]:
    """One tool per tool of every configured MCP server (none when nothing is configured).

    See :func:`toolplug_mcp.client.tool.mcp_tools` for the params.
    """
    from toolplug_mcp.client.tool import mcp_tools as create

    return create(
        context, config=config, timeout=timeout, init_timeout=init_timeout, resources=resources
    )


@hookimpl
def register_tools(register: Any) -> None:
    """Register the ``mcp`` factory."""
    register(mcp_tools, name="mcp")


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``toolplug mcp list`` and ``toolplug mcp serve``."""
    from toolplug_mcp.cli import mcp_group

    cli.add_command(mcp_group)
