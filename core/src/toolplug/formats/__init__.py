"""Provider formats: one module per provider, one small interface, open to plugins.

A :class:`ToolFormat` exports a tool's declaration, reads the provider's tool calls,
and renders an observation as its tool result. The core's formats are:

========== ==========================================================================
name       provider
========== ==========================================================================
openai     OpenAI Chat Completions (and the APIs that copy it)
responses  the OpenAI Responses API
anthropic  Anthropic Messages
gemini     Google Gemini (``functionDeclarations``, ``functionCall``/``functionResponse``)
bedrock    AWS Bedrock Converse (``toolSpec``, ``toolUse``/``toolResult``)
mcp        the Model Context Protocol's ``Tool`` and ``CallToolResult``
toolplug   :class:`~toolplug.ToolCall` in, ``(call, observation)`` pairs out
========== ==========================================================================

They register through the ``register_formats`` hook, as a plugin's formats do;
``Toolset.export``, dispatch, ``toolplug tools --format`` and the conformance suite all
read them from a :class:`FormatRegistry`. :func:`default_formats` is the core's alone.

A tool may also have a :class:`NativeForm` per format: the provider's own trained
declaration (Anthropic's ``bash_20250124``), exported with ``Toolset.export(format,
native=True)`` and read back by dispatch (see :mod:`toolplug.formats.forms`).
"""

from __future__ import annotations

import functools
from typing import Any

from toolplug.errors import FormatError
from toolplug.formats.base import NO_OUTPUT, SKIP, NotACall, ToolFormat, plain, result_text
from toolplug.formats.forms import NativeForm, native_tools
from toolplug.formats.registry import FormatRegistry

__all__ = [
    "NO_OUTPUT",
    "SKIP",
    "FormatRegistry",
    "NativeForm",
    "NotACall",
    "ToolFormat",
    "default_formats",
    "export_tool",
    "fill_formats",
    "native_tools",
    "plain",
    "render",
    "result_text",
]


def fill_formats(registry: FormatRegistry, pm: Any) -> list[tuple[str, BaseException]]:
    """Call every plugin's ``register_formats`` into ``registry``, plugin by plugin.

    Returns ``(plugin name, error)`` for each plugin whose hook raised anything,
    ``SystemExit`` included (none of its formats is added), and for each format refused
    (a taken name: the first keeps it). The caller tells the user's Ctrl-C apart
    (``toolplug.plugins.LoadGuard``).
    """
    failures: list[tuple[str, BaseException]] = []
    hook = pm.hook.register_formats
    for impl in hook.get_hookimpls():  # registration order: the core first, then plugins
        added: list[ToolFormat] = []
        try:
            impl.function(*[added.append for _ in impl.argnames])
        except BaseException as exc:  # sys.exit() too; the caller guards against Ctrl-C
            failures.append((impl.plugin_name, exc))
            continue
        for fmt in added:
            try:
                registry.register(fmt, source=f"plugin '{impl.plugin_name}'")
            except FormatError as exc:
                failures.append((impl.plugin_name, exc))
    return failures


@functools.lru_cache(maxsize=1)
def default_formats() -> FormatRegistry:
    """The core's formats, registered through the hook as a plugin's would be."""
    import pluggy

    from toolplug import hookspecs
    from toolplug.formats import core

    pm = pluggy.PluginManager("toolplug")
    pm.add_hookspecs(hookspecs)
    pm.register(core, name=core.NAME)
    registry = FormatRegistry()
    for plugin, exc in fill_formats(registry, pm):
        raise RuntimeError(f"the core's formats failed to register: {plugin}: {exc}")
    return registry


def export_tool(tool: Any, format: str, **options: Any) -> dict[str, Any]:
    """One tool's declaration in one of the core's formats, under a provider-safe name.

    ``Toolset.export`` is the usual way (every tool at once, names kept apart); this is
    for a single tool: ``export_tool(think_tool, "anthropic")``.
    """
    from toolplug.names import provider_name

    fmt = default_formats()[format]
    name = provider_name(tool.name) if fmt.maps_names else tool.name
    return fmt.export_tool(tool, name=name, **options)


def render(observation: Any, format: str, call_id: str = "call_1", name: str = "") -> Any:
    """One observation as a tool result in one of the core's formats.

    ``call_id`` is the provider's id of the call being answered, ``name`` the tool's
    name as the model called it (Gemini echoes it).
    """
    from toolplug.model import ToolCall

    return default_formats()[format].render_result(ToolCall(call_id, name), observation)
