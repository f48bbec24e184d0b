"""toolplug-mcp: every MCP server's tools as toolplug tools, and toolplug tools over MCP.

Loading this plugin is cheap: fastmcp, jsonschema and the MCP SDK are imported only
when an MCP server is configured (the ``mcp`` factory finds a configuration), when a
server's prompts are asked for, or when ``toolplug mcp ...`` runs.

Registering checks, from the installed distributions' metadata alone, that the MCP
libraries are the versions this plugin needs: another package may have pinned an older
``mcp`` over them. If not, the plugin is reported broken (``toolplug plugins --check``
names the distribution and the version wanted), and every other plugin's tools work.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field
from toolplug import hookimpl

if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from pathlib import Path

    import click
    from toolplug import ToolContext, ToolDefinition, Toolset

    from toolplug_mcp.client.prompts import Prompts

__version__ = "0.2.1"
__all__ = ["mcp_tools", "open_prompts", "prompts", "register_commands", "register_tools"]


def mcp_tools(
    context: ToolContext,
    *,
    config: Annotated[
        Any,
        Field(
            description='An {"mcpServers": {...}} mapping or a JSON file\'s path (default: '
            "the file TOOLPLUG_MCP_CONFIG names, else .toolplug/mcp.json in the workspace)."
        ),
    ] = None,
    timeout: Annotated[
        float,
        Field(
            gt=0,
            description="Default seconds a call may take (a server's own timeout, in "
            "milliseconds, wins).",
        ),
    ] = 60.0,
    init_timeout: Annotated[
        float, Field(gt=0, description="Seconds each server may take to start.")
    ] = 30.0,
    resources: Annotated[
        bool,
        Field(
            description="A server that offers resources also gets a list_resources and a "
            "read_resource tool."
        ),
    ] = True,
    max_server_requests: Annotated[
        int,
        Field(
            description="Sampling and elicitation requests a server may send during one "
            "call (a server's own maxServerRequests wins); past it, each is refused."
        ),
    ] = 20,
) -> list[ToolDefinition[Any, Any]]:
    """One tool per tool of every configured MCP server (none when nothing is configured).

    The params are described in their annotations (``toolplug tools --params``); see
    :func:`toolplug_mcp.client.tool.mcp_tools` for more. The configuration is looked for
    first: with none, nothing of MCP is imported.
    """
    from toolplug_mcp.client.config import find_config

    if config is None and find_config(None, context.env, context.workspace) is None:
        return []
    from toolplug_mcp.client.tool import mcp_tools as create

    return create(
        context,
        config=config,
        timeout=timeout,
        init_timeout=init_timeout,
        resources=resources,
        max_server_requests=max_server_requests,
    )


def prompts(toolset: Toolset, *, timeout: float = 30.0) -> Prompts:
    """The prompts of the MCP servers behind a toolset's MCP tools, over their
    connections: ``prompts(toolset).list_prompts()``, ``.get_prompt(name, {...})``.

    See :class:`toolplug_mcp.client.prompts.Prompts`.
    """
    from toolplug_mcp.client.prompts import Prompts

    return Prompts.of(toolset, timeout)


def open_prompts(
    config: Any = None, *, workspace: str | Path | None = None, timeout: float = 30.0
) -> AbstractContextManager[Prompts]:
    """Start the configured MCP servers for their prompts alone (``with open_prompts(
    config) as found: ...``); they end with the block. ``config`` is read as the ``mcp``
    factory reads it."""
    from toolplug_mcp.client.prompts import open_prompts as start

    return start(config, workspace=workspace, timeout=timeout)


#: The MCP libraries this plugin imports, and the versions it works with: [low, high).
NEEDED = {
    "mcp": ((2, 2), (3,)),
    "mcp-types": ((2, 2), (3,)),
    "fastmcp-slim": ((4, 1), (5,)),
}


def check_install() -> None:
    """Raise :class:`ImportError`, saying what to install, when an MCP library this
    plugin needs is missing or of a version outside its range (read from metadata:
    nothing is imported)."""
    from importlib.metadata import PackageNotFoundError, version

    for name, (low, high) in NEEDED.items():
        wanted = f"{name}>={'.'.join(map(str, low))},<{'.'.join(map(str, high))}"
        try:
            found = version(name)
        except PackageNotFoundError:
            raise ImportError(
                f"toolplug-mcp needs {wanted}, which is not installed: pip install '{wanted}'"
            ) from None
        if not low <= _release(found) < high:
            raise ImportError(
                f"toolplug-mcp needs {wanted}, and {name} {found} is installed (another "
                f"package may pin it): pip install '{wanted}'"
            )


def _release(text: str) -> tuple[int, ...]:
    """The leading numbers of a version: ``2.3.0rc1`` -> ``(2, 3, 0)``."""
    numbers: list[int] = []
    for part in text.split("."):
        digits = "".join(itertools.takewhile(str.isdigit, part))
        if not digits:
            break
        numbers.append(int(digits))
        if digits != part:
            break
    return tuple(numbers)


@hookimpl
def register_tools(register: Any) -> None:
    """Register the ``mcp`` factory (after :func:`check_install`)."""
    check_install()
    register(mcp_tools, name="mcp")


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``toolplug mcp list``, ``toolplug mcp prompts`` and ``toolplug mcp serve``."""
    from toolplug_mcp.cli import mcp_group

    cli.add_command(mcp_group)
