"""The ``toolplug`` command line.

Built-in commands import only what they use: ``toolplug plugins`` reads package
metadata and imports no plugin. Commands that plugins add through
``register_commands`` are loaded only when a command that is not built in is asked for.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import click

from toolplug.errors import ToolError
from toolplug.guard_options import OptionsCommand, given_settings

plugins_option = click.option(
    "--plugins",
    "plugins",
    default=None,
    metavar="A,B",
    help="Enable exactly these plugins (default: TOOLPLUG_PLUGINS, else all installed).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


class ToolplugGroup(click.Group):
    """A group that loads plugin subcommands only when they are needed."""

    _plugins_loaded = False

    def _load_plugin_commands(self) -> None:
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        from toolplug.plugins import call_each, error_text, load_plugins

        try:
            pm, _ = load_plugins()
        except ToolError as exc:
            click.echo(f"warning: plugin commands not loaded: {exc}", err=True)
            return

        def on_error(plugin: str, exc: BaseException) -> None:
            click.echo(
                f"warning: plugin '{plugin}' could not add commands: {error_text(exc)}", err=True
            )

        call_each(pm, "register_commands", lambda _: {"cli": self}, on_error)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            self._load_plugin_commands()
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugin_commands()
        return super().list_commands(ctx)


@click.group(cls=ToolplugGroup)
@click.version_option(package_name="toolplug")
def cli() -> None:
    """toolplug: typed tools for LLM agents, from installed plugins."""


def _echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """Print ``text`` as valid UTF-8: a lone surrogate is shown escaped, never an error."""
    from toolplug._text import printable

    click.echo(printable(text), err=err, nl=nl)


def _fail(message: str, code: int = 2) -> None:
    _echo(f"Error: {message}", err=True)
    sys.exit(code)


# -- plugins -----------------------------------------------------------------------------


@cli.command()
@plugins_option
@json_option
@click.option(
    "--check",
    is_flag=True,
    help="Also load the enabled plugins and list their tools; exit 1 if one is broken.",
)
def plugins(plugins: str | None, as_json: bool, check: bool) -> None:
    """List installed plugins: name, distribution, version, enabled.

    Exit status: 0, or with --check 1 when an enabled plugin is broken; 2 a usage error.
    """
    from toolplug.listing import check_status, plugin_reports, render_plugins

    try:
        reports = plugin_reports(plugins, check=check)
    except ToolError as exc:
        _fail(str(exc))
        return
    _echo(render_plugins(reports, as_json=as_json, check=check), nl=False)
    if check:
        sys.exit(check_status(reports))


# -- tools -------------------------------------------------------------------------------


def _load_all(
    plugins: str | None, workspace: Path | None
) -> tuple[Any, list[tuple[Any, Any]], list[str]]:
    """Every enabled tool, created with default params, with the registration it came from.

    Problems (broken plugins, tools that need params) are collected, not raised.
    """
    from toolplug.context import ToolContext
    from toolplug.registry import ToolRegistry

    registry = ToolRegistry.from_plugins(plugins)
    context = ToolContext(workspace=workspace) if workspace else ToolContext()
    created: list[tuple[Any, Any]] = []
    problems: list[str] = []
    for entry in registry:
        try:
            created.extend((entry, tool) for tool in registry.resolve(entry.name, context))
        except ToolError as exc:
            problems.append(f"{entry.name}: {exc}")
        except (Exception, SystemExit) as exc:  # a factory that fails: skipped, said so
            from toolplug.plugins import error_text

            problems.append(f"{entry.name}: could not be created: {error_text(exc)}")
    for report in registry.reports:
        if report.status == "broken":
            problems.append(f"plugin {report.name} is broken: {report.error}")
    return registry, created, problems


def _export_all(tools: Any, fmt: str, strict: bool, native: bool = False) -> list[dict[str, Any]]:
    """Every tool in one format, under the names that format accepts.

    A tool the format cannot express is left out with a warning; the rest are exported.
    Each tool is tried alone only when the export of all of them fails. ``native``
    declares the tools that have a native form for ``fmt`` in it; otherwise a preset's
    choice holds (see :meth:`toolplug.Toolset.export`).
    """
    from toolplug.errors import SchemaError
    from toolplug.toolset import Toolset

    options: dict[str, Any] = {"strict": strict} if "strict" in tools.formats[fmt].options else {}
    # Said outright, so that the one-tool toolsets below keep a preset's choice too.
    preset = tools.preset
    options["native"] = True if native else (preset.native(fmt) if preset else False)
    try:
        return tools.export(fmt, **options)  # type: ignore[no-any-return]
    except SchemaError:
        pass
    exportable = []
    for tool in tools.values():
        try:
            Toolset([tool], formats=tools.formats).export(fmt, **options)
        except SchemaError as exc:
            click.echo(f"warning: {tool.name} left out: {exc}", err=True)
            continue
        exportable.append(tool)
    return Toolset(exportable, formats=tools.formats).export(fmt, **options)


@cli.command()
@plugins_option
@json_option
@click.option(
    "--format",
    "fmt",
    default=None,
    metavar="NAME",
    help="Export format: openai, responses, anthropic, gemini, bedrock, mcp, toolplug, "
    "or a plugin's (default with --json: mcp).",
)
@click.option("--strict", is_flag=True, help="OpenAI strict mode (openai, responses formats).")
@click.option("--workspace", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option(
    "--params",
    "show_params",
    is_flag=True,
    help="List the params each tool takes when a host creates it (stateful tools and "
    "factories): types, defaults, descriptions. Creates no tool.",
)
@click.option(
    "--check",
    "check_format",
    default=None,
    metavar="FORMAT",
    help="Check the tools against what FORMAT's provider refuses (tool count, names, "
    "descriptions, schema caps); exit 1 on a violation.",
)
@click.option(
    "--tokens",
    "show_tokens",
    is_flag=True,
    help="Count each tool's definition in tokens (o200k_base) for --format "
    "(default openai), and the total. Needs toolplug[tokens].",
)
@click.option(
    "--native",
    is_flag=True,
    help="With --format: declare each tool that has a native form for that provider "
    "in it (anthropic: text_editor_20250728, bash_20250124; responses: apply_patch, "
    "shell) instead of as a function.",
)
@click.option(
    "--preset",
    default=None,
    metavar="NAME",
    help="Only the tools of this preset (a tool set per model family; see "
    "'toolplug presets'), exported in the forms the model's family takes.",
)
@click.option(
    "--model",
    default=None,
    metavar="MODEL",
    help="The model --preset chooses for (gpt-5.1, claude-sonnet-4-5, ...); without "
    "it, or for a model no family matches, the preset's default row.",
)
def tools(
    plugins: str | None,
    as_json: bool,
    fmt: str | None,
    strict: bool,
    workspace: Path | None,
    show_params: bool,
    check_format: str | None,
    show_tokens: bool,
    native: bool,
    preset: str | None,
    model: str | None,
) -> None:
    """List the enabled tools, or print their schemas in an export format.

    With --preset (and --model), only the preset's tools for that model's family, and
    the exports declare the tools the family takes natively in their native form.
    """
    from toolplug.arguments import describe_schema

    if show_params:
        if fmt is not None or check_format is not None or show_tokens or preset or model:
            _fail("--params lists params; it takes no --format, --check, --tokens or --preset")
        _list_params(plugins, as_json)
        return
    _check_tools_options(fmt, check_format, show_tokens, native=native, preset=preset, model=model)
    try:
        registry, created, problems, toolset = _tools_to_list(plugins, workspace, preset, model)
    except ToolError as exc:
        _fail(str(exc))
        return
    with toolset:
        for problem in problems:
            _echo(f"warning: {problem}", err=True)
        for wanted in (fmt, check_format):
            if wanted is not None and wanted not in toolset.formats:
                _fail(f"unknown format {wanted!r}; choose one of {', '.join(toolset.formats)}")
        if check_format is not None or show_tokens:
            _check_or_count(toolset, check_format, fmt, as_json, strict)
            return
        if as_json or fmt:
            exported = _export_all(toolset, fmt or "mcp", strict, native)
            click.echo(json.dumps(exported, indent=2))
            return
        if toolset.preset is not None:
            _echo(_preset_header(toolset.preset))
        aliases: dict[str, list[str]] = {}
        for alias, target in registry.aliases().items():
            aliases.setdefault(target, []).append(alias)
        for entry, tool in created:
            also = f"  (also: {', '.join(aliases[tool.name])})" if tool.name in aliases else ""
            dist = entry.source and entry.source.distribution
            source = f"  [{dist} {entry.source.version}]" if dist else ""
            _echo(f"{tool.name}{also}{source}")
            if tool.origin:
                _echo(f"    from {tool.origin}")
            first = (tool.description or "").strip().splitlines()[:1]
            if first:
                _echo(f"    {first[0]}")
            _echo(textwrap.indent(describe_schema(tool.input_schema()), "  "))
        _list_factories(registry, created)


def _tools_to_list(
    plugins: str | None, workspace: Path | None, preset: str | None, model: str | None
) -> tuple[Any, list[tuple[Any, Any]], list[str], Any]:
    """What ``tools`` lists: every enabled tool, or a preset's (see :func:`_load_preset`)."""
    if preset is not None:
        return _load_preset(plugins, workspace, preset, model)
    from toolplug.toolset import Toolset

    registry, created, problems = _load_all(plugins, workspace)
    return registry, created, problems, Toolset((t for _, t in created), formats=registry.formats)


