"""Compose: every tool in one JSON schema, and running a response that follows it."""

from __future__ import annotations

import json
from typing import Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel, Field
from toolplug import Action, Observation, ToolAnnotations, ToolDefinition, Toolset
from toolplug.compose import ComposedResult, ComposeError, compose, run_composed
from toolplug.dispatch import LatentObservation


class Point(BaseModel):
    x: int = Field(description="Column.")
    y: int = Field(description="Row.")


class Draw(Action):
    points: list[Point] = Field(description="Points to join.")
    color: str = Field(default="black", description="Line color.")


class ReadFile(Action):
    path: str = Field(description="File to read.")


class Sentiment(Action):
    label: Literal["positive", "negative", "neutral"] = Field(description="The sentiment.")


class Answer(BaseModel):
    summary: str = Field(description="One line.")
    score: int = Field(ge=0, le=10, description="0 to 10.")


ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "score": {"type": "integer", "minimum": 0, "maximum": 10},
    },
    "required": ["summary", "score"],
    "additionalProperties": False,
}


@pytest.fixture
def ran() -> list[str]:
    return []


@pytest.fixture
def toolset(ran: list[str]) -> Toolset:
    def read_file(action: ReadFile) -> Observation:
        ran.append(action.path)
        return Observation.from_text(f"contents of {action.path}")

    def draw(action: Draw) -> Observation:
        ran.append("draw")
        return Observation.from_text(f"{len(action.points)} points in {action.color}")

    return Toolset(
        [
            ToolDefinition(
                name="read_file",
                description="Read a file.",
                action_type=ReadFile,
                executor=read_file,
                annotations=ToolAnnotations(readOnlyHint=True),
            ),
            ToolDefinition(
                name="draw", description="Draw a line.", action_type=Draw, executor=draw
            ),
            ToolDefinition(
                name="sentiment",
                description="Classify the text's sentiment.",
                action_type=Sentiment,
            ),
        ]
    )


