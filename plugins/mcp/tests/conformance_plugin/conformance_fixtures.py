"""A test-only toolplug plugin: the fixture tools the MCP conformance suite's server
scenarios call (``npx @modelcontextprotocol/conformance server``).

Each tool is named and behaves as its scenario's description asks (the suite prints them
with ``list --server``); served by ``toolplug mcp serve --plugins conformance``, they let
the suite check what toolplug's server makes of ordinary toolplug tools: content blocks,
error results, progress and log messages, and questions (elicitation).
"""

from __future__ import annotations

import base64
import time
from typing import Any

from pydantic import ConfigDict, Field
from toolplug import Action, Observation, ToolDefinition, hookimpl
from toolplug.content import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)
from toolplug.interaction import ask, ask_model, log, report_progress

# A 1x1 red PNG and a 44-byte WAV header with no samples: the smallest valid files.
RED_PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
SILENT_WAV = (
    b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00"
    b"\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00"
)
PAUSE = 0.05  # the scenarios ask for ~50 ms between reports


class NoArguments(Action):
    """A tool without arguments."""


def simple_text(action: NoArguments) -> Observation:
    return Observation.from_text("This is a simple text response for testing.")


def image_content(action: NoArguments) -> Observation:
    return Observation(content=[ImageContent.from_bytes(RED_PIXEL_PNG, "image/png")])


def audio_content(action: NoArguments) -> Observation:
    data = base64.b64encode(SILENT_WAV).decode("ascii")
    return Observation(content=[AudioContent(data=data, mimeType="audio/wav")])


EMBEDDED = EmbeddedResource(
    resource=TextResourceContents(
        uri="test://embedded-resource",
        mimeType="text/plain",
        text="This is an embedded resource content.",
    )
)


def embedded_resource(action: NoArguments) -> Observation:
    return Observation(content=[EMBEDDED])


def multiple_content_types(action: NoArguments) -> Observation:
    return Observation(
        content=[
            TextContent(text="Multiple content types test:"),
            ImageContent.from_bytes(RED_PIXEL_PNG, "image/png"),
            EMBEDDED,
        ]
    )


def error_handling(action: NoArguments) -> Observation:
    return Observation.error("This tool intentionally returns an error for testing")


def tool_with_logging(action: NoArguments) -> Observation:
    log("info", "Tool execution started")
    time.sleep(PAUSE)
    log("info", "Tool processing data")
    time.sleep(PAUSE)
    log("info", "Tool execution completed")
    return Observation.from_text("Tool with logging executed successfully")


def tool_with_progress(action: NoArguments) -> Observation:
    for done in (0, 50, 100):
        report_progress(done, 100)
        if done < 100:
            time.sleep(PAUSE)
    return Observation.from_text("Tool with progress executed successfully")


class ElicitationAction(Action):
    message: str = Field(description="The message to show the user.")


USER_FORM = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


def elicitation(action: ElicitationAction) -> Observation:
    answer = ask(action.message, USER_FORM)
    return Observation.from_text(
        f"User response: <action: {answer.action}, content: {answer.content or {}}>"
    )


class SamplingAction(Action):
    prompt: str = Field(description="The prompt to send to the model.")


def sampling(action: SamplingAction) -> Observation:
    completion = ask_model(action.prompt, max_tokens=100)
    text = completion if isinstance(completion, str) else completion["content"]["text"]
    return Observation.from_text(f"LLM response: {text}")


DEFAULTS_FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}


def elicitation_defaults(action: NoArguments) -> Observation:
    answer = ask("Please review and update the form fields with defaults", DEFAULTS_FORM)
    return Observation.from_text(
        f"Elicitation completed: action={answer.action}, content={answer.content or {}}"
    )


def _titled(prefix: str, titles: list[str]) -> list[dict[str, str]]:
    return [{"const": f"{prefix}{i}", "title": t} for i, t in enumerate(titles, 1)]


ENUMS_FORM = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": _titled("value", ["First Option", "Second Option", "Third Option"]),
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {"anyOf": _titled("value", ["First Choice", "Second Choice", "Third Choice"])},
        },
    },
}


def elicitation_enums(action: NoArguments) -> Observation:
    answer = ask("Please select options from the enum fields", ENUMS_FORM)
    return Observation.from_text(
        f"Elicitation completed: action={answer.action}, content={answer.content or {}}"
    )


class SchemaAction(Action):
    """Anything: the scenario only lists this tool, and checks its input schema."""

    model_config = ConfigDict(extra="allow")


SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


class RawSchemaTool(ToolDefinition[SchemaAction, Observation]):
    """A tool that exports a hand-written input schema, as the 2020-12 scenario wants."""

    def input_schema(self, *, security_risk: bool = False) -> dict[str, Any]:
        return dict(SCHEMA_2020_12)


def schema_echo(action: SchemaAction) -> Observation:
    return Observation.from_text(f"{action.model_dump()}")


TOOLS = {
    "test_simple_text": (simple_text, NoArguments, "Returns simple text content."),
    "test_image_content": (image_content, NoArguments, "Returns a PNG image."),
    "test_audio_content": (audio_content, NoArguments, "Returns a WAV sound."),
    "test_embedded_resource": (embedded_resource, NoArguments, "Returns a resource."),
    "test_multiple_content_types": (
        multiple_content_types,
        NoArguments,
        "Returns text, an image and a resource.",
    ),
    "test_error_handling": (error_handling, NoArguments, "Always fails."),
    "test_tool_with_logging": (tool_with_logging, NoArguments, "Logs three messages."),
    "test_tool_with_progress": (tool_with_progress, NoArguments, "Reports progress."),
    "test_elicitation": (elicitation, ElicitationAction, "Asks the user a question."),
    "test_sampling": (sampling, SamplingAction, "Asks the client's model."),
    "test_elicitation_sep1034_defaults": (
        elicitation_defaults,
        NoArguments,
        "Asks with a form whose fields have defaults.",
    ),
    "test_elicitation_sep1330_enums": (
        elicitation_enums,
        NoArguments,
        "Asks with a form of every kind of enum.",
    ),
}


@hookimpl
def register_tools(register):  # type: ignore[no-untyped-def]
    for name, (executor, action_type, description) in TOOLS.items():
        register(
            ToolDefinition(
                name=name, description=description, action_type=action_type, executor=executor
            )
        )
    register(
        RawSchemaTool(
            name="json_schema_2020_12_tool",
            description="Tool with JSON Schema 2020-12 features",
            action_type=SchemaAction,
            executor=schema_echo,
        )
    )
