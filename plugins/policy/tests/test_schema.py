"""The policy file's published JSON Schema (docs/reference/policy.schema.json): made from
the pydantic models that check the file, valid, and agreeing with the loader."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from toolplug import PolicyError
from toolplug_policy import loads
from toolplug_policy.model import SCHEMA_ID, schema_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = ROOT / "docs" / "reference" / "policy.schema.json"
SAFETY = (ROOT / "docs" / "safety.md").read_text()


def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(PUBLISHED.read_text())
    return loaded


def test_the_published_schema_is_the_models() -> None:
    assert PUBLISHED.read_text() == schema_text(), (
        f"{PUBLISHED.relative_to(ROOT)} is not what toolplug_policy.model makes: "
        "run `python tools/schemas.py` and commit the file"
    )


def test_the_schema_is_a_valid_json_schema_with_its_id() -> None:
    published = schema()
    jsonschema.Draft202012Validator.check_schema(published)
    assert published["$id"] == SCHEMA_ID and published["title"] and published["description"]


def test_the_docs_policy_and_schema_line_validate() -> None:
    """The coding agent's policy of docs/safety.md passes the schema, and the page's
    editor line names the published schema."""
    validator = jsonschema.Draft202012Validator(schema())
    blocks = re.findall(r"```toml\n(.*?)```", SAFETY, re.S)
    for block in blocks:
        validator.validate(tomllib.loads(block))
    assert any(b.startswith(f"#:schema {SCHEMA_ID}\n") for b in blocks)


#: Files the schema and the loader both accept, or both refuse (the loader's checks
#: beyond a type, such as a command that does not split into words, are its own).
CASES = [
    ("", True),
    ('default = "deny"\naudit_log = "a.jsonl"\n[limits]\ncommand_chars = 10\n', True),
    ('[[rules]]\ndecision = "allow"\ntool = ["bash"]\ncommand = "ls *"\nenv = "LANG"\n', True),
    ('[[rules]]\ndecision = "deny"\npath = "**/.env"\nsecurity_risk = ["HIGH"]\n', True),
    ('[[rules]]\ndecision = "ask"\narguments = { "$.url" = "http://*", "$.n" = [1, 2] }\n', True),
    ('default = "alow"\n', False),
    ("audit_log = 7\n", False),
    ('audit_log = "  "\n', False),
    ("rule = []\n", False),
    ("[limits]\ncommand_chars = 0\n", False),
    ("[limits]\nparse_seconds = true\n", False),
    ("[limits]\nmax = 1\n", False),
    ('rules = "all"\n', False),
    ("rules = [1]\n", False),
    ('[[rules]]\ntool = "bash"\n', False),
    ('[[rules]]\ndecision = "allow"\ncommands = ["ls"]\n', False),
    ('[[rules]]\ndecision = "allow"\ntool = 3\n', False),
    ('[[rules]]\ndecision = "allow"\ncommand = []\n', False),
    ('[[rules]]\ndecision = "allow"\ntool = [" "]\n', False),
    ('[[rules]]\ndecision = "allow"\ncommand = "ls"\nenv = ["GIT PAGER"]\n', False),
    ('[[rules]]\ndecision = "deny"\nsecurity_risk = "extreme"\n', False),
    ('[[rules]]\ndecision = "deny"\narguments = { "url" = "x" }\n', False),
    ('[[rules]]\ndecision = "deny"\narguments = { "$.a" = { b = 1 } }\n', False),
    ('[[rules]]\ndecision = "deny"\nreason = 4\n', False),
]


@pytest.mark.parametrize(("text", "valid"), CASES)
def test_the_schema_and_the_loader_agree(text: str, valid: bool, tmp_path: Path) -> None:
    errors = list(jsonschema.Draft202012Validator(schema()).iter_errors(tomllib.loads(text)))
    assert (not errors) == valid, errors
    if valid:
        loads(text, base=tmp_path)
    else:
        with pytest.raises(PolicyError):
            loads(text, base=tmp_path)
