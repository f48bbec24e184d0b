"""MCP-style content blocks: what an observation carries back to the model.

Field names follow the MCP wire format (``mimeType``, ``uri``) so that a block dumps
straight into a ``CallToolResult`` and reads back from one without renaming.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from toolplug._text import printable as printable, safe_text as safe_text

#: Text that is always valid UTF-8: a lone surrogate (a non-UTF-8 file name, a model's
#: ``"\ud800"``) is shown escaped by :func:`printable`, so JSON, MCP and terminals take it.
_Printable = Annotated[str, AfterValidator(printable)]


class _Block(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    annotations: dict[str, Any] | None = Field(
        default=None, description="MCP content annotations (audience, priority)."
    )


class TextContent(_Block):
    """Plain text for the model; always valid UTF-8 (lone surrogates are escaped)."""

    type: Literal["text"] = "text"
    text: _Printable = Field(description="The text.")


class ImageContent(_Block):
    """An image, base64-encoded, with its MIME type."""

    type: Literal["image"] = "image"
    data: str = Field(description="Base64-encoded image bytes.")
    mimeType: str = Field(description="MIME type, for example image/png.")

    @classmethod
    def from_bytes(cls, data: bytes, mime_type: str) -> ImageContent:
        """Build an image block from raw bytes."""
        return cls(data=base64.b64encode(data).decode("ascii"), mimeType=mime_type)


class AudioContent(_Block):
    """Audio, base64-encoded, with its MIME type."""

    type: Literal["audio"] = "audio"
    data: str = Field(description="Base64-encoded audio bytes.")
    mimeType: str = Field(description="MIME type, for example audio/wav.")


class ResourceLink(_Block):
    """A pointer to a resource the client may read (a file, a URL)."""

    type: Literal["resource_link"] = "resource_link"
    uri: str = Field(description="The resource's URI.")
    name: str = Field(description="A short name for the resource.")
    title: str | None = None
    description: str | None = None
    mimeType: str | None = None
    size: int | None = None


class TextResourceContents(BaseModel):
    """The text of an embedded resource."""

    model_config = ConfigDict(extra="allow", frozen=True)
    uri: str
    mimeType: str | None = None
    text: str


class BlobResourceContents(BaseModel):
    """The bytes (base64) of an embedded resource."""

    model_config = ConfigDict(extra="allow", frozen=True)
    uri: str
    mimeType: str | None = None
    blob: str


class EmbeddedResource(_Block):
    """A resource whose contents travel inside the result."""

    type: Literal["resource"] = "resource"
    resource: TextResourceContents | BlobResourceContents


ContentBlock = Annotated[
    TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource,
    Field(discriminator="type"),
]
"""Any one MCP content block, told apart by its ``type``."""


def block_as_text(block: BaseModel) -> str:
    """A one-line stand-in for a block in places that take text only."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, (ImageContent, AudioContent)):
        kind = "image" if isinstance(block, ImageContent) else "audio"
        size = len(block.data) * 3 // 4
        return f"[{kind} {block.mimeType}, {size} bytes: not shown here]"
    if isinstance(block, ResourceLink):
        return f"[resource {block.name}: {block.uri}]"
    if isinstance(block, EmbeddedResource):
        res = block.resource
        if isinstance(res, TextResourceContents):
            return f"[resource {res.uri}]\n{res.text}"
        return f"[resource {res.uri}, {res.mimeType or 'binary'}: not shown here]"
    return str(block)
