"""The safe entry point's argument handling: repairs that are unambiguous, clear errors."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field
from toolplug import Action, Observation, ToolDefinition
from toolplug.formats import export_tool


class Point(BaseModel):
    x: int
    y: int


class PlotAction(Action):
    title: str = Field(description="The plot's title.")
    points: list[Point] = Field(default_factory=list, description="Points to draw.")
    options: dict[str, str] = Field(default_factory=dict, description="Free-form options.")
    style: Literal["line", "bar"] = Field(default="line", description="How to draw.")
    width: Annotated[int, Field(ge=1, le=1000, description="Width in pixels.")] = 100


def _plot(action: PlotAction) -> Observation:
    return Observation.from_text(
        f"{action.title}:{len(action.points)}:{action.style}:{action.width}"
    )


TOOL = ToolDefinition(name="plot", description="Plot.", action_type=PlotAction, executor=_plot)


def test_valid_arguments_as_dict_json_string_and_bytes() -> None:
    for args in ({"title": "t"}, '{"title": "t"}', b'{"title": "t"}'):
        obs = TOOL.call(args)
        assert not obs.is_error
        assert obs.text == "t:0:line:100"


def test_json_string_where_a_list_or_object_belongs_is_parsed_and_noted() -> None:
    obs = TOOL.call({"title": "t", "points": '[{"x": 1, "y": 2}]', "options": '{"a": "b"}'})
    assert not obs.is_error, obs.text
    assert obs.text.endswith("t:1:line:100")
    assert "'points' was a JSON string; parsed it as an array" in obs.text
    assert "'options' was a JSON string; parsed it as an object" in obs.text


def test_null_for_an_optional_field_means_its_default() -> None:
    obs = TOOL.call({"title": "t", "style": None, "width": None})
    assert obs.text.endswith("t:0:line:100")
    assert "'style' was null; used its default instead" in obs.text


def test_unknown_extra_key_is_dropped_and_noted() -> None:
    obs = TOOL.call({"title": "t", "colour": "red"})
    assert not obs.is_error
    assert "ignored the unknown argument 'colour'" in obs.text


def test_double_encoded_json_is_decoded() -> None:
    obs = TOOL.call('"{\\"title\\": \\"t\\"}"')
    assert not obs.is_error, obs.text
    assert "JSON-encoded twice" in obs.text


def test_security_risk_is_accepted_silently() -> None:
    obs = TOOL.call({"title": "t", "security_risk": "LOW"})
    assert obs.text == "t:0:line:100"


def test_invalid_json_says_where() -> None:
    obs = TOOL.call('{"title": ')
    assert obs.is_error
    assert "not valid JSON" in obs.text and "column" in obs.text


def test_non_object_arguments() -> None:
    obs = TOOL.call("[1, 2]")
    assert obs.is_error
    assert "must be a JSON object" in obs.text and "an array" in obs.text


def test_errors_name_field_expected_and_got() -> None:
    obs = TOOL.call({"style": "pie", "width": 0, "points": [{"x": "a", "y": 1}]})
    assert obs.is_error
    text = obs.text
    assert "- title: this required field is missing" in text
    assert "- style: Input should be 'line' or 'bar' (got \"pie\")" in text
    assert "- width: Input should be greater than or equal to 1 (got 0)" in text
    assert "- points.0.x:" in text and '(got "a")' in text
    assert "title (string, required)" in text
    assert 'style ("line" | "bar", optional, default "line")' in text
    assert "width (integer, optional, default 100)" in text


def test_unknown_key_next_to_a_missing_one_is_reported_not_hidden() -> None:
    obs = TOOL.call({"titel": "t"})
    assert obs.is_error
    assert "- titel: not a parameter of this tool" in obs.text
    assert "- title: this required field is missing" in obs.text


def test_a_json_string_that_is_not_json_stays_an_error() -> None:
    obs = TOOL.call({"title": "t", "points": "three points"})
    assert obs.is_error
    assert "- points: Input should be a valid list" in obs.text


class Circle(BaseModel):
    radius: int
    fill: str = "none"


class Square(BaseModel):
    side: int
    fill: str = "red"


class LabelledPoint(Point):
    name: str = "p"
    weight: float = 1.0


class StrictSceneAction(Action):
    points: list[LabelledPoint] = Field(description="Points.")
    labels: dict[str, LabelledPoint] = Field(default_factory=dict, description="Named.")
    origin: LabelledPoint | None = Field(default=None, description="Where to start.")
    shape: Circle | Square | None = Field(default=None, description="A shape.")
    layers: list[list[Circle]] = Field(default_factory=list, description="Nested lists.")


def _scene(action: StrictSceneAction) -> Observation:
    return Observation.from_text(action.model_dump_json())


SCENE = ToolDefinition(
    name="scene", description="Scene.", action_type=StrictSceneAction, executor=_scene
)


NESTED_NULLS = {
    "points": [{"x": 1, "y": 2, "name": None, "weight": None}],
    "labels": {"a": {"x": 3, "y": 4, "name": None, "weight": 2.5}},
    "origin": {"x": 0, "y": 0, "name": "o", "weight": None},
    "shape": {"radius": 5, "fill": None},
    "layers": [[{"radius": 1, "fill": None}]],
}


def test_nested_nulls_are_what_the_strict_schema_allows() -> None:
    import jsonschema  # a test dependency

    class FixedKeys(StrictSceneAction):  # strict mode has no free-form dict keys
        labels: None = Field(default=None, description="Not used here.")

    tool = ToolDefinition(name="scene", description="Scene.", action_type=FixedKeys)
    arguments = {**NESTED_NULLS, "labels": None}
    jsonschema.validate(
        arguments, export_tool(tool, "openai", strict=True)["function"]["parameters"]
    )
    with pytest.raises(jsonschema.ValidationError):  # and the plain schema does not
        jsonschema.validate(arguments, tool.input_schema())


def test_null_for_a_nested_optional_field_means_its_default() -> None:
    # What OpenAI's strict mode sends for "not given", at every depth.
    obs = SCENE.call(NESTED_NULLS)
    assert not obs.is_error, obs.text
    data = json.loads(obs.text.splitlines()[-1])
    assert data["points"] == [{"x": 1, "y": 2, "name": "p", "weight": 1.0}]
    assert data["labels"]["a"] == {"x": 3, "y": 4, "name": "p", "weight": 2.5}
    assert data["origin"]["weight"] == 1.0
    assert data["shape"] == {"radius": 5, "fill": "none"}
    assert data["layers"] == [[{"radius": 1, "fill": "none"}]]
    assert "'points.0.name' was null; used its default instead" in obs.text
    assert "'shape.fill' was null" in obs.text  # the data's path, not pydantic's


def test_null_for_a_nested_required_field_stays_an_error() -> None:
    obs = SCENE.call({"points": [{"x": None, "y": 2}]})
    assert obs.is_error
    assert "points.0.x" in obs.text and "got null" in obs.text


def test_a_declared_security_risk_is_kept_off_the_action_fields_but_readable() -> None:
    from toolplug import Action, ToolDefinition

    class Run(Action):
        command: str

    tool = ToolDefinition(name="run", description="Run.", action_type=Run)
    action, _ = tool.parse_action({"command": "ls", "security_risk": "HIGH"})
    assert action.model_dump() == {"command": "ls"}
    assert action.declared_risk == "HIGH"
    plain, _ = tool.parse_action({"command": "ls"})
    assert plain.declared_risk is None
    odd, _ = tool.parse_action({"command": "ls", "security_risk": "x\x1b[2J" * 30})
    assert odd.declared_risk is not None and "\x1b" not in odd.declared_risk
    assert len(odd.declared_risk) <= 80