def _load_preset(
    plugins: str | None, workspace: Path | None, name: str, model: str | None
) -> tuple[Any, list[tuple[Any, Any]], list[str], Any]:
    """The tools of a preset for a model: the registry, (registration, tool) pairs,
    the problems met (broken plugins, preset rows left out) and the toolset."""
    from toolplug.presets import Preset
    from toolplug.registry import ToolRegistry
    from toolplug.toolset import Toolset

    registry = ToolRegistry.from_plugins(plugins)
    toolset = Toolset.load(preset=Preset(name, model), registry=registry, workspace=workspace)
    made_by = toolset.factories()
    created = [(registry.get(made_by[tool.name]), tool) for tool in toolset.values()]
    # The preset table's problems are logged by the load (the toolplug logger).
    problems = [f"plugin {r.name} is broken: {r.error}" for r in registry.reports if r.error]
    return registry, created, problems, toolset


def _preset_header(choice: Any) -> str:
    """The lines above a preset's tools: its family, and the native forms it takes."""
    lines = [choice.describe()]
    for format, names in choice.row.native.items():
        lines.append(f"  native in {format}: {', '.join(names)}")
    if not choice.row.native:
        lines.append("  native: none (every tool is a function tool)")
    return "\n".join(lines) + "\n"


def _check_tools_options(
    fmt: str | None,
    check_format: str | None,
    show_tokens: bool,
    *,
    native: bool = False,
    preset: str | None = None,
    model: str | None = None,
) -> None:
    """Refuse option mixes ``tools`` cannot honour; a missing tokenizer, before loading."""
    if native and fmt is None:
        _fail("--native chooses the form of an export: give --format too")
    if model is not None and preset is None:
        _fail("--model chooses the family of a preset: give --preset too")
    if check_format is not None and show_tokens:
        _fail("--check and --tokens are separate listings: give one")
    if check_format is not None and fmt is not None and fmt != check_format:
        _fail("--check names the format itself; leave out --format")
    if show_tokens:
        from toolplug.tokens import TokenizerMissing, _encoding

        try:
            _encoding()
        except TokenizerMissing as exc:
            _fail(str(exc))


