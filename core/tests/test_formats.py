"""The formats layer: every format's round trip (export, the provider's calls, results
back) through dispatch, checked against the providers' own SDK definitions offline."""

from __future__ import annotations

import base64
import json
from typing import Any

import pluggy
import pytest
from core_test_tools import make_echo_tool
from pydantic import BaseModel, Field
from toolplug import (
    Action,
    DispatchError,
    FormatError,
    ImageContent,
    Observation,
    TextContent,
    ToolAnnotations,
    ToolCall,
    ToolDefinition,
    Toolset,
    hookimpl,
    hookspecs,
    tool_result_message,
)
from toolplug.formats import (
    NO_OUTPUT,
    FormatRegistry,
    ToolFormat,
    default_formats,
    fill_formats,
    result_text,
)
from toolplug.formats.gemini import RECURSION_DEPTH, to_gemini_schema

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n fake").decode()


class Empty(Action):
    pass


class Issue(Action):
    title: str = Field(description="The issue's title.")


def _picture(action: Empty) -> Observation:
    return Observation(
        content=[TextContent(text="a picture"), ImageContent(data=PNG, mimeType="image/png")]
    )


def _silent(action: Empty) -> Observation:
    return Observation(content=[TextContent(text="")])


def _boom(action: Empty) -> Observation:
    raise RuntimeError("the disk is on fire")


def _open_issue(action: Issue) -> Observation:
    return Observation.from_text(f"opened: {action.title}")


def _toolset() -> Toolset:
    read_only = ToolAnnotations(readOnlyHint=True)
    return Toolset(
        [
            make_echo_tool(),
            ToolDefinition(
                name="picture",
                description="A picture.",
                action_type=Empty,
                executor=_picture,
                annotations=read_only,
            ),
            ToolDefinition(
                name="silent",
                description="Says nothing.",
                action_type=Empty,
                executor=_silent,
                annotations=read_only,
            ),
            ToolDefinition(name="boom", description="Fails.", action_type=Empty, executor=_boom),
            # A name providers refuse (a dot) next to the name it would be mapped to.
            ToolDefinition(
                name="github.open_issue",
                description="Open an issue.",
                action_type=Issue,
                executor=_open_issue,
            ),
            ToolDefinition(
                name="github_open_issue",
                description="Open another issue.",
                action_type=Issue,
                executor=_open_issue,
            ),
        ]
    )


def test_the_core_formats_register_through_the_hook() -> None:
    assert list(default_formats()) == [
        "openai",
        "responses",
        "anthropic",
        "gemini",
        "bedrock",
        "mcp",
        "toolplug",
    ]


def test_every_export_passes_its_providers_checks() -> None:
    toolset = _toolset()
    for name, fmt in toolset.formats.items():
        for options in ({}, {"security_risk": True}):
            for exported in toolset.export(name, **options):
                fmt.check_tool(exported)


def _exported_name(toolset: Toolset, fmt: str, tool: str) -> str:
    return toolset.provider_names().external(tool) if toolset.formats[fmt].maps_names else tool


def test_dotted_and_underscored_names_stay_apart_and_stable() -> None:
    toolset = _toolset()
    dotted = _exported_name(toolset, "openai", "github.open_issue")
    plain_name = _exported_name(toolset, "openai", "github_open_issue")
    assert plain_name == "github_open_issue"
    assert dotted != plain_name and dotted.startswith("github_open_issue_")
    again = Toolset(reversed(list(_toolset().values())))  # another order, same names
    assert again.provider_names().external("github.open_issue") == dotted


# -- each provider's calls, as its API sends them --------------------------------------


def _openai_calls(names: dict[str, str]) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": names[tool], "arguments": json.dumps(args)},
        }
        for i, (tool, args) in enumerate(_CALLS)
    ]
    return {"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": calls}}]}


def _responses_calls(names: dict[str, str]) -> dict[str, Any]:
    output: list[dict[str, Any]] = [{"type": "reasoning", "id": "rs_1", "summary": []}]
    output += [
        {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": f"call_{i}",
            "name": names[tool],
            "arguments": json.dumps(args),
        }
        for i, (tool, args) in enumerate(_CALLS)
    ]
    return {"id": "resp_1", "object": "response", "output": output}


