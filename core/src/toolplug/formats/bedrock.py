"""AWS Bedrock Converse: ``toolSpec`` with ``inputSchema.json``, ``toolUse`` blocks in,
``toolResult`` blocks out (text and images, ``status: error`` on failure), all of a
turn's results in one user message.

Image bytes are raw ``bytes``, as boto3 takes them (it encodes them for the wire).
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Sequence
from typing import Any

from toolplug.content import ImageContent, block_as_text
from toolplug.formats.base import NO_OUTPUT, SKIP, NotACall, ToolFormat, plain, require
from toolplug.model import Observation, ToolCall

# The image formats a toolResult takes, by MIME type.
_IMAGE_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}


class BedrockFormat(ToolFormat):
    """AWS Bedrock's Converse API (``bedrock-runtime`` ``converse``)."""

    name = "bedrock"
    title = "AWS Bedrock Converse"

    def export_tool(
        self, tool: Any, *, name: str | None = None, security_risk: bool = False, **options: Any
    ) -> dict[str, Any]:
        """One ``tools`` entry of ``toolConfig``."""
        spec: dict[str, Any] = {
            "name": name or tool.name,
            "inputSchema": {"json": tool.input_schema(security_risk=security_risk)},
        }
        if tool.description:  # the API takes no empty description
            spec["description"] = tool.description
        return {"toolSpec": spec}

    def unwrap(self, data: Any) -> list[Any] | None:
        if not isinstance(data, dict):
            return None
        output = data.get("output")
        if isinstance(output, dict) and "message" in output:  # a whole Converse response
            message = plain(output["message"])
            if not isinstance(message, dict):
                return None  # not a response after all: read as an item (and refused)
            content = message.get("content")
            return list(content) if isinstance(content, list) else []
        return None  # a message is unwrapped as Anthropic's are: the same shape

    def read_call(self, item: Any, index: int) -> ToolCall | NotACall | None:
        use = item.get("toolUse")
        if isinstance(use, dict):
            return ToolCall(use["toolUseId"], use["name"], use.get("input"))
        if "text" in item or "reasoningContent" in item:
            return SKIP
        return None

    def render_result(self, call: ToolCall, observation: Observation) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for block in observation.llm_content:
            image_format = (
                _IMAGE_FORMATS.get(block.mimeType) if isinstance(block, ImageContent) else None
            )
            if isinstance(block, ImageContent) and image_format:
                source = {"bytes": base64.b64decode(block.data)}
                content.append({"image": {"format": image_format, "source": source}})
            else:
                text = block_as_text(block)
                if text:
                    content.append({"text": text})
        if not content:
            content.append({"text": NO_OUTPUT})
        status = "error" if observation.is_error else "success"
        return {"toolResult": {"toolUseId": call.id, "content": content, "status": status}}

    def results_message(self, results: Sequence[Any]) -> dict[str, Any]:
        return {"role": "user", "content": list(results)}

    def check_tool(self, exported: dict[str, Any]) -> None:
        import re

        name = exported["toolSpec"]["name"]
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name), f"'{name}' is not a Bedrock tool name"
        self._validate({"toolConfig": {"tools": [exported]}})

    def check_result(self, result: Any, observation: Observation) -> None:
        assert result["toolResult"]["status"] in ("success", "error")
        assert all(block.get("text", "x") for block in result["toolResult"]["content"])
        self._validate({"messages": [self.results_message([result])]})

    def _validate(self, request: dict[str, Any]) -> None:
        """Validate a Converse request against botocore's own service model (offline)."""
        validate = require("botocore.validate", "botocore", self.title)
        shape = _converse_input_shape(self.title)
        params = {"modelId": "any", "messages": [], **request}
        report = validate.ParamValidator().validate(params, shape)
        assert not report.has_errors(), report.generate_report()


@functools.cache
def _converse_input_shape(fmt: str) -> Any:
    """botocore's shape of a Converse request, loaded once (a session reads JSON models)."""
    session_module = require("botocore.session", "botocore", fmt)
    model = session_module.get_session().get_service_model("bedrock-runtime")
    return model.operation_model("Converse").input_shape