def _check_or_count(
    toolset: Any, check_format: str | None, fmt: str | None, as_json: bool, strict: bool
) -> None:
    """``tools --check FORMAT`` (exit 1 on a violation) or ``tools --tokens``."""
    from toolplug.listing import render_tokens, render_violations

    if check_format is not None:
        text, status = render_violations(toolset, check_format, as_json, strict=strict)
        _echo(text, nl=False)
        sys.exit(status)
    _echo(render_tokens(toolset, fmt or "openai", as_json, strict=strict), nl=False)


def _list_factories(registry: Any, created: list[tuple[Any, Any]]) -> None:
    """The factories, apart from the tools: a factory (``mcp``) is no tool a model can
    call, it makes tools from its params (an MCP server's, from the MCP config)."""
    factories = [entry for entry in registry if entry.kind == "factory"]
    if not factories:
        return
    _echo("")
    _echo("Factories (not tools: each makes tools from its params; see --params):")
    for entry in factories:
        made = [tool.name for source, tool in created if source is entry]
        dist = entry.source and entry.source.distribution
        source = f"  [{dist} {entry.source.version}]" if dist else ""
        _echo(f"{entry.name}{source}")
        _echo(f"    made: {', '.join(made)}" if made else "    made no tool with these params")


def _list_params(plugins: str | None, as_json: bool) -> None:
    """Every registered tool with the params its ``create`` (or factory) takes."""
    from toolplug.arguments import describe_schema
    from toolplug.registry import ToolRegistry

    try:
        registry = ToolRegistry.from_plugins(plugins)
    except ToolError as exc:
        _fail(str(exc))
        return
    for report in registry.reports:
        if report.status == "broken":
            _echo(f"warning: plugin {report.name} is broken: {report.error}", err=True)
    listed = [(entry, entry.params.schema) for entry in registry]
    if as_json:
        rows = [
            {
                "name": entry.name,
                "kind": entry.kind,
                "distribution": entry.source.distribution if entry.source else None,
                "version": entry.source.version if entry.source else None,
                "params": schema,
            }
            for entry, schema in listed
        ]
        _echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for entry, schema in listed:
        source = entry.source
        if source is not None and source.distribution:
            _echo(f"{entry.name}  [{source.distribution} {source.version}]")
        else:
            _echo(entry.name)
        properties: dict[str, Any] = schema["properties"]
        if not properties:
            takes_any = schema["additionalProperties"]
            _echo("    any params (it takes **params)" if takes_any else "    (no params)")
            continue
        for line, prop in zip(describe_schema(schema).splitlines(), properties.values()):
            about = _first_sentence(prop.get("description", ""))
            _echo(f"  {line}: {about}" if about else f"  {line}")
        if schema["additionalProperties"]:
            _echo("    ... and any other params (it takes **params)")


