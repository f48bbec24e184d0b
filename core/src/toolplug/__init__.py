"""toolplug: typed tools for LLM agents, and the plugin system that finds them.

The public names are imported lazily, so that ``import toolplug`` (and the
``toolplug plugins`` command) stay fast: pydantic is loaded with the first tool.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    "hookimpl": "toolplug.hookspecs",
    "Action": "toolplug.model",
    "Observation": "toolplug.model",
    "ToolAnnotations": "toolplug.model",
    "TextContent": "toolplug.content",
    "ImageContent": "toolplug.content",
    "AudioContent": "toolplug.content",
    "ResourceLink": "toolplug.content",
    "EmbeddedResource": "toolplug.content",
    "TextResourceContents": "toolplug.content",
    "BlobResourceContents": "toolplug.content",
    "ContentBlock": "toolplug.content",
    "ToolExecutor": "toolplug.definition",
    "ToolDefinition": "toolplug.definition",
    "ToolContext": "toolplug.context",
    "Tool": "toolplug.context",
    "ToolRegistry": "toolplug.registry",
    "Toolset": "toolplug.toolset",
    "ToolError": "toolplug.errors",
    "UnknownToolError": "toolplug.errors",
    "ToolParamsError": "toolplug.errors",
    "ToolConflictError": "toolplug.errors",
    "PluginSelectionError": "toolplug.errors",
    "ArgumentError": "toolplug.arguments",
    "ToolCall": "toolplug.dispatch",
    "LatentObservation": "toolplug.dispatch",
    "DispatchError": "toolplug.dispatch",
    "tool_result_message": "toolplug.dispatch",
    "ComposeError": "toolplug.compose",
    "ComposedResult": "toolplug.compose",
}

__all__ = [
    "__version__",
    "hookimpl",
    "Action",
    "Observation",
    "ToolAnnotations",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "ResourceLink",
    "EmbeddedResource",
    "TextResourceContents",
    "BlobResourceContents",
    "ContentBlock",
    "ToolExecutor",
    "ToolDefinition",
    "ToolContext",
    "Tool",
    "ToolRegistry",
    "Toolset",
    "ToolError",
    "UnknownToolError",
    "ToolParamsError",
    "ToolConflictError",
    "PluginSelectionError",
    "ArgumentError",
    "ToolCall",
    "LatentObservation",
    "DispatchError",
    "tool_result_message",
    "ComposeError",
    "ComposedResult",
]


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
    from toolplug.arguments import ArgumentError
    from toolplug.compose import ComposedResult, ComposeError
    from toolplug.content import (
        AudioContent,
        BlobResourceContents,
        ContentBlock,
        EmbeddedResource,
        ImageContent,
        ResourceLink,
        TextContent,
        TextResourceContents,
    )
    from toolplug.context import Tool, ToolContext
    from toolplug.definition import ToolDefinition, ToolExecutor
    from toolplug.dispatch import DispatchError, LatentObservation, ToolCall, tool_result_message
    from toolplug.errors import (
        PluginSelectionError,
        ToolConflictError,
        ToolError,
        ToolParamsError,
        UnknownToolError,
    )
    from toolplug.hookspecs import hookimpl
    from toolplug.model import Action, Observation, ToolAnnotations
    from toolplug.registry import ToolRegistry
    from toolplug.toolset import Toolset