def valid(schema: dict[str, Any], response: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(response)


# -- the schema ------------------------------------------------------------------------------


def test_composed_schema_is_a_valid_schema(toolset: Toolset) -> None:
    schema = toolset.compose(ANSWER_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["calls", "output"]
    variants = schema["properties"]["calls"]["items"]["anyOf"]
    assert [v["properties"]["_tool"]["enum"] for v in variants] == [
        ["read_file"],
        ["draw"],
        ["sentiment"],
    ]
    assert all(v["required"][0] == "_tool" for v in variants)
    assert variants[1]["description"] == "Draw a line."
    # The nested model's definition moved to the root, under the tool's name.
    assert set(schema["$defs"]) == {"tool-draw__Point"}
    assert variants[1]["properties"]["points"]["items"] == {"$ref": "#/$defs/tool-draw__Point"}


GOOD = [
    {"calls": [], "output": {"summary": "fine", "score": 7}},
    {"calls": [{"_tool": "read_file", "path": "a.txt"}], "output": None},
    {
        "calls": [
            {"_tool": "draw", "points": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]},
            {"_tool": "sentiment", "label": "neutral"},
            {"_tool": "read_file", "path": "b.txt"},
        ],
        "output": {"summary": "drawn", "score": 3},
    },
]

BAD = {
    "unknown tool": {"calls": [{"_tool": "rm", "path": "/"}], "output": None},
    "no _tool": {"calls": [{"path": "a.txt"}], "output": None},
    "missing parameter": {"calls": [{"_tool": "read_file"}], "output": None},
    "wrong type": {"calls": [{"_tool": "read_file", "path": 3}], "output": None},
    "parameter of another tool": {
        "calls": [{"_tool": "read_file", "path": "a", "color": "red"}],
        "output": None,
    },
    "bad nested item": {"calls": [{"_tool": "draw", "points": [{"x": 1}]}], "output": None},
    "latent value out of enum": {
        "calls": [{"_tool": "sentiment", "label": "ecstatic"}],
        "output": None,
    },
    "output breaks its schema": {"calls": [], "output": {"summary": "x", "score": 11}},
    "output missing": {"calls": []},
    "calls not an array": {"calls": {"_tool": "read_file", "path": "a"}, "output": None},
    "extra key": {"calls": [], "output": None, "thoughts": "hmm"},
}


@pytest.mark.parametrize("response", GOOD)
def test_good_responses_validate(toolset: Toolset, response: dict[str, Any]) -> None:
    assert valid(toolset.compose(ANSWER_SCHEMA), response)


@pytest.mark.parametrize("case", list(BAD))
def test_bad_responses_do_not(toolset: Toolset, case: str) -> None:
    assert not valid(toolset.compose(ANSWER_SCHEMA), BAD[case])


def test_without_an_output_schema_the_output_is_null(toolset: Toolset) -> None:
    schema = compose(toolset)
    assert valid(schema, {"calls": [{"_tool": "read_file", "path": "a"}], "output": None})
    assert not valid(schema, {"calls": [], "output": "an answer"})


def test_output_schema_from_a_pydantic_model(toolset: Toolset) -> None:
    schema = compose(toolset, Answer)
    assert valid(schema, {"calls": [], "output": {"summary": "s", "score": 1}})
    assert not valid(schema, {"calls": [], "output": {"summary": "s", "score": -1}})


class Report(BaseModel):
    summary: str = Field(description="One line.")
    caveat: str = Field(default="none", description="What to keep in mind.")


def test_strict_schema_follows_openai_rules(toolset: Toolset) -> None:
    from toolplug.testing import check_openai_strict

    for output in (None, ANSWER_SCHEMA, Report):
        schema = toolset.compose(output, strict=True)
        jsonschema.Draft202012Validator.check_schema(schema)
        check_openai_strict(schema, "compose")
        assert "oneOf" not in json.dumps(schema) and '"const"' not in json.dumps(schema)


def test_strict_response_with_nulls_runs(toolset: Toolset, ran: list[str]) -> None:
    # What a model under strict structured outputs sends: every field, null for "not
    # given", in the calls and in the output.
    schema = toolset.compose(Report, strict=True)
    response = {
        "calls": [{"_tool": "draw", "points": [{"x": 1, "y": 2}], "color": None}],
        "output": {"summary": "done", "caveat": None},
    }
    assert valid(schema, response)
    assert not valid(toolset.compose(Report), response)  # the plain schema says no
    result = toolset.run_composed(json.dumps(response), output_schema=Report, strict=True)
    assert ran == ["draw"]
    assert result.observations[0].text.endswith("1 points in black")
    assert result.output == Report(summary="done", caveat="none")


def test_strict_json_schema_output_drops_nulls_for_optional_fields(toolset: Toolset) -> None:
    wanted = {
        "type": "object",
        "properties": {"summary": {"type": "string"}, "note": {"type": "string"}},
        "required": ["summary"],
    }
    response = {"calls": [], "output": {"summary": "s", "note": None}}
    assert valid(toolset.compose(wanted, strict=True), response)
    result = toolset.run_composed(response, output_schema=wanted, strict=True)
    assert result.output == {"summary": "s"}  # "not given", as the plain schema has it
    with pytest.raises(ComposeError, match="note"):
        toolset.run_composed(response, output_schema=wanted)


class Owner(BaseModel):
    name: str = Field(description="Who.")
    team: str = Field(default="core", description="Their team.")


class Step(BaseModel):
    name: str = Field(description="What to do.")
    retries: int = Field(default=3, description="How often to try again.")
    note: str | None = Field(default=None, description="A remark; null is a value here.")


class Plan(BaseModel):
    title: str = Field(description="One line.")
    steps: list[Step] = Field(description="In order.")
    owner: Owner = Field(default=Owner(name="nobody"), description="Who owns it.")
    lead: Owner | None = Field(default=None, description="Who leads, if anyone.")


# What a model under strict structured outputs sends: every field, null for "not given",
# at every depth: in the items of an array, in a nested object, for a nested object.
STRICT_PLAN = {
    "title": "ship it",
    "steps": [
        {"name": "build", "retries": None, "note": None},
        {"name": "test", "retries": 5, "note": "twice"},
    ],
    "owner": {"name": "ann", "team": None},
    "lead": None,
}
PLAN = {
    "title": "ship it",
    "steps": [
        {"name": "build", "retries": 3, "note": None},
        {"name": "test", "retries": 5, "note": "twice"},
    ],
    "owner": {"name": "ann", "team": "core"},
    "lead": None,
}


@pytest.mark.parametrize("kind", ["pydantic", "json schema"])
def test_strict_nulls_become_defaults_at_every_depth(toolset: Toolset, kind: str) -> None:
    output_schema: Any = Plan if kind == "pydantic" else Plan.model_json_schema()
    schema = toolset.compose(output_schema, strict=True)
    for sent, expected in [
        (STRICT_PLAN, PLAN),
        ({**STRICT_PLAN, "owner": None}, {**PLAN, "owner": {"name": "nobody", "team": "core"}}),
    ]:
        response = {"calls": [], "output": sent}
        assert valid(schema, response)
        output = toolset.run_composed(response, output_schema=output_schema, strict=True).output
        # The same answer either way: a model instance, or its fields as JSON data.
        assert (output.model_dump() if kind == "pydantic" else output) == expected


def test_strict_json_schema_nulls_through_refs_anyof_and_allof(toolset: Toolset) -> None:
    wanted = {
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "meta": {
                "anyOf": [
                    {"$ref": "#/$defs/Meta"},
                    {"type": "string", "description": "Or just a label."},
                ]
            },
            "pairs": {
                "type": "array",
                "items": {
                    "allOf": [
                        {"type": "object", "properties": {"key": {"type": "string"}}},
                        {"properties": {"weight": {"type": "number", "default": 1.5}}},
                    ],
                    "required": ["key"],
                },
            },
        },
        "required": ["summary", "pairs"],
        "$defs": {
            "Meta": {
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "level": {"$ref": "#/$defs/Level"},
                },
                "required": ["tags"],
            },
            "Level": {"type": "integer", "default": 1},
        },
    }
    sent = {
        "summary": "s",
        "meta": {"tags": ["a"], "level": None},
        "pairs": [{"key": "x", "weight": None}, {"key": "y", "weight": 2}],
    }
    result = run_composed(toolset, {"calls": [], "output": sent}, output_schema=wanted, strict=True)
    assert result.output == {
        "summary": "s",
        "meta": {"tags": ["a"], "level": 1},
        "pairs": [{"key": "x", "weight": 1.5}, {"key": "y", "weight": 2}],
    }
    # A null where the field is required is still an error the model can act on.
    with pytest.raises(ComposeError, match=r"output\['pairs'\]\[0\]\['key'\]"):
        run_composed(
            toolset,
            {"calls": [], "output": {**sent, "pairs": [{"key": None, "weight": None}]}},
            output_schema=wanted,
            strict=True,
        )