def _first_sentence(text: str, limit: int = 110) -> str:
    """The start of a description, for one line of a listing."""
    text = " ".join(text.replace("``", "`").split())
    end = text.find(". ")
    text = text if end < 0 else text[: end + 1]
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# -- presets -----------------------------------------------------------------------------


@cli.command()
@plugins_option
@json_option
@click.option(
    "--model",
    default=None,
    metavar="MODEL",
    help="Also say which family MODEL is in, and which row of each preset it gets.",
)
def presets(plugins: str | None, as_json: bool, model: str | None) -> None:
    """List the presets (tool sets per model family), the families and their rows.

    A family's models are globs over model names, tried in the order listed; the
    first that matches is the model's family, and 'default' matches every model.
    """
    from toolplug.registry import ToolRegistry

    try:
        table = ToolRegistry.from_plugins(plugins).presets
    except ToolError as exc:
        _fail(str(exc))
        return
    for problem in table.problems:
        _echo(f"warning: {problem}", err=True)
    if as_json:
        _echo(json.dumps(_presets_json(table, model), indent=2, ensure_ascii=False))
        return
    _echo(_render_presets(table, model), nl=False)


def _presets_json(table: Any, model: str | None) -> dict[str, Any]:
    """The table as JSON: presets, families in matching order, rows, problems."""
    found: dict[str, Any] = {
        "presets": [{"name": n, "description": d} for n, d in table.presets().items()],
        "families": [
            {**f.model_dump(mode="json"), "source": table.source("family", f.name)}
            for f in table.families()
        ],
        "rows": [
            {**row.model_dump(mode="json"), "source": table.source("row", _key(row))}
            for row in table.rows()
        ],
        "problems": table.problems,
    }
    if model is not None:
        found["model"] = {"name": model, "family": table.family_of(model).name}
    return found


