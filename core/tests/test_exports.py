"""One definition, every format, validated against the providers' own types."""

from __future__ import annotations

from typing import Literal

import jsonschema
import pytest
from pydantic import BaseModel, Field
from toolplug import Action, FormatError, ToolAnnotations, ToolDefinition
from toolplug.errors import SchemaError
from toolplug.formats import export_tool, render
from toolplug.schema import inline_refs, to_strict
from toolplug.testing import check_openai_strict, validate_tool_exports


class Address(BaseModel):
    street: str = Field(description="Street and number.")
    city: str | None = Field(default=None, description="City, if known.")


class Node(BaseModel):
    label: str = Field(description="Label.")
    children: list[Node] = Field(default_factory=list, description="Children.")


class RichAction(Action):
    name: str = Field(description="A name.", min_length=1)
    title: str = Field(default="", description="A field literally called title.")
    kind: Literal["a", "b"] = Field(default="a", description="The kind.")
    address: Address = Field(description="Where.")
    tags: list[str] = Field(default_factory=list, description="Tags.")
    limit: int | None = Field(default=None, ge=0, description="At most this many.")
    tree: Node | None = Field(default=None, description="A recursive structure.")


RICH = ToolDefinition(
    name="rich",
    description="A tool with a rich schema.",
    action_type=RichAction,
    annotations=ToolAnnotations(title="Rich tool", destructiveHint=False),
)


def test_every_export_validates_with_the_provider_types() -> None:
    validate_tool_exports(RICH)


def test_property_named_title_survives_title_stripping() -> None:
    schema = RICH.input_schema()
    assert "title" in schema["properties"]
    assert "title" not in schema
    assert "title" not in schema["$defs"]["Address"]


def test_strict_schema_follows_openai_rules() -> None:
    strict = export_tool(RICH, "openai", strict=True)
    assert strict["function"]["strict"] is True
    params = strict["function"]["parameters"]
    check_openai_strict(params)
    # Optional fields became nullable; required ones did not.
    assert params["properties"]["name"]["type"] == "string"
    assert params["properties"]["kind"]["anyOf"][-1] == {"type": "null"}
    assert params["properties"]["tags"]["type"] == ["array", "null"]
    # Non-recursive models are inlined; the recursive one stays a reference.
    city = params["properties"]["address"]["properties"]["city"]
    assert city["type"] == ["string", "null"] and "default" not in city
    assert set(params["$defs"]) == {"Node"}


class Optionals(Action):
    """The Python docstring of an action: not a word of it for the model."""

    name: str = Field(description="A name.")
    limit: int | None = Field(default=None, ge=0, description="At most this many.")
    where: Address | None = Field(default=None, description="Where, if anywhere.")
    kind: Literal["a", "b"] | None = Field(default=None, description="The kind.")
    # null here means something (no cap), unlike leaving it out (a cap of 5).
    cap: int | None = Field(default=5, description="A cap; null for none.")
    given: int | None = Field(description="Required, and null allowed.")


OPTIONALS = ToolDefinition(
    name="optionals",
    description="Optional fields.",
    action_type=Optionals,
    executor=lambda a: f"{a.limit}:{a.where}:{a.kind}:{a.cap}:{a.given}",
)


def test_optional_fields_are_plain_types_left_out_of_required() -> None:
    params = export_tool(OPTIONALS, "openai")["function"]["parameters"]
    props = params["properties"]
    assert props["limit"] == {"type": "integer", "minimum": 0, "description": "At most this many."}
    assert props["where"] == {"$ref": "#/$defs/Address", "description": "Where, if anywhere."}
    assert props["kind"] == {"type": "string", "enum": ["a", "b"], "description": "The kind."}
    assert props["where"]["$ref"] == "#/$defs/Address"
    # Inside a nested model too.
    assert params["$defs"]["Address"]["properties"]["city"] == {
        "type": "string",
        "description": "City, if known.",
    }
    # A null that means something, and a required nullable field, keep their null.
    assert {"type": "null"} in props["cap"]["anyOf"] and props["cap"]["default"] == 5
    assert {"type": "null"} in props["given"]["anyOf"]
    assert sorted(params["required"]) == ["given", "name"]
    # The action's docstring is no schema-level description.
    assert "description" not in params
    validate_tool_exports(OPTIONALS)


def test_optional_fields_still_take_an_explicit_null_or_nothing() -> None:
    omitted = OPTIONALS.call({"name": "n", "given": 1})
    assert omitted.text == "None:None:None:5:1", omitted.text
    nulls = OPTIONALS.call(
        {"name": "n", "limit": None, "where": None, "kind": None, "cap": None, "given": None}
    )
    assert nulls.text == "None:None:None:None:None", nulls.text


