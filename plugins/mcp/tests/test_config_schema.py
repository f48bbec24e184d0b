"""The MCP configuration's published JSON Schema (docs/reference/mcp-config.schema.json):
made from the pydantic models that check a configuration, valid, and agreeing with
:func:`~toolplug_mcp.client.config.parse_servers`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from toolplug_mcp.client.config import ConfigError, parse_servers
from toolplug_mcp.client.config_model import SCHEMA_ID, schema_text

ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = ROOT / "docs" / "reference" / "mcp-config.schema.json"
CLIENT_DOC = (ROOT / "docs" / "mcp" / "client.md").read_text()


def validator() -> jsonschema.Draft202012Validator:
    published: dict[str, Any] = json.loads(PUBLISHED.read_text())
    return jsonschema.Draft202012Validator(published)


def test_the_published_schema_is_the_models() -> None:
    assert PUBLISHED.read_text() == schema_text(), (
        f"{PUBLISHED.relative_to(ROOT)} is not what toolplug_mcp.client.config_model "
        "makes: run `python tools/schemas.py` and commit the file"
    )


def test_the_schema_is_a_valid_json_schema_with_its_id() -> None:
    published = json.loads(PUBLISHED.read_text())
    jsonschema.Draft202012Validator.check_schema(published)
    assert published["$id"] == SCHEMA_ID and published["title"] and published["description"]


def test_the_docs_configurations_validate(tmp_path: Path) -> None:
    """Every configuration of docs/mcp/client.md passes the schema and the plugin, and
    one of them names the published schema as an editor reads it."""
    configs = [
        json.loads(block)
        for block in re.findall(r"```json\n(.*?)```", CLIENT_DOC, re.S)
        if "mcpServers" in block
    ]
    assert len(configs) >= 3
    for config in configs:
        validator().validate(config)
        assert parse_servers(config, env={}, workspace=tmp_path)
    assert any(config.get("$schema") == SCHEMA_ID for config in configs)


URL = "https://mcp.example.com/mcp"
#: Configurations the schema and the plugin both accept, or both refuse.
CASES: list[tuple[dict[str, Any], bool]] = [
    ({"mcpServers": {}}, True),
    ({"servers": {"t": {"command": "t"}}}, True),
    ({"mcpServers": {"t": {"command": "t", "args": ["-v"], "env": {"A": "1"}, "cwd": "."}}}, True),
    ({"mcpServers": {"t": {"command": "t", "timeout": 20000, "prefix": "x"}}}, True),
    ({"mcpServers": {"t": {"command": "t", "prefix": False, "maxServerRequests": 0}}}, True),
    ({"mcpServers": {"r": {"url": URL, "headers": {"K": "v"}, "auth": "token"}}}, True),
    ({"mcpServers": {"r": {"url": URL + "/sse", "type": "sse", "disabled": True}}}, True),
    ({"mcpServers": {"r": {"url": URL, "auth": "oauth", "oauth": {"scopes": "a b"}}}}, True),
    ({"mcpServers": {"r": {"url": URL, "auth": "oauth", "oauth": {"callback_port": 8765}}}}, True),
    ({"servers_typo": {}}, False),
    ({"mcpServers": []}, False),
    ({"mcpServers": {"x": []}}, False),
    ({"mcpServers": {"x": {"args": []}}}, False),
    ({"mcpServers": {"x": {"command": ""}}}, False),
    ({"mcpServers": {"x": {"command": "x", "args": "-v"}}}, False),
    ({"mcpServers": {"x": {"command": "x", "args": [1]}}}, False),
    ({"mcpServers": {"x": {"command": "x", "timeout": 0}}}, False),
    ({"mcpServers": {"x": {"command": "x", "timeout": "5"}}}, False),
    ({"mcpServers": {"x": {"command": "x", "prefix": ""}}}, False),
    ({"mcpServers": {"x": {"command": "x", "maxServerRequests": -1}}}, False),
    ({"mcpServers": {"x": {"command": "x", "transport": "ws"}}}, False),
    ({"mcpServers": {"r": {"url": "ftp://x"}}}, False),
    ({"mcpServers": {"r": {"transport": "http"}}}, False),
    ({"mcpServers": {"r": {"url": URL, "auth": ""}}}, False),
    ({"mcpServers": {"r": {"url": URL, "auth": 5}}}, False),
    ({"mcpServers": {"r": {"url": URL, "auth": "oauth", "oauth": {"client_id": "x"}}}}, False),
    ({"mcpServers": {"r": {"url": URL, "auth": "oauth", "oauth": {"callback_port": 0}}}}, False),
    ({"mcpServers": {"r": {"url": URL, "auth": "oauth", "oauth": {"login_timeout": 0}}}}, False),
]


@pytest.mark.parametrize(("config", "valid"), CASES)
def test_the_schema_and_the_plugin_agree(
    config: dict[str, Any], valid: bool, tmp_path: Path
) -> None:
    errors = list(validator().iter_errors(config))
    assert (not errors) == valid, errors
    if valid:
        parse_servers(config, env={}, workspace=tmp_path)
    else:
        with pytest.raises(ConfigError):
            parse_servers(config, env={}, workspace=tmp_path)
