"""Export of server schemas (draft-07 included) and names every provider accepts."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import toolplug_mcp
from conftest import TOOLPLUG
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from toolplug import Tool, Toolset
from toolplug.formats import default_formats
from toolplug.testing import registry_from
from toolplug_mcp.client.names import exported_name
from toolplug_mcp.client.schemas import export_schema, make_validator

DRAFT7 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "urn:example",
    "type": "object",
    "properties": {
        "node": {"$ref": "#/definitions/Node"},
        "limit": {"type": "integer", "minimum": 1, "default": 10, "title": "Limit"},
        "tag": {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]},
    },
    "required": ["node"],
    "additionalProperties": False,
    "definitions": {
        "Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}},
            },
            "required": ["name"],
        }
    },
}


def test_draft07_definitions_become_defs_and_nothing_else_is_lost() -> None:
    out = export_schema(DRAFT7)
    assert "$schema" not in out and "$id" not in out and "definitions" not in out
    assert out["properties"]["node"] == {"$ref": "#/$defs/Node"}
    children = out["$defs"]["Node"]["properties"]["children"]
    assert children["items"] == {"$ref": "#/$defs/Node"}
    assert out["properties"]["limit"] == DRAFT7["properties"]["limit"]
    assert out["properties"]["tag"] == DRAFT7["properties"]["tag"]
    assert out["additionalProperties"] is False
    assert out["required"] == ["node"]


def test_validation_follows_refs_in_the_declared_draft() -> None:
    validator = make_validator(DRAFT7)
    assert validator.is_valid({"node": {"name": "a", "children": [{"name": "b"}]}})
    assert not validator.is_valid({"node": {"children": [{"name": "b"}]}})
    assert not validator.is_valid({"node": {"name": "a"}, "extra": 1})
    assert not validator.is_valid({"node": {"name": "a"}, "limit": 0})


def test_a_schema_without_an_object_root_is_made_one() -> None:
    anything = {"type": "object", "properties": {}, "additionalProperties": True}
    assert export_schema({}) == anything
    assert export_schema({"properties": {"a": {"type": "string"}}})["type"] == "object"


def test_names_are_safe_short_and_unique() -> None:
    taken: set[str] = set()
    assert exported_name(None, "files.read", taken) == "files_read"
    assert exported_name("srv", "echo", taken) == "srv__echo"
    clash = exported_name(None, "files_read", taken)
    assert clash != "files_read" and clash.startswith("files_read_")
    long = exported_name("a-very-long-server-name", "x" * 120, taken)
    assert len(long) <= 64
    assert long != exported_name("a-very-long-server-name", "x" * 121, taken)


# -- $schema: kept where the target is MCP, left out for the other providers -----------

HOSTILE_SERVER = Path(__file__).parent / "servers" / "hostile_server.py"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def format_of(name: str) -> Any:
    return default_formats()[name]


def hostile_config(tmp_path: Path) -> Path:
    config = tmp_path / "mcp.json"
    server = {"command": sys.executable, "args": [str(HOSTILE_SERVER)]}
    config.write_text(json.dumps({"mcpServers": {"h": server}}))
    return config


def test_the_mcp_export_keeps_the_servers_schema_dialect(tmp_path: Path) -> None:
    config = hostile_config(tmp_path)
    with Toolset.load(
        [Tool("mcp", {"config": str(config)})], registry=registry_from(toolplug_mcp)
    ) as toolset:
        (mcp_export,) = [t for t in toolset.export("mcp") if t["name"] == "dialect"]
        assert mcp_export["inputSchema"]["$schema"] == DIALECT
        format_of("mcp").check_tool(mcp_export)  # the SDK's own Tool takes it
        for name in ("openai", "responses", "anthropic", "bedrock", "gemini"):
            assert "$schema" not in json.dumps(toolset.export(name)), name
        # Tools whose server declared no dialect get none.
        (echo,) = [t for t in toolset.export("mcp") if t["name"] == "echo"]
        assert "$schema" not in echo["inputSchema"]


def test_serve_re_exports_an_mcp_tools_dialect(tmp_path: Path) -> None:
    config = hostile_config(tmp_path)
    env = {**os.environ, "TOOLPLUG_MCP_CONFIG": str(config)}
    env.pop("TOOLPLUG_PLUGINS", None)
    transport = StdioTransport(
        command=TOOLPLUG, args=["mcp", "serve", "--plugins", "mcp"], env=env, cwd=str(tmp_path)
    )

    async def listed() -> dict[str, Any]:
        async with Client(transport) as client:
            tools = {tool.name: tool for tool in await client.list_tools()}
        schema: dict[str, Any] = tools["dialect"].input_schema
        return schema

    assert asyncio.run(listed())["$schema"] == DIALECT


# -- arguments checked with RE2 ------------------------------------------------------


def errors(schema: dict[str, Any], arguments: dict[str, Any]) -> list[str]:
    return [e.message for e in make_validator(schema, "tool 't'").iter_errors(arguments)]


def test_patterns_run_in_re2() -> None:
    word = {"type": "object", "properties": {"w": {"type": "string", "pattern": "^(a+)+$"}}}
    assert errors(word, {"w": "a" * 5000 + "b"}) == [
        f"{'a' * 5000 + 'b'!r} does not match '^(a+)+$'"
    ]
    assert errors(word, {"w": "aaa"}) == []
    # RE2 syntax Python's re lacks: a Unicode class.
    letters = {"type": "object", "properties": {"w": {"type": "string", "pattern": r"^\p{L}+$"}}}
    assert errors(letters, {"w": "héllo"}) == []
    assert errors(letters, {"w": "h3llo"}) != []


def test_pattern_properties_and_additional_properties_use_re2() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^x-(a+)+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert errors(schema, {"x-aaa": 1}) == []
    assert errors(schema, {"x-aaa": "one"}) == ["'one' is not of type 'integer'"]
    assert errors(schema, {"y": 1}) == [
        "Additional properties are not allowed ('y' was unexpected)"
    ]


def test_what_re2_cannot_run_is_left_to_the_server(caplog: pytest.LogCaptureFixture) -> None:
    schema = {
        "type": "object",
        "properties": {"pair": {"type": "string", "pattern": r"^(\w+)-\1$"}},
        "patternProperties": {"^(?=k)": {"type": "string"}},
        "unevaluatedProperties": False,
    }
    with caplog.at_level("WARNING", logger="toolplug.mcp"):
        assert errors(schema, {"pair": "ab-cd", "k1": 5, "other": 1}) == []
    assert "tool 't': the pattern '^(\\\\w+)-\\\\1$' is not one RE2 runs" in caplog.text
    assert "unevaluatedProperties beside patternProperties is not checked" in caplog.text
