"""One naming scheme: provider-safe, stable, distinct; used by export, dispatch, compose."""

from __future__ import annotations

import re

import jsonschema
from pydantic import BaseModel, Field
from toolplug import (
    Action,
    NameMap,
    Observation,
    ToolDefinition,
    Toolset,
    provider_name,
    unique_name,
)

SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")


def test_safe_names_stay_and_others_become_safe() -> None:
    assert provider_name("bash") == "bash"
    assert provider_name("github.create_issue") == "github_create_issue"
    assert provider_name("9lives") == "_9lives"  # Gemini wants a letter or _ first
    long = "server_with_a_long_prefix__" + "x" * 80
    assert SAFE.fullmatch(provider_name(long)) and provider_name(long) != provider_name(long + "y")


def test_a_set_of_names_maps_both_ways_whatever_the_order() -> None:
    names = ["a.b", "a_b", "c d", "ok"]
    forward, backward = NameMap(names), NameMap(reversed(names))
    assert {n: forward.external(n) for n in names} == {n: backward.external(n) for n in names}
    externals = {forward.external(n) for n in names}
    assert len(externals) == len(names) and all(SAFE.fullmatch(e) for e in externals)
    assert forward.external("a_b") == "a_b" and forward.external("a.b").startswith("a_b_")
    assert all(forward.internal(forward.external(n)) == n for n in names)


def test_unique_name_never_returns_a_taken_name() -> None:
    taken: set[str] = set()
    for name in ["files.read", "files_read", "files read", "files.read"]:
        name = unique_name(name, taken)
        assert name not in taken and SAFE.fullmatch(name)
        taken.add(name)
    assert len(taken) == 4


def _first_item() -> type[Action]:
    class Item(BaseModel):
        size: int = Field(description="A size.")

    class UsesItem(Action):
        item: Item = Field(description="The item.")

    return UsesItem


def _second_item() -> type[Action]:
    class Item(BaseModel):
        colour: str = Field(description="A colour.")

    class UsesItem(Action):
        item: Item = Field(description="The item.")

    return UsesItem


def _done(action: Action) -> Observation:
    return Observation.from_text("done")


def test_compose_keeps_same_named_models_of_different_tools_apart() -> None:
    # Both nested models are called "Item" in their tool's schema, and the tools' names
    # would both become "a_b" if only unsafe characters were replaced.
    toolset = Toolset(
        [
            ToolDefinition(
                name="a.b", description="Dotted.", action_type=_first_item(), executor=_done
            ),
            ToolDefinition(
                name="a_b", description="Underscored.", action_type=_second_item(), executor=_done
            ),
        ]
    )
    schema = toolset.compose()
    assert len(schema["$defs"]) == 2
    jsonschema.Draft202012Validator.check_schema(schema)
    good = {
        "calls": [
            {"_tool": "a.b", "item": {"size": 3}},
            {"_tool": "a_b", "item": {"colour": "red"}},
        ],
        "output": None,
    }
    jsonschema.validate(good, schema)
    crossed = {"calls": [{"_tool": "a.b", "item": {"colour": "red"}}], "output": None}
    try:
        jsonschema.validate(crossed, schema)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("a call with the other tool's model was accepted")
    result = toolset.run_composed(good)
    assert [o.text for o in result.observations] == ["done", "done"]
