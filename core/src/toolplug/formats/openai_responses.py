"""The OpenAI Responses API: flat ``function`` tools, ``function_call`` items in,
``function_call_output`` items out (text and images)."""

from __future__ import annotations

from typing import Any

from toolplug.content import ImageContent, block_as_text
from toolplug.formats.base import SKIP, NotACall, ToolFormat, result_text, validate_sdk_type
from toolplug.formats.openai_chat import openai_parameters
from toolplug.model import Observation, ToolCall
from toolplug.schema import check_openai_strict


class OpenAIResponsesFormat(ToolFormat):
    """The OpenAI Responses API. ``strict`` is always sent: the service makes a schema
    strict when it is left out."""

    name = "responses"
    title = "OpenAI Responses"
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
        return {
            "type": "function",
            "name": name or tool.name,
            "description": tool.description,
            "parameters": openai_parameters(tool, strict=strict, security_risk=security_risk),
            "strict": strict,
        }

    def unwrap(self, data: Any) -> list[Any] | None:
        if isinstance(data, dict) and isinstance(data.get("output"), list):
            return list(data["output"])  # a whole Response
        return None

    def read_call(self, item: Any, index: int) -> ToolCall | NotACall | None:
        kind = item.get("type")
        if kind == "function_call":
            return ToolCall(item["call_id"], item["name"], item.get("arguments"))
        if kind in ("message", "reasoning", "output_text"):
            return SKIP
        return None

    def render_result(self, call: ToolCall, observation: Observation) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        for block in observation.llm_content:
            if isinstance(block, ImageContent):
                url = f"data:{block.mimeType};base64,{block.data}"
                parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
            else:
                parts.append({"type": "input_text", "text": block_as_text(block)})
        output: str | list[dict[str, Any]] = parts
        if all(p["type"] == "input_text" for p in parts):
            output = result_text(observation)
        return {"type": "function_call_output", "call_id": call.id, "output": output}

    def check_tool(self, exported: dict[str, Any]) -> None:
        validate_sdk_type(
            exported, "openai.types.responses", "FunctionToolParam", "openai", self.title
        )
        if exported.get("strict"):
            check_openai_strict(exported["parameters"])

    def check_result(self, result: Any, observation: Observation) -> None:
        module = "openai.types.responses.response_input_param"
        validate_sdk_type(result, module, "FunctionCallOutput", "openai", self.title)