def _key(row: Any) -> str:
    return f"{row.preset}/{row.family}"


def _render_presets(table: Any, model: str | None) -> str:
    """The table for a person: presets, families, then each preset's rows."""
    out = ["Presets:"]
    for name, description in table.presets().items():
        out.append(f"  {name:<12} {description}".rstrip())
    out += ["", "Families (a model is in the first that matches):"]
    for family in table.families():
        source = table.source("family", family.name)
        added = "" if source == "toolplug" else f"  [{source}]"
        out.append(f"  {family.name:<12} {family.title}: {', '.join(family.models)}{added}")
    used = {}  # preset -> the row the model gets, marked *
    if model is not None:
        from toolplug.presets import Preset

        used = {name: table.choose(Preset(name, model)).row for name in table.presets()}
        out += ["", f"{model} is in the family {table.family_of(model).name} (* its rows)."]
    for name in table.presets():
        out += ["", f"{name}:"]
        for row in table.rows(name):
            source = table.source("row", _key(row))
            added = "" if source == "toolplug" else f"  [{source}]"
            mark = "*" if row is used.get(name) else " "
            out.append(f" {mark}{row.family:<12} {', '.join(row.tools)}{added}")
            for format, names in row.native.items():
                out.append(f"  {'':<12} native in {format}: {', '.join(names)}")
    return "\n".join(out) + "\n"


# -- call --------------------------------------------------------------------------------


