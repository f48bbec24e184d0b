"""toolplug: typed tools for LLM agents, and the plugin system that finds them.

The public names are imported lazily, so that ``import toolplug`` (and the
``toolplug plugins`` command) stay fast: pydantic is loaded with the first tool.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.2.2"

#: The public names, by the module that defines them: the one list of them. The
#: ``TYPE_CHECKING`` imports below mirror it for type checkers (a test keeps the two
#: equal). Besides these, the documented public modules are ``toolplug.formats``,
#: ``toolplug.loop``, ``toolplug.interaction``, ``toolplug.testing``, ``toolplug.hookspecs``,
#: ``toolplug.guards`` and ``toolplug.guard_options``.
_PUBLIC: dict[str, tuple[str, ...]] = {
    "toolplug.hookspecs": ("hookimpl",),
    "toolplug.model": ("Action", "Observation", "ToolAnnotations", "ToolCall"),
    "toolplug.content": (
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
        "TextResourceContents",
        "BlobResourceContents",
        "ContentBlock",
        "printable",
        "safe_text",
    ),
    "toolplug.definition": ("ToolExecutor", "ToolDefinition", "tool"),
    "toolplug.context": ("ToolContext", "Tool"),
    "toolplug.registry": ("ToolRegistry",),
    "toolplug.toolset": ("Toolset", "ToolChange"),
    "toolplug.budget": ("Budget",),
    "toolplug.deferral": ("Deferral",),
    "toolplug.presets": ("Preset",),
    "toolplug.interaction": ("Handlers",),
    "toolplug.errors": (
        "ToolError",
        "ArgumentError",
        "UnknownToolError",
        "ToolParamsError",
        "ToolConflictError",
        "PluginSelectionError",
        "SchemaError",
        "FormatError",
        "DispatchError",
        "ComposeError",
        "LimitError",
        "LimitWarning",
        "PolicyError",
        "PresetError",
        "SamplingError",
    ),
    "toolplug.arguments": ("parse_arguments", "describe_schema"),
    "toolplug.schema": ("SECURITY_RISK_FIELD", "with_security_risk"),
    "toolplug.names": ("NameMap", "provider_name", "unique_name"),
    "toolplug.dispatch": ("LatentObservation", "tool_result_message"),
    "toolplug.compose": ("ComposedResult",),
    "toolplug.hidden": ("HiddenPaths", "hidden_paths", "hide_paths"),
}

_LAZY = {name: module for module, names in _PUBLIC.items() for name in names}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolplug' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    # `X as X`: an explicit re-export, for type checkers that forbid implicit ones.
    from toolplug.arguments import (
        describe_schema as describe_schema,
        parse_arguments as parse_arguments,
    )
    from toolplug.budget import Budget as Budget
    from toolplug.compose import ComposedResult as ComposedResult
    from toolplug.content import (
        AudioContent as AudioContent,
        BlobResourceContents as BlobResourceContents,
        ContentBlock as ContentBlock,
        EmbeddedResource as EmbeddedResource,
        ImageContent as ImageContent,
        ResourceLink as ResourceLink,
        TextContent as TextContent,
        TextResourceContents as TextResourceContents,
        printable as printable,
        safe_text as safe_text,
    )
    from toolplug.context import Tool as Tool, ToolContext as ToolContext
    from toolplug.deferral import Deferral as Deferral
    from toolplug.definition import (
        ToolDefinition as ToolDefinition,
        ToolExecutor as ToolExecutor,
        tool as tool,
    )
    from toolplug.dispatch import (
        LatentObservation as LatentObservation,
        tool_result_message as tool_result_message,
    )
    from toolplug.errors import (
        ArgumentError as ArgumentError,
        ComposeError as ComposeError,
        DispatchError as DispatchError,
        FormatError as FormatError,
        LimitError as LimitError,
        LimitWarning as LimitWarning,
        PluginSelectionError as PluginSelectionError,
        PolicyError as PolicyError,
        PresetError as PresetError,
        SamplingError as SamplingError,
        SchemaError as SchemaError,
        ToolConflictError as ToolConflictError,
        ToolError as ToolError,
        ToolParamsError as ToolParamsError,
        UnknownToolError as UnknownToolError,
    )
    from toolplug.hidden import (
        HiddenPaths as HiddenPaths,
        hidden_paths as hidden_paths,
        hide_paths as hide_paths,
    )
    from toolplug.hookspecs import hookimpl as hookimpl
    from toolplug.interaction import Handlers as Handlers
    from toolplug.model import (
        Action as Action,
        Observation as Observation,
        ToolAnnotations as ToolAnnotations,
        ToolCall as ToolCall,
    )
    from toolplug.names import (
        NameMap as NameMap,
        provider_name as provider_name,
        unique_name as unique_name,
    )
    from toolplug.presets import Preset as Preset
    from toolplug.registry import ToolRegistry as ToolRegistry
    from toolplug.schema import (
        SECURITY_RISK_FIELD as SECURITY_RISK_FIELD,
        with_security_risk as with_security_risk,
    )
    from toolplug.toolset import ToolChange as ToolChange, Toolset as Toolset