def _anthropic_calls(names: dict[str, str]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": "On it."}]
    content += [
        {"type": "tool_use", "id": f"toolu_{i}", "name": names[tool], "input": args}
        for i, (tool, args) in enumerate(_CALLS)
    ]
    return {"role": "assistant", "content": content}


def _gemini_calls(names: dict[str, str]) -> Any:
    from google.genai import types

    parts: list[dict[str, Any]] = [{"text": "Calling the tools."}]
    parts += [
        {"functionCall": {"name": names[tool], "args": args, **({"id": f"fc_{i}"} if i else {})}}
        for i, (tool, args) in enumerate(_CALLS)
    ]
    response = {"candidates": [{"content": {"role": "model", "parts": parts}}]}
    # The SDK's own object, as a host holds it: dispatch reads it as it is.
    return types.GenerateContentResponse.model_validate(response)


def _bedrock_calls(names: dict[str, str]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"text": "Let me check."}]
    content += [
        {"toolUse": {"toolUseId": f"tooluse_{i}", "name": names[tool], "input": args}}
        for i, (tool, args) in enumerate(_CALLS)
    ]
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "tool_use",
    }


def _mcp_calls(names: dict[str, str]) -> list[dict[str, Any]]:
    return [{"name": names[tool], "arguments": args} for tool, args in _CALLS]


def _toolplug_calls(names: dict[str, str]) -> list[ToolCall]:
    return [ToolCall(f"c{i}", names[tool], args) for i, (tool, args) in enumerate(_CALLS)]


_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("echo", {"text": "hi", "times": 2}),
    ("picture", {}),
    ("silent", {}),
    ("boom", {}),
    ("github.open_issue", {"title": "dots work"}),
    ("github_open_issue", {"title": "so do underscores"}),
]

ROUND_TRIPS = {
    "openai": _openai_calls,
    "responses": _responses_calls,
    "anthropic": _anthropic_calls,
    "gemini": _gemini_calls,
    "bedrock": _bedrock_calls,
    "mcp": _mcp_calls,
    "toolplug": _toolplug_calls,
}


def test_a_round_trip_exists_for_every_core_format() -> None:
    assert set(ROUND_TRIPS) == set(default_formats())


@pytest.mark.parametrize("fmt_name", list(ROUND_TRIPS))
def test_round_trip_through_dispatch(fmt_name: str) -> None:
    toolset = _toolset()
    fmt = toolset.formats[fmt_name]
    exported = toolset.export(fmt_name)
    for entry in exported:
        fmt.check_tool(entry)
    names = {tool: _exported_name(toolset, fmt_name, tool) for tool, _ in _CALLS}
    results = toolset.dispatch(ROUND_TRIPS[fmt_name](names))
    assert len(results) == len(_CALLS)
    observations = [toolset.call(tool, args) for tool, args in _CALLS]
    for result, observation in zip(results, observations):
        fmt.check_result(result, observation)
    texts = [json.dumps(r, default=repr) for r in results]
    assert "hihi" in texts[0]
    assert "the disk is on fire" in texts[3]
    assert "opened: dots work" in texts[4] and "opened: so do underscores" in texts[5]
    if fmt_name in ("anthropic", "bedrock", "gemini"):
        message = tool_result_message(results, fmt_name)
        assert message["role"] == "user"


def test_results_answer_their_calls_in_each_providers_terms() -> None:
    toolset = _toolset()
    names = {tool: _exported_name(toolset, "openai", tool) for tool, _ in _CALLS}
    chat = toolset.dispatch(_openai_calls(names))
    assert [r["tool_call_id"] for r in chat] == [f"call_{i}" for i in range(len(_CALLS))]
    assert "[image image/png" in chat[1]["content"]  # Chat Completions takes text only

    anthropic = toolset.dispatch(_anthropic_calls(names))
    assert anthropic[1]["content"][1]["type"] == "image"
    assert anthropic[2]["content"] == [{"type": "text", "text": NO_OUTPUT}]  # never empty
    assert anthropic[3]["is_error"] is True

    gemini = toolset.dispatch(_gemini_calls(names))
    first, second = gemini[0]["functionResponse"], gemini[1]["functionResponse"]
    assert "id" not in first and second["id"] == "fc_1"  # echoed only when sent
    assert first["name"] == "echo" and first["response"] == {"output": "hihi"}
    assert second["parts"][0]["inlineData"] == {"mimeType": "image/png", "data": PNG}
    assert "error" in gemini[3]["functionResponse"]["response"]

    bedrock = toolset.dispatch(_bedrock_calls(names))
    image = bedrock[1]["toolResult"]["content"][1]["image"]
    assert image["format"] == "png" and image["source"]["bytes"] == base64.b64decode(PNG)
    assert bedrock[2]["toolResult"]["content"] == [{"text": NO_OUTPUT}]
    assert bedrock[3]["toolResult"]["status"] == "error"


