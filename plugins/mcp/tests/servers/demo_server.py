"""A fastmcp server for the tests and the benchmark: run it over stdio or HTTP.

python demo_server.py                 # stdio
python demo_server.py http PORT       # streamable HTTP on 127.0.0.1:PORT
"""

from __future__ import annotations

import base64
import os
import sys
import time
from typing import Annotated, Literal

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools.base import ToolResult
from mcp_types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from pydantic import BaseModel, Field

server = FastMCP("demo")
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n fake").decode()


class Point(BaseModel):
    x: int = Field(description="x coordinate")
    y: int = Field(default=0, description="y coordinate")


class Sum(BaseModel):
    total: int


@server.tool
def echo(text: Annotated[str, Field(description="The text to return.")]) -> str:
    """Return the text."""
    return text


@server.tool(annotations={"readOnlyHint": True, "title": "Add numbers"})
def add(
    a: Annotated[int, Field(ge=0, le=1000, description="first")],
    b: Annotated[int, Field(description="second")] = 2,
) -> Sum:
    """Add two numbers."""
    return Sum(total=a + b)


@server.tool
def shapes(
    points: Annotated[list[Point], Field(description="The points.")],
    mode: Annotated[Literal["sum", "max"], Field(description="How to combine.")] = "sum",
    label: Annotated[str | None, Field(description="A label.")] = None,
    when: Annotated[str, Field(description="A day.", json_schema_extra={"format": "date"})] = (
        "2024-01-01"
    ),
) -> dict:
    """Nested objects, arrays, enums, nullable and formats."""
    xs = [p.x + p.y for p in points]
    return {"value": sum(xs) if mode == "sum" else max(xs), "label": label, "when": when}


@server.tool
def media() -> ToolResult:
    """Every kind of content block."""
    return ToolResult(
        content=[
            TextContent(type="text", text="here"),
            ImageContent(type="image", data=PNG, mime_type="image/png"),
            AudioContent(type="audio", data=PNG, mime_type="audio/wav"),
            ResourceLink(type="resource_link", uri="file:///tmp/a.txt", name="a.txt"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="mem://note", text="embedded text"),
            ),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(uri="mem://blob", blob=PNG, mime_type="image/png"),
            ),
        ],
        structured_content={"kinds": 6},
    )


@server.tool
def fail(reason: str) -> str:
    """Fail with the reason."""
    raise ToolError(f"failed on purpose: {reason}")


@server.tool
def slow(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "done"


@server.tool
def die() -> str:
    """End the server process mid-call."""
    os._exit(3)


@server.tool
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool(name="files.read")
def files_read(path: Annotated[str, Field(description="A path.")]) -> str:
    """A dotted tool name, as some servers use."""
    return f"read {path}"


@server.tool
def env(name: str) -> str:
    """An environment variable of the server process."""
    return os.environ.get(name, "<unset>")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run(
            transport="http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            show_banner=False,
            log_level="warning",
        )
    else:
        server.run(show_banner=False, log_level="warning")
