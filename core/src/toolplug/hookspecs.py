"""The hooks a toolplug plugin can implement.

A plugin is a module (or any object) named by an entry point in the ``toolplug`` group.
It implements hooks with functions marked by `hookimpl` whose names and
parameters match the specifications below; a hook implementation may accept any subset
of the parameters, in any order. Each docstring here is that hook's reference page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from toolplug.context import ToolContext
    from toolplug.definition import ToolDefinition
    from toolplug.formats import ToolFormat
    from toolplug.guards import Options
    from toolplug.model import Action, Observation

hookspec = pluggy.HookspecMarker("toolplug")
"""Marker for toolplug's hook specifications (used in this module only)."""

hookimpl = pluggy.HookimplMarker("toolplug")
"""Marker for plugin hook implementations: ``@hookimpl def register_tools(register): ...``"""


@hookspec
def register_tools(register: Callable[..., None]) -> None:
    """Register the tools this plugin provides.

    Call ``register(tool, name=None, aliases=())`` once per tool. ``tool`` is one of:

    - a `ToolDefinition` instance, for a stateless tool (its ``name``
      is used unless ``name`` is given; such a tool takes no params);
    - a `ToolDefinition` subclass, for a stateful tool: the registry
      calls its ``create(context, **params)`` for every host session that uses it;
      pass ``name``;
    - a factory function ``factory(context, **params)`` returning one definition or a
      list of them, for tools whose set is only known at run time (an MCP server's);
      its ``__name__`` is used unless ``name`` is given.

    ``aliases`` are other names the tool answers to, such as the names a model was
    trained on. A name that two plugins register is reported as a conflict naming both
    distributions, and neither tool can be used by that name.

    Example:

    ```python
    @hookimpl
    def register_tools(register):
        register(think_tool)
        register(BashTool, name="bash")
    ```

    If this hook raises, the plugin is reported as broken and skipped; every other
    plugin keeps working.
    """


@hookspec
def register_formats(register: Callable[[ToolFormat], None]) -> None:
    """Register provider formats: how tools are declared to a provider, how its model's
    tool calls look, and how results go back.

    Call ``register(fmt)`` once per format, with an instance of a
    `toolplug.formats.ToolFormat` subclass whose ``name`` is new (the core's own are
    ``openai``, ``responses``, ``anthropic``, ``gemini``, ``bedrock``, ``mcp`` and
    ``toolplug``, registered through this same hook). A registered format works
    everywhere a format name is taken: ``Toolset.export(name)``, ``dispatch``
    (including detection of the calls' format), ``toolplug tools --format`` and the
    conformance suite's checks. A name registered twice keeps its first format, and the
    second plugin is reported as broken.

    Example, a host framework whose calls are ``{"tool": ..., "args": {...}}``:

    ```python
    from toolplug import ToolCall, hookimpl
    from toolplug.formats import ToolFormat, result_text

    class MyFormat(ToolFormat):
        name = "myframework"
        title = "My framework"

        def export_tool(self, tool, *, name=None, security_risk=False, **options):
            schema = tool.input_schema(security_risk=security_risk)
            return {"tool": name or tool.name, "schema": schema}

        def read_call(self, item, index):
            if "tool" in item and "args" in item:
                return ToolCall(str(index), item["tool"], item["args"])
            return None

        def render_result(self, call, observation):
            return {"tool": call.name, "result": result_text(observation)}

    @hookimpl
    def register_formats(register):
        register(MyFormat())
    ```

    If this hook raises, the plugin is reported as broken and none of its formats is
    registered.
    """