def _parse_params(pairs: tuple[str, ...]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected key=value, got {pair!r}", param_hint="--param")
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


@cli.command(cls=OptionsCommand)
@click.argument("name")
@click.argument("arguments", default="{}")
@click.option(
    "--param",
    "-p",
    "param_pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="A param for the tool's factory (value parsed as JSON when it can be).",
)
@click.option("--workspace", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--timeout", type=float, default=None, help="Seconds before the call is abandoned.")
@click.option(
    "--exit-status",
    "pass_status",
    is_flag=True,
    help="Exit with the tool's own status: the observation's exit_code (a shell "
    "command's), else 1 for an error observation, else 0.",
)
@click.option(
    "--output-budget",
    type=click.IntRange(min=1),
    default=None,
    metavar="CHARS",
    help="Cut a result longer than CHARS characters to its head and tail; the whole "
    "is saved in a file the result names, left in place (docs/context.md).",
)
@plugins_option
@json_option
def call(
    name: str,
    arguments: str,
    param_pairs: tuple[str, ...],
    workspace: Path | None,
    timeout: float | None,
    pass_status: bool,
    output_budget: int | None,
    plugins: str | None,
    as_json: bool,
) -> None:
    """Call tool NAME once with JSON ARGUMENTS and print its observation.

    NAME is a registered tool name or alias, a tool's name as 'toolplug tools' shows
    it (get_current_time, which the mcp factory creates), or FACTORY/TOOL for one
    factory's tool (mcp/get_current_time). ARGUMENTS '-' reads them from stdin.

    The installed guard plugins add their options (toolplug-policy: --policy FILE, a
    permission policy, also read from TOOLPLUG_POLICY; a call the policy asks about is
    put to you on the terminal, and refused when there is none).

    \b
    Exit status:
      0  success
      1  the tool returned an error observation (a refusal included)
      2  a usage error
    With --exit-status, the tool's own status instead: its observation's exit_code
    when it has one (bash's: 'false' exits 1), else 1 for an error, else 0.
    """
    from toolplug.context import ToolContext
    from toolplug.model import ToolCall
    from toolplug.registry import ToolRegistry

    if arguments == "-":
        arguments = sys.stdin.read()
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError as exc:
        _fail(f"ARGUMENTS is not valid JSON: {exc}")
        return
    except (RecursionError, ValueError) as exc:  # too deep, or an integer too long
        from toolplug.arguments import unreadable

        _fail(f"ARGUMENTS cannot be read: {unreadable(exc) or exc}")
        return
    registered = name.partition("/")[0]
    params = _parse_params(param_pairs)
    try:
        registry = ToolRegistry.from_plugins(plugins, tools=[registered], settings=given_settings())
        # The tool is closed when its one call returns: a tool that keeps work going
        # between calls (bash's background processes) can say so.
        one_call = {"one_call": True}
        context = (
            ToolContext(workspace=workspace, extra=one_call)
            if workspace
            else ToolContext(extra=one_call)
        )
        found = registry.find(name, params, context)
    except ToolError as exc:
        _fail(str(exc))  # an unknown name: the factories are named apart from the tools
        return
    with found as tool, _live_progress(name):
        if output_budget is not None:
            from toolplug.budget import Budget, Spill

            # The process ends with the call: the spill file is kept for the reader.
            tool._spill = Spill(Budget(chars=output_budget, keep=True))
        observation = tool.call(parsed, timeout=timeout)
    if as_json:
        from toolplug._text import json_for_terminal
        from toolplug.formats import default_formats

        result = default_formats()["mcp"].render_result(ToolCall("", name), observation)
        _echo(json_for_terminal(json.dumps(result, indent=2, ensure_ascii=False)))
    else:
        from toolplug._text import safe_text
        from toolplug.content import block_as_text

        # A file's name or contents must not drive the terminal: controls shown escaped.
        _echo(safe_text("\n".join(block_as_text(b) for b in observation.llm_content)))
    sys.exit(_exit_status(observation) if pass_status else int(observation.is_error))


def _live_progress(tool: str) -> Any:
    """While a call runs, what the tool reports as progress (bash: the output of a long
    command as it arrives) goes to stderr, when stderr is a terminal: a person sees a
    long command work. The result on stdout is unchanged (scripts read that)."""
    from contextlib import nullcontext

    if not sys.stderr.isatty():
        return nullcontext()
    from toolplug.interaction import Handlers, Progress, calling

    def show(event: Progress) -> None:
        from toolplug._text import safe_text

        if event.message:
            sys.stderr.write(safe_text(event.message))
            sys.stderr.flush()

    return calling(Handlers(on_progress=show), tool)


def _exit_status(observation: Any) -> int:
    """The tool's own status, for ``call --exit-status``.

    An observation with an integer ``exit_code`` field (a shell command's, as bash's
    has) passes it on: 1 to 255 as is, a signal's negative number as a shell gives it
    (128 + the signal). Otherwise an error observation is 1 and any other 0.
    """
    code = getattr(observation, "exit_code", None)
    if isinstance(code, int) and not isinstance(code, bool):
        code = 128 - code if code < 0 else code
        if 0 < code <= 255:
            return code
    return 1 if observation.is_error else 0


# -- install / uninstall ------------------------------------------------------------------


def _pip(args: list[str]) -> None:
    """pip in the environment toolplug runs in (``uv pip`` where pip is missing)."""
    import subprocess

    try:
        import pip  # noqa: F401

        command = [sys.executable, "-m", "pip", *args]
    except ImportError:
        command = ["uv", "pip", *args, "--python", sys.executable]
        if args[0] == "uninstall":
            command = [c for c in command if c != "-y"]
    sys.exit(subprocess.call(command))


@cli.command()
@click.argument("packages", nargs=-1, required=True)
@click.option("-U", "--upgrade", is_flag=True, help="Upgrade the packages.")
@click.option("-e", "--editable", is_flag=True, help="Install a local folder in editable mode.")
def install(packages: tuple[str, ...], upgrade: bool, editable: bool) -> None:
    """Install plugins (and anything else) with pip into toolplug's environment."""
    args = ["install", *(["--upgrade"] if upgrade else [])]
    for package in packages:
        args += ["-e", package] if editable else [package]
    _pip(args)


@cli.command()
@click.argument("packages", nargs=-1, required=True)
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
def uninstall(packages: tuple[str, ...], yes: bool) -> None:
    """Uninstall plugins with pip from toolplug's environment."""
    _pip(["uninstall", *packages, *(["-y"] if yes else [])])
