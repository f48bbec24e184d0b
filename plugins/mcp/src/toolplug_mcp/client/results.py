"""From an MCP ``CallToolResult`` to a toolplug observation, losing nothing.

Text, images, audio, resource links and embedded resources become content blocks;
``structuredContent`` is kept as the observation's typed data; ``isError`` becomes
``is_error``.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter, ValidationError
from toolplug import ContentBlock, TextContent

from toolplug_mcp.client.types import McpObservation

_BLOCK = TypeAdapter(ContentBlock)


def wire(model: Any) -> Any:
    """An MCP SDK model as its wire JSON (camelCase keys, no nulls); JSON as it is."""
    if hasattr(model, "model_dump"):
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return model


def to_block(raw: Any) -> Any:
    """One MCP content block (an SDK model or wire JSON) as a toolplug block."""
    data = wire(raw)
    try:
        return _BLOCK.validate_python(data)
    except ValidationError:
        # A block type newer than ours: keep it readable rather than drop it.
        return TextContent(text=json.dumps(data, ensure_ascii=False, default=str))


def to_observation(result: Any) -> McpObservation:
    """Convert an MCP ``CallToolResult`` (SDK model) into an observation."""
    content = [to_block(block) for block in getattr(result, "content", None) or []]
    structured = getattr(result, "structured_content", None)
    if not content and structured is not None:
        # MCP asks servers to repeat structured data as text; supply it when they do not.
        content = [TextContent(text=json.dumps(structured, ensure_ascii=False))]
    return McpObservation(
        content=content,
        structured=structured,
        is_error=bool(getattr(result, "is_error", False)),
    )
