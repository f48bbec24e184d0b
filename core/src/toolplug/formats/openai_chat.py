"""OpenAI Chat Completions: ``tools`` entries, ``tool_calls``, ``{"role": "tool"}`` replies.

The reply takes text only: images and other blocks become a short note in the text.
"""

from __future__ import annotations

from typing import Any

from toolplug.formats.base import NotACall, ToolFormat, plain, result_text, validate_sdk_type
from toolplug.model import Observation, ToolCall
from toolplug.schema import check_openai_strict, to_strict


def openai_parameters(tool: Any, *, strict: bool, security_risk: bool) -> dict[str, Any]:
    """A tool's input schema as both OpenAI APIs take it (strict mode's rules if asked)."""
    params: dict[str, Any] = tool.input_schema(security_risk=security_risk)
    return to_strict(params) if strict else params


class OpenAIChatFormat(ToolFormat):
    """OpenAI Chat Completions (and the many APIs that copy it)."""

    name = "openai"
    title = "OpenAI Chat Completions"
    options = ("strict",)

    def export_tool(
        self,
        tool: Any,
        *,
        name: str | None = None,
        security_risk: bool = False,
        strict: bool = False,
        **options: Any,
    ) -> dict[str, Any]:
        function = {
            "name": name or tool.name,
            "description": tool.description,
            "parameters": openai_parameters(tool, strict=strict, security_risk=security_risk),
            "strict": strict,
        }
        return {"type": "function", "function": function}

    def unwrap(self, data: Any) -> list[Any] | None:
        if not isinstance(data, dict):
            return None
        if isinstance(data.get("choices"), list) and data["choices"]:  # a whole ChatCompletion
            choice = plain(data["choices"][0])
            data = plain(choice.get("message")) if isinstance(choice, dict) else None
            if not isinstance(data, dict):
                return None  # not a completion after all: read as an item (and refused)
        if "tool_calls" in data:  # an assistant message
            return list(data["tool_calls"] or [])
        return None

    def read_call(self, item: Any, index: int) -> ToolCall | NotACall | None:
        kind = item.get("type")
        if kind == "function" or (kind is None and isinstance(item.get("function"), dict)):
            function = plain(item["function"])
            return ToolCall(item["id"], function["name"], function.get("arguments"))
        return None

    def render_result(self, call: ToolCall, observation: Observation) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": call.id, "content": result_text(observation)}

    def check_tool(self, exported: dict[str, Any]) -> None:
        validate_sdk_type(
            exported, "openai.types.chat", "ChatCompletionFunctionToolParam", "openai", self.title
        )
        function = exported["function"]
        if function.get("strict"):
            check_openai_strict(function["parameters"])

    def check_result(self, result: Any, observation: Observation) -> None:
        validate_sdk_type(
            result, "openai.types.chat", "ChatCompletionToolMessageParam", "openai", self.title
        )
        assert isinstance(result["content"], str) and result["content"]
