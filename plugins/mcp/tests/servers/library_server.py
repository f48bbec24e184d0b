"""A fastmcp server with resources (and one tool), for the resource tools' tests.

python library_server.py              # stdio
"""

from __future__ import annotations

import json

from fastmcp import FastMCP

server = FastMCP("library")
#: A 1x1 PNG.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


@server.tool
def shelf_count() -> int:
    """How many shelves the library has."""
    return 3


@server.resource(
    "config://settings", mime_type="application/json", description="The library's settings."
)
def settings() -> str:
    return json.dumps({"open": "9-17", "loans": 5})


@server.resource("docs://welcome", name="welcome", title="Welcome text")
def welcome() -> str:
    return "Welcome to the library."


@server.resource("img://logo", mime_type="image/png", description="The logo.")
def logo() -> bytes:
    return PIXEL


@server.resource("data://catalogue.bin", mime_type="application/octet-stream")
def catalogue() -> bytes:
    return b"\x00\x01binary\xff"


@server.resource("books://{isbn}/summary", description="A book's summary, by ISBN.")
def summary(isbn: str) -> str:
    return f"Summary of {isbn}."


if __name__ == "__main__":
    server.run(show_banner=False, log_level="warning")