@hookspec
def register_presets(register: Callable[..., None]) -> None:
    """Add model families, presets and rows to the table of tool sets per model family.

    A preset is a named tool set (the core's ``coding``) whose tools and native forms
    depend on the model's family; `toolplug.presets` describes the table and
    docs/presets.md shows the core's. Call ``register(data)`` with a mapping (or a
    `toolplug.presets.PresetData`) of the same shape as the core's
    `toolplug.presets.CORE_TABLE`:

    - ``families``: new families, each ``{"name", "title", "models"}`` with
      ``models`` globs over model names (case-insensitive). Plugins' families are
      matched before the core's, so one can single out models of a core family;
    - ``presets``: new presets, name -> what the set is for;
    - ``rows``: ``{"preset", "family", "tools", "native", "note"}``: the registered
      tool names a family gets in a preset, and per export format those declared in
      their native form (``{"responses": ["apply_patch"]}``). A row may be for a core
      family or preset. Every preset needs a ``default`` row, the tools of every model
      no other row is for.

    One call is added whole or not at all. A family or preset name that is taken, or
    a (preset, family) row already given, refuses the call with an error naming both
    plugins: the first keeps it, and the error is shown by ``toolplug presets`` and
    logged when a preset is loaded. A row for an unknown family, or a preset with no
    ``default`` row, is left out and said so. If this hook raises, what its earlier
    ``register`` calls added stays, and the error is reported the same way.

    Example, Gemini models get the file editor and their own set for reviews:

    ```python
    from toolplug import hookimpl

    @hookimpl
    def register_presets(register):
        register({
            "families": [{"name": "gemini", "title": "Google Gemini", "models": ["gemini-*"]}],
            "presets": {"review": "Read and search code; change nothing."},
            "rows": [
                {"preset": "coding", "family": "gemini",
                 "tools": ["bash", "file_editor", "glob", "grep"]},
                {"preset": "review", "tools": ["glob", "grep", "think"]},
            ],
        })
    ```
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add subcommands to the ``toolplug`` command line.

    ``cli`` is the top-level `click.Group`; decorate functions with
    ``@cli.command()`` or add a group with ``@cli.group()``. Plugin commands are loaded
    only when a command that is not built in is asked for (or for ``--help``), so a
    plugin cannot slow down or break the built-in commands.

    Example:

    ```python
    @hookimpl
    def register_commands(cli):
        @cli.command()
        def hello():
            click.echo("hello")
    ```
    """


@hookspec(firstresult=True)
def tool_call(
    tool: ToolDefinition[Any, Any], action: Action, context: ToolContext | None, pending: Any
) -> Observation | None:
    """Wrap or refuse every call of every tool: for policy, audit logging, tracing.

    pluggy calls this hook around each call through `ToolDefinition.call` and
    `ToolDefinition.acall` of a tool resolved by a registry that loaded the plugin,
    after the arguments were validated: ``action`` is the typed action, ``tool`` the
    definition, ``context`` the `ToolContext` the tool was created with (its
    workspace and environment; ``None`` for a tool the registry did not create).
    ``pending`` is the call on its way, which toolplug's own implementation runs (no
    other implementation needs it). An implementation takes any subset of these
    arguments. It is a ``firstresult`` hook
    whose last plain implementation is toolplug's own, the one that runs the tool and
    returns its `Observation`.

    **To wrap a call**, write a wrapper. New style, ``@hookimpl(wrapper=True)``: the
    code before ``yield`` runs before the tool, ``yield`` gives the observation (or
    raises what an inner implementation raised), and the wrapper returns the
    observation to pass on, the same one or a replacement. Example:

    ```python
    import time
    from toolplug import hookimpl

    @hookimpl(wrapper=True)
    def tool_call(tool, action):
        started = time.perf_counter()
        observation = yield
        print(f"{tool.name} took {time.perf_counter() - started:.3f}s")
        return observation
    ```

    Old style, ``@hookimpl(hookwrapper=True)``, works as pluggy documents it too:
    ``outcome = yield`` gives a result object; ``outcome.get_result()`` is the
    observation and ``outcome.force_result(other)`` replaces it:

    ```python
    from toolplug import Observation, hookimpl

    @hookimpl(hookwrapper=True)
    def tool_call(tool, action):
        outcome = yield
        observation = outcome.get_result()
        text = observation.text.replace("hunter2", "*******")
        outcome.force_result(Observation.from_text(text))
    ```

    A wrapper must yield exactly once; it cannot stop the tool from running.

    **To refuse a call**, write a plain implementation that returns an observation
    (usually `Observation.error`) with the reason the model reads; the tool then does
    not run, and wrappers still see that observation. Return ``None`` to let the call
    go on. Mark it ``tryfirst=True`` so that it runs before other plugins' plain
    implementations (and so before anything they do):

    ```python
    from toolplug import Observation, hookimpl

    @hookimpl(tryfirst=True)
    def tool_call(tool, action):
        if not tool.read_only:
            return Observation.error("This session is read-only; use a read-only tool.")
        return None
    ```

    **To hide paths from a call** it lets go on (a ``grep`` over a directory that holds
    a file the implementation would refuse by name), a plain implementation calls
    `toolplug.hide_paths` with a predicate on absolute paths; tools that read over a
    directory (grep, glob) skip what `toolplug.hidden_paths` says is hidden, and say so.
    What is hidden holds for that one call.

    **Async calls.** pluggy calls hooks synchronously, so on the `ToolDefinition.acall`
    path the hook runs in a worker thread (context variables are copied into it); an
    async executor still runs on the caller's event loop, and a sync executor runs in
    that worker. Implementations are plain functions and generators either way (an
    ``async def`` implementation is refused when its plugin loads); keep them quick,
    or hand slow work to a thread of their own. To await something from an
    implementation (an async approver, a question to an MCP client), pass it to
    `toolplug.loop.run_awaitable`: it runs on the caller's event loop on the async
    path, and on toolplug's background loop on the sync path.

    **Timeouts** apply to the tool's run inside the hook, not to the implementations.

    **Errors.** An exception raised by an implementation (before or after ``yield``)
    becomes an error observation naming the plugin, for the model to read; the host is
    never interrupted. A wrapper may catch what ``yield`` raises and return an
    observation instead.
    """


