"""The hooks a toolplug plugin can implement.

A plugin is a module (or any object) named by an entry point in the ``toolplug`` group.
It implements hooks with functions marked by `hookimpl` whose names and
parameters match the specifications below; a hook implementation may accept any subset
of the parameters, in any order. Each docstring here is that hook's reference page.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from toolplug.definition import ToolDefinition
    from toolplug.formats import ToolFormat
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


@hookspec
def tool_call(
    tool: ToolDefinition[Any, Any], action: Action
) -> Generator[None, Observation, Observation] | Observation | None:
    """Wrap every call of every tool: for policy, audit logging, tracing.

    Implement it as a wrapper, ``@hookimpl(wrapper=True)``, a generator that yields
    once: the code before ``yield`` runs before the tool, ``yield`` gives back the
    `Observation`, and the wrapper returns the observation to pass on
    (the same one, or a replacement). Example:

    ```python
    @hookimpl(wrapper=True)
    def tool_call(tool, action):
        started = time.perf_counter()
        observation = yield
        log.info("%s took %.3fs", tool.name, time.perf_counter() - started)
        return observation
    ```

    To refuse a call, return an observation *before* yielding (the tool then does not
    run): ``return Observation.error("writes are not allowed here")``. A plain
    (non-wrapper) implementation that returns an observation refuses the same way;
    returning ``None`` lets the call go on.

    The hook runs for calls through `ToolDefinition.call` and `ToolDefinition.acall`
    of tools resolved through a registry that loaded the plugin, after the arguments
    were validated: ``action`` is the typed action. Exceptions raised by an
    implementation become error observations.
    """