def test_an_output_that_is_not_an_object(toolset: Toolset) -> None:
    with pytest.raises(ComposeError, match="must be an object with the fields of Answer"):
        toolset.run_composed({"calls": [], "output": "42"}, output_schema=Answer)


def test_no_tools() -> None:
    schema = compose(Toolset(), ANSWER_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert valid(schema, {"calls": [], "output": {"summary": "s", "score": 1}})
    assert not valid(schema, {"calls": [{"_tool": "x"}], "output": None})


# -- running a response ----------------------------------------------------------------------


def test_run_composed(toolset: Toolset, ran: list[str]) -> None:
    result = toolset.run_composed(json.dumps(GOOD[2]), output_schema=ANSWER_SCHEMA)
    assert isinstance(result, ComposedResult)
    assert [c.name for c in result.calls] == ["draw", "sentiment", "read_file"]
    assert [o.text for o in result.observations] == [
        "2 points in black",
        '{"label": "neutral"}',
        "contents of b.txt",
    ]
    assert ran == ["draw", "b.txt"]  # the latent tool did not run
    assert isinstance(result.observations[1], LatentObservation)
    assert result.latent() == [(result.calls[1], {"label": "neutral"})]
    assert result.output == {"summary": "drawn", "score": 3}
    assert result.done
    prompt = json.loads(result.to_prompt())
    assert prompt["results"][2] == {
        "_tool": "read_file",
        "is_error": False,
        "result": "contents of b.txt",
    }


def test_run_composed_with_a_pydantic_output(toolset: Toolset) -> None:
    result = run_composed(toolset, GOOD[0], output_schema=Answer)
    assert result.output == Answer(summary="fine", score=7)
    assert result.calls == [] and result.observations == []


def test_calls_without_output_are_not_done(toolset: Toolset) -> None:
    result = run_composed(toolset, GOOD[1], output_schema=Answer)
    assert not result.done and result.output is None
    assert result.observations[0].text == "contents of a.txt"


def test_bad_calls_fail_alone(toolset: Toolset, ran: list[str]) -> None:
    response = {
        "calls": [
            {"_tool": "rm", "path": "/"},
            {"path": "a.txt"},
            "read a.txt",
            {"_tool": "read_file", "path": 3},
            {"_tool": "sentiment", "label": "ecstatic"},
            {"_tool": "read_file", "path": "ok.txt"},
        ],
        "output": None,
    }
    result = run_composed(toolset, response)
    errors = [o.is_error for o in result.observations]
    assert errors == [True, True, True, True, True, False]
    texts = [o.text for o in result.observations]
    assert texts[0].startswith("There is no tool named 'rm'.")
    assert "'_tool' names one of the tools: read_file, draw, sentiment" in texts[1]
    assert "'_tool' names one of the tools" in texts[2]
    assert "path: Input should be a valid string" in texts[3]
    assert "label" in texts[4]
    assert ran == ["ok.txt"]


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"calls": "read a.txt", "output": None}, "'calls' must be an array"),
        ({"calls": [], "output": None, "thoughts": "x"}, "Unknown keys in the response: thoughts"),
        (
            {"calls": [{"_tool": "read_file", "path": "a"}], "output": {"summary": 1, "score": 11}},
            "Invalid 'output'",
        ),
    ],
)
def test_responses_unusable_as_a_whole_raise_and_run_nothing(
    toolset: Toolset, ran: list[str], response: Any, message: str
) -> None:
    with pytest.raises(ComposeError, match=message):
        run_composed(toolset, response, output_schema=ANSWER_SCHEMA)
    assert ran == []


def test_output_errors_name_the_fields(toolset: Toolset) -> None:
    bad = {"calls": [], "output": {"summary": 1, "score": 11}}
    with pytest.raises(ComposeError) as schema_error:
        run_composed(toolset, bad, output_schema=ANSWER_SCHEMA)
    assert "output['summary']: 1 is not of type 'string'" in str(schema_error.value)
    assert "output['score']: 11 is greater than the maximum of 10" in str(schema_error.value)
    with pytest.raises(ComposeError) as model_error:
        run_composed(toolset, bad, output_schema=Answer)
    assert "Invalid 'output':" in str(model_error.value)
    assert "score" in str(model_error.value) and "summary" in str(model_error.value)


def test_latent_only_toolset_round_trip() -> None:
    toolset = Toolset(
        [ToolDefinition(name="sentiment", description="Classify.", action_type=Sentiment)]
    )
    schema = compose(toolset)
    response = {"calls": [{"_tool": "sentiment", "label": "negative"}], "output": None}
    assert valid(schema, response)
    result = run_composed(toolset, response)
    assert result.latent()[0][1] == {"label": "negative"}
