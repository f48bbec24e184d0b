"""``toolplug mcp list``, ``toolplug mcp prompts`` and ``toolplug mcp serve``."""

from __future__ import annotations

import asyncio
import json
import math
import sys
from pathlib import Path
from typing import Any

import click
from toolplug.budget import DEFAULT_CHARS, Budget
from toolplug.guard_options import OptionsCommand, given_settings

from toolplug_mcp.client.config import CONFIG_ENV_VAR

workspace_option = click.option(
    "--workspace",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The workspace directory (default: the current directory).",
)
config_option = click.option(
    "--mcp-config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"An mcpServers JSON file (default: ${CONFIG_ENV_VAR}, else .toolplug/mcp.json).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group("mcp")
def mcp_group() -> None:
    """Use MCP servers' tools, and serve toolplug tools over MCP."""


@mcp_group.command("list")
@config_option
@click.option(
    "--timeout",
    type=float,
    default=30.0,
    show_default=True,
    help="Seconds each server may take to start.",
)
@workspace_option
@json_option
def list_command(
    config_path: Path | None, timeout: float, workspace: Path | None, as_json: bool
) -> None:
    """Show each configured MCP server's status and tools (with their exported names)."""
    from toolplug import ToolContext
    from toolplug.loop import run_sync

    from toolplug_mcp.client.config import load_config
    from toolplug_mcp.client.connection import ServerPool
    from toolplug_mcp.client.names import META_KEY
    from toolplug_mcp.client.tool import McpTool, build_tools
    from toolplug_mcp.errors import ConfigError

    context = ToolContext(workspace=workspace) if workspace else ToolContext()
    try:
        loaded = load_config(
            str(config_path) if config_path else None,
            env=context.env,
            workspace=context.workspace,
            timeout=timeout,
            init_timeout=timeout,
        )
    except ConfigError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    if loaded is None:
        message = (
            f"No MCP configuration: pass --mcp-config, set {CONFIG_ENV_VAR}, "
            "or write .toolplug/mcp.json in the workspace."
        )
        click.echo(json.dumps({"source": None, "servers": []}) if as_json else message)
        return
    pool = ServerPool(loaded.servers, loaded.source)
    try:
        run_sync(pool.start(), timeout=timeout + 30)
        tools = build_tools(pool)
        names = {(t.server, t.remote_name): t.name for t in tools if isinstance(t, McpTool)}
        resources: dict[str, list[str]] = {}
        for tool in tools:
            origin = tool.meta.get(META_KEY, {})
            if origin.get("resources"):
                resources.setdefault(origin["server"], []).append(tool.name)
        report = _report(pool, names, resources)
    finally:
        pool.close()
    failed = any(s["status"] == "failed" for s in report)
    if as_json:
        click.echo(json.dumps({"source": loaded.source, "servers": report}, indent=2))
        sys.exit(1 if failed else 0)
    click.echo(f"MCP configuration: {loaded.source}")
    for server in report:
        click.echo(f"{server['name']:<20} {server['status']:<14} {server['target']}")
        if server["error"]:
            # A start failure may quote the server's stderr: keep it in the column.
            error = server["error"].replace("\n", "\n" + " " * 21)
            click.echo(f"{'':<20} error: {error}")
        for tool in server["tools"]:
            shown = tool["exported_as"]
            arrow = "" if shown == tool["name"] else f"  <- {tool['name']}"
            click.echo(f"{'':<20} {shown}{arrow}")
        for shown in server["resource_tools"]:
            click.echo(f"{'':<20} {shown}  (the server's resources)")
    sys.exit(1 if failed else 0)


def _report(
    pool: Any, names: dict[tuple[str, str], str], resources: dict[str, list[str]]
) -> list[dict[str, Any]]:
    servers = []
    for name, conn in pool.connections.items():
        tools = [
            {"name": t.name, "exported_as": names.get((name, t.name), t.name)}
            for t in (conn.tools if conn.status == "connected" else [])
        ]
        servers.append(
            {
                "name": name,
                "status": conn.status,
                "target": conn.spec.describe(),
                "error": conn.error,
                "tools": tools,
                "resource_tools": resources.get(name, []),
            }
        )
    return servers


@mcp_group.command("prompts")
@click.argument("server", required=False)
@click.argument("name", required=False)
@click.option(
    "--arg",
    "args",
    multiple=True,
    metavar="KEY=VALUE",
    help="An argument of the prompt (repeatable).",
)
@config_option
@click.option(
    "--timeout",
    type=float,
    default=30.0,
    show_default=True,
    help="Seconds each server may take to start, and to answer.",
)
@workspace_option
@json_option
def prompts_command(
    server: str | None,
    name: str | None,
    args: tuple[str, ...],
    config_path: Path | None,
    timeout: float,
    workspace: Path | None,
    as_json: bool,
) -> None:
    """List the MCP servers' prompts (or SERVER's), or get prompt NAME of SERVER filled
    in with --arg KEY=VALUE."""
    from dataclasses import asdict

    from toolplug_mcp.client.prompts import open_prompts
    from toolplug_mcp.errors import ConfigError, PromptError

    arguments = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{arg!r} is not KEY=VALUE", param_hint="--arg")
        arguments[key] = value
    if args and name is None:
        raise click.UsageError("--arg goes with a prompt: toolplug mcp prompts SERVER NAME")
    config = str(config_path) if config_path else None
    try:
        with open_prompts(config, workspace=workspace, timeout=timeout) as found:
            if not found.servers:
                click.echo(
                    f"No MCP configuration: pass --mcp-config, set {CONFIG_ENV_VAR}, "
                    "or write .toolplug/mcp.json in the workspace.",
                    err=True,
                )
                sys.exit(2)
            if name is None:
                listed = found.list_prompts(server)
            else:
                got = found.get_prompt(name, arguments, server=server)
    except (ConfigError, PromptError) as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1 if isinstance(exc, PromptError) else 2)
    if name is not None:
        click.echo(json.dumps(asdict(got), indent=2) if as_json else got.text())
        return
    if as_json:
        click.echo(json.dumps({"prompts": [asdict(p) for p in listed]}, indent=2))
        return
    for prompt in listed:
        click.echo(f"{prompt.server:<20} {prompt.name}  {prompt.title or ''}".rstrip())
        if prompt.description:
            click.echo(f"{'':<20} {prompt.description}")
        for argument in prompt.arguments:
            need = "required" if argument.required else "optional"
            about = f": {argument.description}" if argument.description else ""
            click.echo(f"{'':<20}   --arg {argument.name}=... ({need}){about}")