def test_a_whole_bedrock_conversation_validates_against_botocore() -> None:
    from botocore import session, validate

    toolset = _toolset()
    names = {tool: _exported_name(toolset, "bedrock", tool) for tool, _ in _CALLS}
    response = _bedrock_calls(names)
    results = toolset.dispatch(response)
    request = {
        "modelId": "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "messages": [
            {"role": "user", "content": [{"text": "Do it all."}]},
            response["output"]["message"],
            tool_result_message(results, "bedrock"),
        ],
        "toolConfig": {"tools": toolset.export("bedrock")},
    }
    shape = (
        session.get_session()
        .get_service_model("bedrock-runtime")
        .operation_model("Converse")
        .input_shape
    )
    report = validate.ParamValidator().validate(request, shape)
    assert not report.has_errors(), report.generate_report()


def test_a_whole_gemini_conversation_validates_against_the_sdk() -> None:
    from google.genai import types

    toolset = _toolset()
    names = {tool: _exported_name(toolset, "gemini", tool) for tool, _ in _CALLS}
    response = _gemini_calls(names)
    results = toolset.dispatch(response)
    contents = [
        types.Content.model_validate({"role": "user", "parts": [{"text": "Do it all."}]}),
        response.candidates[0].content,
        types.Content.model_validate(tool_result_message(results, "gemini")),
    ]
    config = types.GenerateContentConfig.model_validate({"tools": toolset.export("gemini")})
    assert len(config.tools[0].function_declarations) == len(toolset)
    assert contents[2].parts[0].function_response.name == "echo"


# -- Gemini's schema subset ------------------------------------------------------------


class Node(BaseModel):
    label: str = Field(description="Label.")
    children: list[Node] = Field(default_factory=list, description="Children.")


class Shapes(Action):
    maybe: int | None = Field(default=None, description="Optional number.")
    cap: int | None = Field(default=5, description="A cap; null for none.")
    mode: str = Field(default="fast", json_schema_extra={"const": "fast"}, description="Mode.")
    level: int = Field(default=1, json_schema_extra={"enum": [1, 2, 3]}, description="Level.")
    anything: dict[str, Any] = Field(default_factory=dict, description="Free-form.")
    tree: Node | None = Field(default=None, description="A tree.")
    link: str = Field(default="", json_schema_extra={"format": "uri"}, description="A URL.")


def test_gemini_schema_subset() -> None:
    tool = ToolDefinition(name="shapes", description="Shapes.", action_type=Shapes)
    schema = to_gemini_schema(tool.input_schema())
    props = schema["properties"]
    # Left out means null: a plain type, not required. A null that means something
    # (a default of its own) is Gemini's nullable.
    assert props["maybe"] == {"type": "integer", "description": "Optional number."}
    assert "maybe" not in schema.get("required", [])
    assert props["cap"]["type"] == "integer" and props["cap"]["nullable"] is True
    assert props["mode"]["enum"] == ["fast"] and "const" not in props["mode"]
    assert props["level"]["enum"] == ["1", "2", "3"] and props["level"]["type"] == "string"
    assert "properties" not in props["anything"] and "additionalProperties" not in props["anything"]
    assert "format" not in props["link"]
    depth, node = 0, props["tree"]
    while "properties" in node:
        depth += 1
        node = node["properties"]["children"]["items"]
    assert depth == RECURSION_DEPTH and node["type"] == "object"
    default_formats()["gemini"].check_tool(Toolset([tool]).export("gemini")[0])


def test_a_tool_without_parameters_declares_none_for_gemini() -> None:
    tool = ToolDefinition(name="ping", description="Ping.", action_type=Empty)
    (gemini_tool,) = Toolset([tool]).export("gemini")
    assert gemini_tool == {"functionDeclarations": [{"name": "ping", "description": "Ping."}]}


