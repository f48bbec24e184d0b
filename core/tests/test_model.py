from __future__ import annotations

import base64
import json
from typing import Any

import jsonschema
import pytest
from core_test_tools import EchoObservation
from toolplug import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    Observation,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from toolplug.formats import render
from toolplug.testing import check_structured_content, validate_observation_exports

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def test_text_joins_text_blocks_only() -> None:
    obs = Observation(
        content=[
            TextContent(text="a"),
            ImageContent.from_bytes(PNG, "image/png"),
            TextContent(text="b"),
        ]
    )
    assert obs.text == "a\nb"


def test_typed_fields_are_structured_content_and_output_schema() -> None:
    obs = EchoObservation.from_text("You said: hihi", echoed="hihi")
    assert obs.structured_content() == {"text": "You said: hihi", "echoed": "hihi"}
    schema = EchoObservation.output_schema()
    assert schema is not None
    assert set(schema["properties"]) == {"text", "echoed"}
    assert schema["required"] == ["text", "echoed"]
    assert "$defs" not in schema  # content block definitions are not part of it
    assert Observation.output_schema() is None


def test_structured_content_carries_the_text_the_model_reads() -> None:
    # Hosts that prefer structuredContent (pydantic-ai, openai-agents, smolagents) show
    # the model that instead of the blocks: the text must be in it, images aside.
    obs = EchoObservation(
        content=[
            TextContent(text="line one"),
            ImageContent.from_bytes(PNG, "image/png"),
            TextContent(text="line two"),
        ],
        echoed="x",
    )
    structured = obs.structured_content()
    assert structured is not None
    assert structured["text"] == obs.text == "line one\nline two"
    jsonschema.validate(structured, EchoObservation.output_schema())
    check_structured_content(obs, EchoObservation.output_schema())


def test_the_text_key_is_escaped_like_the_fields() -> None:
    obs = EchoObservation.from_text("bad \ud800 text", echoed="bad \udc80")
    structured = obs.structured_content()
    assert structured is not None
    assert structured["text"] == obs.text == "bad \\ud800 text"
    json.dumps(structured, ensure_ascii=False).encode("utf-8")  # no lone surrogate left


def test_to_llm_content_falls_back_to_fields_as_json() -> None:
    obs = EchoObservation(echoed="x")
    assert obs.text == '{"echoed": "x"}'
    assert obs.structured_content() == {"text": '{"echoed": "x"}', "echoed": "x"}


class _FieldsOnly(EchoObservation):
    def structured_content(self) -> dict[str, Any] | None:
        return {"echoed": self.echoed}


def test_the_check_refuses_structured_content_without_the_text() -> None:
    obs = _FieldsOnly.from_text("the file's lines", echoed="x")
    with pytest.raises(AssertionError, match="leaves out the text"):
        check_structured_content(obs)
    # a text that is the JSON of the structured content (fastmcp's way) is carried
    check_structured_content(_FieldsOnly.from_text('{"echoed": "x"}', echoed="x"))


def test_the_check_holds_results_to_the_output_schema() -> None:
    schema = EchoObservation.output_schema()
    with pytest.raises(AssertionError, match="needs structuredContent"):
        check_structured_content(Observation.from_text("no fields"), schema)
    with pytest.raises(AssertionError, match="does not match the outputSchema"):
        check_structured_content(_FieldsOnly.from_text("x", echoed="x"), schema)
    check_structured_content(Observation.error("failed"), schema)  # errors carry none


def test_error_observation_has_no_structured_content() -> None:
    obs = Observation.error("broken")
    assert obs.is_error
    assert obs.structured_content() is None
    assert render(obs, "mcp") == {"content": [{"type": "text", "text": "broken"}], "isError": True}


def test_images_travel_where_providers_allow_them() -> None:
    obs = Observation(content=[TextContent(text="look"), ImageContent.from_bytes(PNG, "image/png")])
    validate_observation_exports(obs)
    openai_msg = render(obs, "openai", "c1")
    assert openai_msg["content"].startswith("look\n[image image/png")
    anthropic = render(obs, "anthropic", "c1")
    assert [b["type"] for b in anthropic["content"]] == ["text", "image"]
    assert anthropic["content"][1]["source"]["data"] == base64.b64encode(PNG).decode()
    responses = render(obs, "responses", "c1")
    assert responses["output"][1]["image_url"].startswith("data:image/png;base64,")
    assert render(obs, "mcp")["content"][1] == {
        "type": "image",
        "data": base64.b64encode(PNG).decode(),
        "mimeType": "image/png",
    }


def test_every_mcp_block_kind_round_trips_through_mcp_types() -> None:
    import mcp.types

    obs = Observation(
        content=[
            TextContent(text="t"),
            AudioContent(data=base64.b64encode(b"RIFF").decode(), mimeType="audio/wav"),
            ResourceLink(uri="file:///tmp/x.txt", name="x.txt"),
            EmbeddedResource(resource=TextResourceContents(uri="file:///a", text="body")),
        ]
    )
    result = mcp.types.CallToolResult.model_validate(render(obs, "mcp"))
    assert [c.type for c in result.content] == ["text", "audio", "resource_link", "resource"]
    back = Observation.model_validate({"content": render(obs, "mcp")["content"]})
    assert back.content == obs.content
    validate_observation_exports(obs)
    assert "[resource x.txt: file:///tmp/x.txt]" in render(obs, "openai", "c")["content"]


def test_anthropic_error_flag_and_openai_text() -> None:
    obs = Observation.error("nope")
    assert render(obs, "anthropic", "t1") == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [{"type": "text", "text": "nope"}],
        "is_error": True,
    }
    assert render(obs, "openai", "t1") == {"role": "tool", "tool_call_id": "t1", "content": "nope"}
    assert render(obs, "responses", "t1") == {
        "type": "function_call_output",
        "call_id": "t1",
        "output": "nope",
    }


def test_printable_escapes_what_utf8_cannot_carry() -> None:
    import os

    from toolplug import printable

    name = os.fsdecode(b"caf\xe9.txt")  # a Latin-1 file name, as Python lists it
    assert printable(name) == "caf\\xe9.txt"
    assert printable("a\ud800b") == "a\\ud800b"
    assert printable("déjà vu") == "déjà vu"
    printable(name).encode("utf-8")  # now valid
