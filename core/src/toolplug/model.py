"""The typed halves of a tool call: :class:`Action` in, :class:`Observation` out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import Self  # a pydantic dependency; typing.Self needs 3.11

from toolplug.content import (
    ContentBlock,
    ImageContent,
    TextContent,
    block_as_text,
)


class Action(BaseModel):
    """Base class of a tool's input: the fields a model fills in.

    Describe every field with ``Field(description=...)``: the description is what the
    model reads in every exported schema. Unknown keys are rejected (the safe entry
    point drops them and says so), which also keeps exports valid in OpenAI strict mode.
    """

    model_config = ConfigDict(extra="forbid")


class ToolAnnotations(BaseModel):
    """MCP behaviour hints. ``None`` means "not said" (MCP defaults then apply)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str | None = Field(default=None, description="A human-readable title.")
    readOnlyHint: bool | None = Field(
        default=None, description="The tool does not change its environment."
    )
    destructiveHint: bool | None = Field(
        default=None, description="The tool may delete or overwrite (if not read-only)."
    )
    idempotentHint: bool | None = Field(
        default=None, description="Repeating a call with the same arguments changes nothing more."
    )
    openWorldHint: bool | None = Field(
        default=None, description="The tool reaches outside a closed world (network, web)."
    )

    @property
    def read_only(self) -> bool:
        """Whether the tool declared itself read-only."""
        return bool(self.readOnlyHint)


class Observation(BaseModel):
    """Base class of a tool's output.

    ``content`` holds MCP-style blocks; ``is_error`` marks a failed call. Subclasses add
    typed fields (an exit code, a path) that hosts read without parsing text; those
    fields are the MCP ``structuredContent`` and their model is the ``outputSchema``.
    Override :attr:`to_llm_content` to render the fields for the model.
    """

    model_config = ConfigDict(extra="forbid")

    #: Fields of the base class, left out of ``structuredContent`` and ``outputSchema``.
    base_fields: ClassVar[frozenset[str]] = frozenset({"content", "is_error"})

    content: list[ContentBlock] = Field(
        default_factory=list, description="Content blocks shown to the model."
    )
    is_error: bool = Field(default=False, description="True when the call failed.")

    @classmethod
    def from_text(cls, text: str, **fields: Any) -> Self:
        """Build an observation of this class whose content is one text block."""
        return cls(content=[TextContent(text=text)], **fields)

    @classmethod
    def error(cls, message: str) -> Observation:
        """An error observation (always of the base class, so no typed field is needed)."""
        return Observation(content=[TextContent(text=message)], is_error=True)

    @property
    def to_llm_content(self) -> Sequence[ContentBlock]:
        """What the model sees. By default the content, or the typed fields as JSON."""
        if self.content:
            return self.content
        data = self.structured_content()
        if data:
            return [TextContent(text=json.dumps(data, ensure_ascii=False))]
        return []

    @property
    def text(self) -> str:
        """The text blocks of :attr:`to_llm_content`, joined by newlines."""
        return "\n".join(b.text for b in self.to_llm_content if isinstance(b, TextContent))

    @classmethod
    def has_structured_fields(cls) -> bool:
        """Whether this class adds typed fields to the base observation."""
        return any(name not in cls.base_fields for name in cls.model_fields)

    def structured_content(self) -> dict[str, Any] | None:
        """The typed fields as JSON data (MCP ``structuredContent``), if there are any."""
        if self.is_error or not self.has_structured_fields():
            return None
        return self.model_dump(mode="json", exclude=set(self.base_fields))

    @classmethod
    def output_schema(cls) -> dict[str, Any] | None:
        """JSON schema of :meth:`structured_content` (MCP ``outputSchema``)."""
        if not cls.has_structured_fields():
            return None
        from toolplug.schema import clean_schema

        schema = cls.model_json_schema(mode="serialization")
        props = schema.get("properties", {})
        for name in cls.base_fields:
            props.pop(name, None)
        schema["required"] = [r for r in schema.get("required", []) if r in props]
        if not schema["required"]:
            del schema["required"]
        return clean_schema(schema)

    # -- tool results for each provider -------------------------------------------------

    def _text_only(self) -> str:
        return "\n".join(block_as_text(b) for b in self.to_llm_content)

    def to_openai_message(self, call_id: str) -> dict[str, Any]:
        """The Chat Completions ``{"role": "tool"}`` message (text only: images become a note)."""
        return {"role": "tool", "tool_call_id": call_id, "content": self._text_only()}

    def to_responses_item(self, call_id: str) -> dict[str, Any]:
        """The Responses API ``function_call_output`` input item (text and images)."""
        parts: list[dict[str, Any]] = []
        for block in self.to_llm_content:
            if isinstance(block, ImageContent):
                url = f"data:{block.mimeType};base64,{block.data}"
                parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
            else:
                parts.append({"type": "input_text", "text": block_as_text(block)})
        output: str | list[dict[str, Any]] = parts
        if all(p["type"] == "input_text" for p in parts):
            output = "\n".join(p["text"] for p in parts)
        return {"type": "function_call_output", "call_id": call_id, "output": output}

    def to_anthropic_block(self, call_id: str) -> dict[str, Any]:
        """The Anthropic ``tool_result`` content block (text and images, ``is_error``)."""
        blocks: list[dict[str, Any]] = []
        for block in self.to_llm_content:
            if isinstance(block, ImageContent):
                source = {"type": "base64", "media_type": block.mimeType, "data": block.data}
                blocks.append({"type": "image", "source": source})
            else:
                blocks.append({"type": "text", "text": block_as_text(block)})
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": blocks}
        if self.is_error:
            result["is_error"] = True
        return result

    def to_mcp_result(self) -> dict[str, Any]:
        """The MCP ``CallToolResult`` as wire JSON (camelCase keys)."""
        content = [b.model_dump(mode="json", exclude_none=True) for b in self.to_llm_content]
        result: dict[str, Any] = {"content": content, "isError": self.is_error}
        structured = self.structured_content()
        if structured is not None:
            result["structuredContent"] = structured
        return result
