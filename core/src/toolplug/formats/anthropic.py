"""Anthropic Messages: ``tools`` with ``input_schema``, ``tool_use`` blocks in,
``tool_result`` blocks out (text and images), all of a turn's results in one user message.

The API is stricter than the SDK's types: it refuses an empty text block ("text content
blocks must be non-empty"), so empty texts are left out and a result with nothing to
show says so in words.

Tool search: deferred tools carry ``"defer_loading": true`` and the tool search tool is
added (``tool_search_tool_bm25_20251119`` or ``tool_search_tool_regex_20251119``). The
API runs the search: the model's turn then holds a ``server_tool_use`` block and a
``tool_search_tool_result`` block whose ``tool_reference`` blocks name the tools it
loaded. Neither is a call to run; the references mark the tools revealed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
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

    searches_tools = True

    #: The tool search tool's declaration, by search kind.
    SEARCH_TOOLS: dict[str, dict[str, str]] = {
        "bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
        "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
    }

    def export_deferred(
        self,
        tools: Sequence[tuple[str, Any]],
        deferred: Collection[str],
        *,
        search: str = "bm25",
        groups: Mapping[str, str] | None = None,
        **options: Any,
    ) -> list[dict[str, Any]]:
        exported = []
        for name, tool in tools:
            declared = self.export_tool(tool, name=name, **options)
            if name in deferred:
                declared["defer_loading"] = True
            exported.append(declared)
        exported.append(dict(self.SEARCH_TOOLS[search]))
        return exported

    def revealed(self, item: dict[str, Any]) -> list[str]:
        if item.get("type") != "tool_search_tool_result":
            return []
        content = item.get("content")
        if not isinstance(content, dict):
            return []  # an error result (tool_search_tool_result_error) loads nothing
        references = content.get("tool_references") or []
        return [
            ref["tool_name"]
            for ref in references
            if isinstance(ref, dict) and ref.get("type") == "tool_reference"
        ]

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
        if kind in (
            "text",
            "thinking",
            "redacted_thinking",
            "server_tool_use",
            "tool_search_tool_result",
        ):
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
        kind = exported.get("type")
        if kind == "tool_search_tool_bm25_20251119":
            name = "ToolSearchToolBm25_20251119Param"
        elif kind == "tool_search_tool_regex_20251119":
            name = "ToolSearchToolRegex20251119Param"
        else:
            name = "ToolParam"
        validate_sdk_type(exported, "anthropic.types", name, "anthropic", self.title)

    def check_result(self, result: Any, observation: Observation) -> None:
        validate_sdk_type(
            result, "anthropic.types", "ToolResultBlockParam", "anthropic", self.title
        )
        for block in result["content"]:
            if block["type"] == "text":
                assert block["text"], "the API refuses empty text blocks"