def test_gemini_check_catches_what_the_api_refuses() -> None:
    gemini = default_formats()["gemini"]
    bad = {
        "functionDeclarations": [
            {"name": "x", "parameters": {"type": "object", "properties": {"a": {"type": "array"}}}}
        ]
    }
    with pytest.raises(AssertionError, match="an array needs items"):
        gemini.check_tool(bad)
    with pytest.raises(AssertionError, match="Gemini function name"):
        gemini.check_tool({"functionDeclarations": [{"name": "9lives"}]})


def test_bedrock_check_uses_botocores_model() -> None:
    bedrock = default_formats()["bedrock"]
    with pytest.raises(AssertionError, match="description"):
        bedrock.check_tool(
            {
                "toolSpec": {
                    "name": "x",
                    "description": "",
                    "inputSchema": {"json": {"type": "object"}},
                }
            }
        )


def test_anthropic_check_refuses_an_empty_text_block() -> None:
    anthropic = default_formats()["anthropic"]
    empty = {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": ""}]}
    with pytest.raises(AssertionError, match="empty text"):
        anthropic.check_result(empty, Observation())


# -- detection and errors --------------------------------------------------------------


def test_unknown_format_names_the_registered_ones() -> None:
    toolset = _toolset()
    with pytest.raises(FormatError, match="gemini, bedrock"):
        toolset.export("cohere")
    with pytest.raises(DispatchError, match="unknown format 'cohere'"):
        toolset.dispatch([], format="cohere")


def test_two_formats_in_one_batch_are_refused() -> None:
    calls = [
        {"functionCall": {"name": "echo", "args": {"text": "a"}}},
        {"toolUse": {"toolUseId": "t1", "name": "echo", "input": {"text": "b"}}},
    ]
    with pytest.raises(DispatchError, match="mix two formats: gemini and bedrock"):
        _toolset().dispatch(calls)


def test_a_bedrock_call_without_its_id_is_a_clear_error() -> None:
    with pytest.raises(DispatchError, match=r"AWS Bedrock Converse.*toolUseId"):
        _toolset().dispatch([{"toolUse": {"name": "echo", "input": {}}}])


# -- a plugin's format -------------------------------------------------------------------


class FrameworkFormat(ToolFormat):
    """A host framework's shape: ``{"tool", "args"}`` in, ``{"tool", "result"}`` out."""

    name = "framework"
    title = "A framework"

    def export_tool(
        self, tool: Any, *, name: str | None = None, security_risk: bool = False, **options: Any
    ) -> dict[str, Any]:
        return {"tool": name or tool.name, "schema": tool.input_schema(security_risk=security_risk)}

    def read_call(self, item: Any, index: int) -> ToolCall | None:
        if "tool" in item and "args" in item:
            return ToolCall(str(index), item["tool"], item["args"])
        return None

    def render_result(self, call: ToolCall, observation: Observation) -> dict[str, Any]:
        return {
            "tool": call.name,
            "result": result_text(observation),
            "ok": not observation.is_error,
        }


class FrameworkPlugin:
    @hookimpl
    def register_formats(self, register: Any) -> None:
        register(FrameworkFormat())


class Clashing:
    @hookimpl
    def register_formats(self, register: Any) -> None:
        register(FrameworkFormat())


def _formats_with(*plugins: Any) -> tuple[FormatRegistry, list[tuple[str, BaseException]]]:
    from toolplug.formats import core

    pm = pluggy.PluginManager("toolplug")
    pm.add_hookspecs(hookspecs)
    pm.register(core, name=core.NAME)
    for index, plugin in enumerate(plugins):
        pm.register(plugin, name=f"plugin{index}")
    registry = FormatRegistry()
    return registry, fill_formats(registry, pm)


def test_a_plugin_format_works_everywhere_a_format_name_is_taken() -> None:
    formats, failures = _formats_with(FrameworkPlugin())
    assert failures == [] and list(formats)[-1] == "framework"
    toolset = Toolset([make_echo_tool()], formats=formats)
    assert toolset.export("framework")[0]["tool"] == "echo"
    results = toolset.dispatch([{"tool": "echo", "args": {"text": "yo"}}])  # detected
    assert results == [{"tool": "echo", "result": "yo", "ok": True}]


def test_a_format_name_taken_twice_keeps_the_first_and_reports_the_second() -> None:
    formats, failures = _formats_with(FrameworkPlugin(), Clashing())
    assert list(formats).count("framework") == 1
    ((plugin, error),) = failures
    assert plugin == "plugin1" and "registered by plugin 'plugin0'" in str(error)


def test_each_whole_message_is_unwrapped_by_its_own_format() -> None:
    toolset = _toolset()
    gemini_content = {
        "role": "model",
        "parts": [{"functionCall": {"name": "echo", "args": {"text": "g"}}}],
    }
    bedrock_message = {
        "role": "assistant",
        "content": [{"toolUse": {"toolUseId": "t1", "name": "echo", "input": {"text": "b"}}}],
    }
    anthropic_message = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "u1", "name": "echo", "input": {"text": "a"}}],
    }
    (gemini,) = toolset.dispatch(gemini_content)
    (bedrock,) = toolset.dispatch(bedrock_message)
    (anthropic,) = toolset.dispatch(anthropic_message)
    assert gemini["functionResponse"]["response"] == {"output": "g"}
    assert bedrock["toolResult"]["content"] == [{"text": "b"}]
    assert anthropic["content"] == [{"type": "text", "text": "a"}]
    assert toolset.dispatch({"role": "user", "content": "just text"}) == []


