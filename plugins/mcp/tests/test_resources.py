"""MCP servers' resources, reached through the list_resources and read_resource tools."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import pytest
from conftest import demo_stdio, library_stdio
from test_client import load
from test_serve import TOOLPLUG
from toolplug import EmbeddedResource, ImageContent, TextContent, Toolset
from toolplug.testing import validate_observation_exports, validate_tool_exports


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory):
    config = {"mcpServers": {"library": library_stdio()}}
    with load(config, tmp_path_factory.mktemp("ws")) as toolset:
        yield toolset


def read(toolset: Toolset, uri: str):
    observation = toolset.call("read_resource", {"uri": uri})
    validate_observation_exports(observation)
    return observation


def test_a_server_with_resources_gets_the_two_tools(library: Toolset) -> None:
    assert sorted(library) == ["list_resources", "read_resource", "shelf_count"]
    for name in ("list_resources", "read_resource"):
        tool = library[name]
        validate_tool_exports(tool)
        assert tool.read_only and tool.annotations is not None
        assert tool.annotations.idempotentHint and not tool.annotations.destructiveHint
        assert "library" in tool.description and "library" in (tool.origin or "")


def test_the_listing_gives_resources_and_templates(library: Toolset) -> None:
    listing = library.call("list_resources", {})
    assert not listing.is_error, listing.text
    validate_observation_exports(listing)
    uris = [r["uri"] for r in listing.resources]
    assert uris == ["config://settings", "docs://welcome", "img://logo", "data://catalogue.bin"]
    assert [t["uriTemplate"] for t in listing.templates] == ["books://{isbn}/summary"]
    text = listing.text
    assert "4 resources of MCP server 'library'" in text
    assert "- config://settings (settings) [application/json]: The library's settings." in text
    assert "- docs://welcome (Welcome text)" in text
    assert "books://{isbn}/summary" in text and "placeholders" in text


def test_reading_text_json_and_a_template(library: Toolset) -> None:
    settings = read(library, "config://settings")
    assert not settings.is_error and json.loads(settings.text) == {"open": "9-17", "loans": 5}
    assert read(library, "docs://welcome").text == "Welcome to the library."
    assert read(library, "books://978-3/summary").text == "Summary of 978-3."


def test_reading_binary_resources(library: Toolset) -> None:
    [logo] = read(library, "img://logo").content
    assert isinstance(logo, ImageContent) and logo.mimeType == "image/png"
    assert base64.b64decode(logo.data).startswith(b"\x89PNG")
    [blob] = read(library, "data://catalogue.bin").content
    assert isinstance(blob, EmbeddedResource)
    assert base64.b64decode(blob.resource.blob) == b"\x00\x01binary\xff"
    assert blob.resource.uri == "data://catalogue.bin"


def test_an_unknown_uri_is_an_error_that_says_what_to_do(library: Toolset) -> None:
    missing = read(library, "nope://x")
    assert missing.is_error
    assert "nope://x" in missing.text and "List the resources" in missing.text
    assert isinstance(missing.content[0], TextContent)
    # The server is still there for the next call.
    assert read(library, "docs://welcome").text == "Welcome to the library."


def test_a_missing_uri_argument_is_a_clear_error(library: Toolset) -> None:
    observation = library.call("read_resource", {})
    assert observation.is_error and "uri" in observation.text


def test_resources_false_leaves_them_out(tmp_path: Path) -> None:
    config = {"mcpServers": {"library": library_stdio()}}
    with load(config, tmp_path, resources=False) as toolset:
        assert list(toolset) == ["shelf_count"]


def test_a_server_without_resources_gets_no_resource_tools(tmp_path: Path) -> None:
    config = {"mcpServers": {"demo": demo_stdio(), "library": library_stdio()}}
    with load(config, tmp_path) as toolset:
        names = list(toolset)
        assert "library__list_resources" in names and "library__read_resource" in names
        assert not [n for n in names if n.startswith("demo__") and "resource" in n]
        observation = toolset.call("library__read_resource", {"uri": "docs://welcome"})
        assert observation.text == "Welcome to the library."


def test_mcp_list_names_the_resource_tools(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"library": library_stdio(), "demo": demo_stdio()}}))
    done = subprocess.run(
        [TOOLPLUG, "mcp", "list", "--mcp-config", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = {s["name"]: s for s in json.loads(done.stdout)["servers"]}
    assert report["library"]["resource_tools"] == [
        "library__list_resources",
        "library__read_resource",
    ]
    assert report["demo"]["resource_tools"] == []