@hookspec
def add_options(options: Options) -> None:
    """Declare the settings this plugin takes, the way pytest plugins add options.

    Call ``options.add(name, help=..., metavar="VALUE", env=None, file=False)`` once per
    setting (see `toolplug.guards.Options`). Each setting is then, with no more code:

    - a key of ``Toolset.load(settings={...})`` and
      ``ToolRegistry.from_plugins(settings={...})``;
    - an option of ``toolplug call`` and ``toolplug mcp serve`` (``--`` and the name
      with dashes), for a guard plugin (see `toolplug.guards`);
    - read from the environment variable ``env`` when it is not given.

    The values given reach this plugin's `load_guard` hook. A setting that no plugin
    declares is an error that lists the known ones. The core asks every installed guard
    plugin (without registering its other hooks) and every loaded plugin.

    Example, a guard with a setting ``max_calls`` (``--max-calls N`` on the command line):

    ```python
    from toolplug import hookimpl

    @hookimpl
    def add_options(options):
        options.add("max_calls", help="Refuse calls past this many.", metavar="N",
                    env="MY_GUARD_MAX_CALLS")
    ```
    """


@hookspec(firstresult=True)
def load_guard(settings: dict[str, Any], approver: Callable[..., Any] | None) -> object | None:
    """Apply the settings this plugin declared, and return what governs the calls.

    Called once per registry that is given one of this plugin's settings (see
    `add_options`): ``settings`` holds those the host gave, by name (as given: a
    command-line value of a ``file`` setting is a `pathlib.Path`, an environment
    variable's a string); ``approver`` is the host's callable for calls a guard should
    ask about (``approver(tool, action, reason) -> bool``, sync or async), or ``None``.

    Return a plugin object: an instance whose methods are marked ``@hookimpl`` and
    implement `tool_call` (to refuse, ask about, or log calls). toolplug registers it in
    that registry's plugin manager, so it governs that registry's tools and no others.
    Returning ``None`` is an error the host sees: the settings were given for nothing.

    Raise `toolplug.PolicyError` for settings that cannot be applied (the message names
    the file, the line and the problem): the load fails, and no tool is made available
    without the guard the user asked for. The ``toolplug-policy`` plugin implements
    this hook for its ``policy`` setting.

    Example, a setting ``read_only`` that refuses every tool not marked read-only:

    ```python
    from toolplug import Observation, hookimpl

    class ReadOnly:
        @hookimpl(tryfirst=True)
        def tool_call(self, tool):
            if not tool.read_only:
                return Observation.error(f"'{tool.name}' may change things; refused.")
            return None

    @hookimpl
    def add_options(options):
        options.add("read_only", help="Refuse every tool that may change things.")

    @hookimpl
    def load_guard(settings):
        return ReadOnly() if settings.get("read_only") else None
    ```
    """
