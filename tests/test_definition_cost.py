"""What the built-in coding tools' definitions cost a request, and the shape that keeps
it low (issue #28): bash, file_editor, glob, grep, think and finish at most 2,000
o200k tokens of Chat Completions JSON, with no token spent on what says nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolplug import Toolset
from toolplug.tokens import count_definitions

SIX = ["bash", "file_editor", "glob", "grep", "think", "finish"]
#: The issue's bound on the six, in o200k_base tokens of the Chat Completions JSON.
BUDGET = 2_000


@pytest.fixture
def six(tmp_path: Path) -> Iterator[Toolset]:
    with Toolset.load(SIX, workspace=tmp_path, plugins=SIX) as toolset:
        assert sorted(toolset.keys()) == sorted(SIX)
        yield toolset


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
def test_the_six_cost_at_most_2000_tokens(six: Toolset, strict: bool) -> None:
    counts = count_definitions(six, "openai", strict=strict)
    assert set(counts.tools) == set(SIX)
    assert counts.total <= BUDGET, f"{counts.total:,} tokens: {dict(counts.tools)}"


def _nodes(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _nodes(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _nodes(item)


def test_no_tokens_on_schema_boilerplate_or_null_branches(six: Toolset) -> None:
    for exported in six.export("openai"):
        function = exported["function"]
        params = function["parameters"]
        name = function["name"]
        # The tool's description is what the model reads; no second one on the schema.
        assert "description" not in params and "title" not in params, name
        for node in _nodes(params):
            # An optional field is its plain type, left out: no null branch to send.
            assert node.get("default", "absent") is not None, (name, node)
            assert {"type": "null"} not in node.get("anyOf", []), (name, node)


def test_grep_shows_one_context_field_and_still_takes_before_and_after(
    six: Toolset, tmp_path: Path
) -> None:
    (grep,) = [e["function"] for e in six.export("openai") if e["function"]["name"] == "grep"]
    props = grep["parameters"]["properties"]
    assert "context" in props and "before" not in props and "after" not in props
    (tmp_path / "f.txt").write_text("one\ntwo\nthree\nfour\n")
    args = {"pattern": "three", "output_mode": "content", "path": "f.txt"}
    around = six.call("grep", {**args, "context": 1})
    assert "f.txt-2-two" in around.text and "f.txt-4-four" in around.text, around.text
    sides = six.call("grep", {**args, "before": 2, "after": 0})
    assert "f.txt-1-one" in sides.text and "four" not in sides.text, sides.text