FRAMEWORK_PLUGIN = """
from toolplug import ToolCall, hookimpl, tool
from toolplug.formats import ToolFormat, result_text

@tool
def shout(text: str) -> str:
    \"\"\"Shout a text.\"\"\"
    return text.upper()

@hookimpl
def register_tools(register):
    register(shout)

class FrameworkFormat(ToolFormat):
    name = "framework"
    title = "A framework"

    def export_tool(self, tool, *, name=None, security_risk=False, **options):
        return {"tool": name or tool.name}

    def read_call(self, item, index):
        if "tool" in item and "args" in item:
            return ToolCall(str(index), item["tool"], item["args"])
        return None

    def render_result(self, call, observation):
        return {"tool": call.name, "result": result_text(observation)}

@hookimpl
def register_formats(register):
    register(FrameworkFormat())
"""

BROKEN_FORMATS = """
from toolplug import hookimpl

@hookimpl
def register_formats(register):
    raise RuntimeError("no formats today")
"""


def test_an_installed_plugins_format_reaches_the_toolset_and_the_cli(
    install_dist: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolplug import ToolRegistry
    from toolplug.testing import run_toolplug

    install_dist(
        "toolplug-framework",
        "1.0",
        {"framework": "tp_test_framework"},
        {"tp_test_framework": FRAMEWORK_PLUGIN},
    )
    install_dist(
        "toolplug-broken-formats",
        "1.0",
        {"broken_formats": "tp_test_broken_formats"},
        {"tp_test_broken_formats": BROKEN_FORMATS},
    )
    registry = ToolRegistry.from_plugins("framework,broken_formats")
    registry.register(make_echo_tool())
    reports = {r.name: r for r in registry.reports}
    assert reports["framework"].status == "ok"
    assert reports["broken_formats"].status == "broken"
    assert "no formats today" in str(reports["broken_formats"].error)
    with Toolset.load(["echo"], registry=registry) as toolset:
        assert "framework" in toolset.formats and next(iter(toolset.formats)) == "openai"
        assert toolset.dispatch([{"tool": "echo", "args": {"text": "x"}}]) == [
            {"tool": "echo", "result": "x"}
        ]
    # The command line runs in a new process: it finds the distributions on PYTHONPATH.
    import sys

    site = sys.path[0]
    assert site.endswith("site-packages")
    monkeypatch.setenv("PYTHONPATH", site)
    listed = run_toolplug("tools", "--format", "framework", plugins="framework")
    unknown = run_toolplug("tools", "--format", "cohere", plugins="framework")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == [{"tool": "shout"}]
    assert (
        unknown.returncode == 2
        and "choose one of" in unknown.stderr
        and "framework" in unknown.stderr
    )


def test_format_registry_get_answers_like_a_mapping() -> None:
    formats = default_formats()
    assert formats.get("cohere") is None and formats.get("mcp") is formats["mcp"]
    assert "cohere" not in formats
