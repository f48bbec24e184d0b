"""toolplug: typed tools for LLM agents, and the plugin system that finds them.

The public names are imported lazily, so that ``import toolplug`` (and the
``toolplug plugins`` command) stay fast: pydantic is loaded with the first tool.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: The public names, by the module that defines them: the one list of them. The
#: ``TYPE_CHECKING`` imports below mirror it for type checkers (a test keeps the two
#: equal). Besides these, the documented public modules are ``toolplug.formats``,
#: ``toolplug.loop``, ``toolplug.testing`` and ``toolplug.hookspecs``.
_PUBLIC: dict[str, tuple[str, ...]] = {
    "toolplug.hookspecs": ("hookimpl",),
    "toolplug.model": ("Action", "Observation", "ToolAnnotations"),
    "toolplug.content": (
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
        "TextResourceContents",
        "BlobResourceContents",
        "ContentBlock",
    ),
    "toolplug.definition": ("ToolExecutor", "ToolDefinition"),
    "toolplug.context": ("ToolContext", "Tool"),
    "toolplug.registry": ("ToolRegistry",),
    "toolplug.toolset": ("Toolset",),
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
    ),
    "toolplug.arguments": ("parse_arguments", "describe_schema"),
    "toolplug.schema": ("SECURITY_RISK_FIELD", "with_security_risk"),
    "toolplug.names": ("NameMap", "provider_name", "unique_name"),
    "toolplug.dispatch": ("ToolCall", "LatentObservation", "tool_result_message"),
    "toolplug.compose": ("ComposedResult",),
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
    )
    from toolplug.arguments import (
        parse_arguments as parse_arguments,
    )
    from toolplug.compose import ComposedResult as ComposedResult
    from toolplug.content import (
        AudioContent as AudioContent,
    )
    from toolplug.content import (
        BlobResourceContents as BlobResourceContents,
    )
    from toolplug.content import (
        ContentBlock as ContentBlock,
    )
    from toolplug.content import (
        EmbeddedResource as EmbeddedResource,
    )
    from toolplug.content import (
        ImageContent as ImageContent,
    )
    from toolplug.content import (
        ResourceLink as ResourceLink,
    )
    from toolplug.content import (
        TextContent as TextContent,
    )
    from toolplug.content import (
        TextResourceContents as TextResourceContents,
    )
    from toolplug.context import Tool as Tool
    from toolplug.context import ToolContext as ToolContext
    from toolplug.definition import ToolDefinition as ToolDefinition
    from toolplug.definition import ToolExecutor as ToolExecutor
    from toolplug.dispatch import (
        LatentObservation as LatentObservation,
    )
    from toolplug.dispatch import (
        ToolCall as ToolCall,
    )
    from toolplug.dispatch import (
        tool_result_message as tool_result_message,
    )
    from toolplug.errors import (
        ArgumentError as ArgumentError,
    )
    from toolplug.errors import (
        ComposeError as ComposeError,
    )
    from toolplug.errors import (
        DispatchError as DispatchError,
    )
    from toolplug.errors import (
        FormatError as FormatError,
    )
    from toolplug.errors import (
        PluginSelectionError as PluginSelectionError,
    )
    from toolplug.errors import (
        SchemaError as SchemaError,
    )
    from toolplug.errors import (
        ToolConflictError as ToolConflictError,
    )
    from toolplug.errors import (
        ToolError as ToolError,
    )
    from toolplug.errors import (
        ToolParamsError as ToolParamsError,
    )
    from toolplug.errors import (
        UnknownToolError as UnknownToolError,
    )
    from toolplug.hookspecs import hookimpl as hookimpl
    from toolplug.model import (
        Action as Action,
    )
    from toolplug.model import (
        Observation as Observation,
    )
    from toolplug.model import (
        ToolAnnotations as ToolAnnotations,
    )
    from toolplug.names import (
        NameMap as NameMap,
    )
    from toolplug.names import (
        provider_name as provider_name,
    )
    from toolplug.names import (
        unique_name as unique_name,
    )
    from toolplug.registry import ToolRegistry as ToolRegistry
    from toolplug.schema import (
        SECURITY_RISK_FIELD as SECURITY_RISK_FIELD,
    )
    from toolplug.schema import (
        with_security_risk as with_security_risk,
    )
    from toolplug.toolset import Toolset as Toolset