def _origins(values: tuple[str, ...]) -> tuple[str, ...]:
    from toolplug_mcp.errors import OriginError
    from toolplug_mcp.server.security import allowed_origin

    for value in values:
        try:
            allowed_origin(value)
        except OriginError as exc:
            raise click.BadParameter(str(exc), param_hint="--allow-origin") from None
    return values


def _seconds(value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        raise click.BadParameter(f"{value} is not a positive, finite number of seconds")
    return value


def _output_budget(value: str | None) -> int | None:
    """``--output-budget``: a positive number of characters, or ``off``."""
    if value is None or value.strip().lower() == "off":
        return None
    try:
        chars = int(value)
    except ValueError:
        chars = 0
    if chars < 1:
        raise click.BadParameter(f"{value!r} is neither a positive number of characters nor 'off'")
    return chars


def _defer_patterns(values: tuple[str, ...]) -> tuple[str, ...]:
    from toolplug import Deferral

    try:
        Deferral(values)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--defer") from None
    return values


def _endpoint_path(value: str) -> str:
    if not value.startswith("/"):
        raise click.BadParameter(f"{value!r} must start with '/', as /mcp does")
    return value


@mcp_group.command("serve", cls=OptionsCommand)
@click.option(
    "--plugins",
    default=None,
    metavar="A,B",
    help="Serve exactly these plugins' tools (default: TOOLPLUG_PLUGINS, else all).",
)
@click.option(
    "--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="HTTP bind address; any but loopback needs --token.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--path",
    default="/mcp",
    show_default=True,
    callback=lambda ctx, param, value: _endpoint_path(value),
    help="The HTTP endpoint path.",
)
@click.option(
    "--token",
    default=None,
    envvar="TOOLPLUG_MCP_TOKEN",
    help="Bearer token HTTP clients must send (env: TOOLPLUG_MCP_TOKEN).",
)
@click.option(
    "--allow-origin",
    "allowed_origins",
    multiple=True,
    metavar="ORIGIN",
    callback=lambda ctx, param, value: _origins(value),
    help="A browser origin allowed to call, as scheme://host[:port] (repeatable); other "
    "origins get 403.",
)
@click.option(
    "--idle-timeout",
    type=float,
    default=1800.0,
    show_default=True,
    callback=lambda ctx, param, value: _seconds(value),
    help="Seconds a session may go without a request (and without an open GET stream) "
    "before it is ended and its tools closed.",
)
@click.option(
    "--max-sessions",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Sessions open at once; past it a new session gets 503 with Retry-After.",
)
@click.option(
    "--shutdown-timeout",
    type=click.FloatRange(min=0),
    default=5.0,
    show_default=True,
    help="Seconds calls in flight may take to finish on SIGTERM/SIGINT before the "
    "sessions' tools are closed.",
)
@click.option(
    "--header-timeout",
    type=float,
    callback=lambda ctx, param, value: _seconds(value),
    default=10.0,
    show_default=True,
    help="Seconds an HTTP client may take to send a request's headers; past them it "
    "gets 408 and its connection is closed.",
)
@click.option(
    "--body-timeout",
    type=float,
    callback=lambda ctx, param, value: _seconds(value),
    default=30.0,
    show_default=True,
    help="Seconds an HTTP client may take to send a request's body, once its headers "
    "are in; past them it gets 408 and its connection is closed.",
)
@click.option(
    "--stateless",
    is_flag=True,
    help="No sessions: any replica answers any request (HTTP; only for tools that keep "
    "no state, such as think and glob).",
)
@click.option(
    "--tool-param",
    "tool_param_pairs",
    multiple=True,
    metavar="TOOL.KEY=VALUE",
    help="A param every session's instance of TOOL is created with, the value parsed as "
    "JSON when it can be (repeatable): --tool-param bash.max_processes=64.",
)
@click.option(
    "--output-budget",
    default=str(DEFAULT_CHARS),
    show_default=True,
    metavar="CHARS|off",
    callback=lambda ctx, param, value: _output_budget(value),
    help="Cut a result longer than CHARS characters to its head and tail, the whole "
    "saved in a file the result names; 'off' never cuts (docs/context.md).",
)
@click.option(
    "--output-folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the cut results' files go (default: a private temp folder per session). "
    "A relative path is inside the workspace, where the served file tools can read them.",
)
@click.option(
    "--defer",
    "defer_patterns",
    multiple=True,
    metavar="PATTERN",
    callback=lambda ctx, param, value: _defer_patterns(value),
    help="Defer these tools (a tool's name, its plugin's, or a glob; repeatable): "
    "tools/list leaves them out and lists search_tools, and a session's search reveals "
    "them to it (notifications/tools/list_changed).",
)
@click.option(
    "--defer-above",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Defer tools (those --defer names, else every tool) only when more than N are served.",
)
@click.option(
    "--preset",
    default=None,
    metavar="NAME",
    help="Serve only this preset's tools for --model (see 'toolplug presets'); MCP has "
    "no native forms, so every tool is served as a function tool.",
)
@click.option(
    "--model",
    default=None,
    metavar="MODEL",
    help="The model --preset chooses for; without it, the preset's default row.",
)
@workspace_option
def serve_command(
    plugins: str | None,
    transport: str,
    host: str,
    port: int,
    path: str,
    token: str | None,
    allowed_origins: tuple[str, ...],
    idle_timeout: float,
    max_sessions: int,
    shutdown_timeout: float,
    header_timeout: float,
    body_timeout: float,
    stateless: bool,
    tool_param_pairs: tuple[str, ...],
    output_budget: int | None,
    output_folder: Path | None,
    defer_patterns: tuple[str, ...],
    defer_above: int | None,
    preset: str | None,
    model: str | None,
    workspace: Path | None,
) -> None:
    """Serve every enabled toolplug tool over MCP (each client session gets its own tools).

    The installed guard plugins add their options (toolplug-policy: --policy FILE,
    also read from TOOLPLUG_POLICY); a call a guard asks about is put to the client's
    user as an MCP elicitation (refused when the client does not support elicitation).

    Over HTTP, /healthz and /readyz answer load balancers, and SIGTERM drains
    the server before it closes every session's tools.
    """
    from toolplug import Deferral, ToolContext, ToolError

    from toolplug_mcp.server.security import is_loopback
    from toolplug_mcp.server.serve import build_server, serve_http, serve_stdio

    if transport == "http" and not is_loopback(host) and not token:
        click.echo(
            f"Error: binding {host} exposes the tools to the network; give a bearer token "
            "with --token or TOOLPLUG_MCP_TOKEN.",
            err=True,
        )
        sys.exit(2)
    if stateless and transport != "http":
        raise click.UsageError("--stateless is for --transport http (stdio serves one client)")
    tool_params = _tool_params(tool_param_pairs)
    if model is not None and preset is None:
        raise click.UsageError("--model chooses the family of a preset: give --preset too")
    deferral = None
    if defer_patterns or defer_above is not None:
        deferral = Deferral(defer_patterns, above=defer_above)
    context = ToolContext(workspace=workspace) if workspace else ToolContext()
    if output_folder is not None and output_budget is None:
        raise click.UsageError(
            "--output-folder is for a budget: it cannot go with --output-budget off"
        )
    budget = None
    if output_budget is not None:
        folder = context.workspace / output_folder if output_folder else None
        budget = Budget(chars=output_budget, folder=folder)
    try:
        registry, served = _preset_tools(plugins, preset, model)
        server, sessions, problems = build_server(
            plugins,
            registry=registry,
            tools=served,
            context=context,
            idle_timeout=idle_timeout,
            settings=given_settings() if registry is None else None,
            tool_params=tool_params,
            stateless=stateless,
            budget=budget,
            deferral=deferral,
        )
    except ToolError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    for problem in problems:
        click.echo(f"warning: {problem}", err=True)
    if transport == "stdio":
        asyncio.run(serve_stdio(server, sessions))
        return

    def announce(url: str) -> None:
        # Only once the socket listens: a script that waits for this line may connect.
        click.echo(f"toolplug MCP server on {url}", err=True)

    try:
        asyncio.run(
            serve_http(
                server,
                sessions,
                host=host,
                port=port,
                token=token,
                allowed_origins=allowed_origins,
                path=path,
                max_sessions=max_sessions,
                shutdown_timeout=shutdown_timeout,
                header_timeout=header_timeout,
                body_timeout=body_timeout,
                announce=announce,
            )
        )
    except ToolError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        pass


def _preset_tools(
    plugins: str | None, preset: str | None, model: str | None
) -> tuple[Any, tuple[str, ...] | None]:
    """The registry and the tool names to serve for ``--preset`` (``None, None``
    without it: build_server loads every enabled tool). The registry is loaded as
    build_server would load it, the guard plugins' settings applied."""
    if preset is None:
        return None, None
    from toolplug import Preset, ToolRegistry

    from toolplug_mcp.server.approval import elicit_approval

    registry = ToolRegistry.from_plugins(
        plugins, settings=given_settings(), approver=elicit_approval
    )
    for problem in registry.presets.problems:
        click.echo(f"warning: {problem}", err=True)
    choice = registry.presets.choose(Preset(preset, model))
    choice.check(registry)
    click.echo(f"serving the {choice.describe()}", err=True)
    return registry, choice.tools


def _tool_params(pairs: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """``TOOL.KEY=VALUE`` pairs as ``{tool: {key: value}}``, values parsed as JSON
    when they can be (``64`` a number, ``true`` a flag, ``bwrap`` a string)."""
    params: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        target, sep, raw = pair.partition("=")
        tool, dot, key = target.partition(".")
        if not (sep and dot and tool and key):
            raise click.BadParameter(
                f"{pair!r} is not TOOL.KEY=VALUE (bash.max_processes=64)",
                param_hint="--tool-param",
            )
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        params.setdefault(tool, {})[key] = value
    return params