def test_strict_export_makes_the_plain_optional_fields_nullable_again() -> None:
    params = export_tool(OPTIONALS, "openai", strict=True)["function"]["parameters"]
    check_openai_strict(params)
    props = params["properties"]
    assert props["limit"]["type"] == ["integer", "null"]
    assert {"type": "null"} in props["kind"]["anyOf"]
    assert props["where"]["type"] == ["object", "null"]
    assert props["where"]["properties"]["city"]["type"] == ["string", "null"]
    args = {"name": "n", "limit": None, "where": None, "kind": None, "cap": None, "given": 2}
    jsonschema.validate(args, params)
    assert OPTIONALS.call(args).text == "None:None:None:None:2"


def test_strict_null_round_trips_to_defaults() -> None:
    def run(action: RichAction) -> str:
        return f"{action.kind}:{action.tags}:{action.limit}"

    tool = ToolDefinition(name="rich", description="x", action_type=RichAction, executor=run)
    args = {
        "name": "n",
        "title": None,
        "kind": None,
        "tags": None,
        "limit": None,
        "tree": None,
        "address": {"street": "s", "city": None},
    }
    jsonschema.validate(args, export_tool(tool, "openai", strict=True)["function"]["parameters"])
    obs = tool.call(args)
    assert not obs.is_error, obs.text
    assert obs.text.endswith("a:[]:None")


def test_free_form_objects_cannot_be_strict() -> None:
    class Free(Action):
        data: dict[str, int] = Field(description="Anything.")

    tool = ToolDefinition(name="free", description="x", action_type=Free)
    assert (
        export_tool(tool, "openai")["function"]["parameters"]["properties"]["data"]["type"]
        == "object"
    )
    with pytest.raises(SchemaError, match="free-form"):
        export_tool(tool, "openai", strict=True)


def test_mcp_export_carries_title_annotations_and_output_schema(echo_tool: ToolDefinition) -> None:
    import mcp.types

    wire = export_tool(echo_tool, "mcp")
    parsed = mcp.types.Tool.model_validate(wire)
    assert parsed.annotations is not None and parsed.annotations.read_only_hint is True
    assert parsed.output_schema == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "text": {
                "type": "string",
                "description": "What the model reads: the text of the result's content blocks.",
            },
            "echoed": {"type": "string", "description": "The echoed text."},
        },
        "required": ["text", "echoed"],
    }
    rich = mcp.types.Tool.model_validate(export_tool(RICH, "mcp"))
    assert rich.title == "Rich tool"
    assert rich.output_schema is None


def test_structured_content_conforms_to_output_schema(echo_tool: ToolDefinition) -> None:
    result = render(echo_tool.call({"text": "hi"}), "mcp")
    jsonschema.validate(result["structuredContent"], export_tool(echo_tool, "mcp")["outputSchema"])


def test_security_risk_only_for_tools_that_are_not_read_only(echo_tool: ToolDefinition) -> None:
    assert "security_risk" not in echo_tool.input_schema(security_risk=True)["properties"]
    schema = export_tool(RICH, "anthropic", security_risk=True)["input_schema"]
    assert schema["properties"]["security_risk"]["enum"] == ["LOW", "MEDIUM", "HIGH"]
    assert "security_risk" in schema["required"]
    strict = export_tool(RICH, "openai", strict=True, security_risk=True)["function"]["parameters"]
    assert strict["properties"]["security_risk"]["type"] == "string"
    check_openai_strict(strict)


def test_export_by_format_name(echo_tool: ToolDefinition) -> None:
    assert export_tool(echo_tool, "openai")["type"] == "function"
    assert export_tool(echo_tool, "responses")["strict"] is False
    assert export_tool(echo_tool, "anthropic")["name"] == "echo"
    assert export_tool(echo_tool, "mcp")["inputSchema"]["type"] == "object"
    assert export_tool(echo_tool, "gemini")["parameters"]["type"] == "object"
    assert export_tool(echo_tool, "bedrock")["toolSpec"]["inputSchema"]["json"]["type"] == "object"
    with pytest.raises(FormatError, match="choose one of openai, responses, anthropic, gemini"):
        export_tool(echo_tool, "cohere")


def test_inline_refs_keeps_descriptions_next_to_refs() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A", "description": "the a"}},
        "$defs": {"A": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    }
    inlined = inline_refs(schema)
    assert inlined["properties"]["a"]["description"] == "the a"
    assert inlined["properties"]["a"]["properties"] == {"x": {"type": "integer"}}
    assert "$defs" not in inlined
    assert to_strict(schema)["properties"]["a"]["additionalProperties"] is False
