"""Anthropic Messages: ``tools`` with ``input_schema``, ``tool_use`` blocks in,
``tool_result`` blocks out (text and images), all of a turn's results in one user message.

The API is stricter than the SDK's types: it refuses an empty text block ("text content
blocks must be non-empty"), so empty texts are left out and a result with nothing to
show says so in words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolplug.content import ImageContent, block_as_text
from toolplug.formats.base import NO_OUTPUT, SKIP, NotACall, ToolFormat, validate_sdk_type
from toolplug.model import Observation, ToolCall


class AnthropicFormat(ToolFormat):
    """Anthropic Messages."""

    name = "anthropic"
    title = "Anthropic Messages"

    def export_tool(
        self, tool: Any, *, name: str | None = None, security_risk: bool = False, **options: Any
    ) -> dict[str, Any]:
        return {
            "name": name or tool.name,
            "description": tool.description,
            "input_schema": tool.input_schema(security_risk=security_risk),
        }

    def unwrap(self, data: Any) -> list[Any] | None:
        if not isinstance(data, dict) or "content" not in data:
            return None  # a Gemini Content has "parts" and a role: not a message here
        if "role" in data or data.get("type") == "message":
            content = data["content"]  # a message; one with text content holds no call
            if isinstance(content, list):
                return list(content)
            return [] if isinstance(content, str) else None
        return None

    def read_call(self, item: Any, index: int) -> ToolCall | NotACall | None:
        kind = item.get("type")
        if kind == "tool_use":
            return ToolCall(item["id"], item["name"], item.get("input"))
        if kind in ("text", "thinking", "redacted_thinking", "server_tool_use"):
            return SKIP
        return None

    def render_result(self, call: ToolCall, observation: Observation) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = []
        for block in observation.llm_content:
            if isinstance(block, ImageContent):
                source = {"type": "base64", "media_type": block.mimeType, "data": block.data}
                blocks.append({"type": "image", "source": source})
            else:
                text = block_as_text(block)
                if text:
                    blocks.append({"type": "text", "text": text})
        if not blocks:
            blocks.append({"type": "text", "text": NO_OUTPUT})
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id, "content": blocks}
        if observation.is_error:
            result["is_error"] = True
        return result

    def results_message(self, results: Sequence[Any]) -> dict[str, Any]:
        return {"role": "user", "content": list(results)}

    def check_tool(self, exported: dict[str, Any]) -> None:
        validate_sdk_type(exported, "anthropic.types", "ToolParam", "anthropic", self.title)

    def check_result(self, result: Any, observation: Observation) -> None:
        validate_sdk_type(
            result, "anthropic.types", "ToolResultBlockParam", "anthropic", self.title
        )
        for block in result["content"]:
            if block["type"] == "text":
                assert block["text"], "the API refuses empty text blocks"
