"""The core's own formats, registered through the ``register_formats`` hook like any
plugin's: `toolplug.plugins.plugin_manager` registers this module before any plugin."""

from __future__ import annotations

from collections.abc import Callable

from toolplug.formats.anthropic import AnthropicFormat
from toolplug.formats.base import ToolFormat
from toolplug.formats.bedrock import BedrockFormat
from toolplug.formats.gemini import GeminiFormat
from toolplug.formats.mcp import MCPFormat
from toolplug.formats.native import ToolplugFormat
from toolplug.formats.openai_chat import OpenAIChatFormat
from toolplug.formats.openai_responses import OpenAIResponsesFormat
from toolplug.hookspecs import hookimpl

#: The name this plugin is registered under.
NAME = "toolplug.formats"


@hookimpl
def register_formats(register: Callable[[ToolFormat], None]) -> None:
    """Register OpenAI (both APIs), Anthropic, Gemini, Bedrock, MCP and toolplug's own."""
    for fmt in (
        OpenAIChatFormat(),
        OpenAIResponsesFormat(),
        AnthropicFormat(),
        GeminiFormat(),
        BedrockFormat(),
        MCPFormat(),
        ToolplugFormat(),
    ):
        register(fmt)
