"""Tool search (issue #28): deferred tools, per-format exports, and round trips.

500 real tools (25 plugin factories of 20 tools each, every one runs) are loaded
through a registry; most are deferred. Per format, the export is validated against
the provider's SDK types, a model turn in the provider's real shape searches first
(Anthropic's and OpenAI's server-side search results; toolplug's ``search_tools``
elsewhere) and then calls a tool it found, through ``dispatch``.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import pytest
from pydantic import Field, TypeAdapter, create_model
from toolplug import Action, Deferral, Observation, ToolDefinition, ToolError, Toolset
from toolplug.formats import default_formats
from toolplug.limits import LimitWarning, check
from toolplug.registry import ToolRegistry

DOMAINS = [
    "weather",
    "calendar",
    "email",
    "github",
    "jira",
    "slack",
    "invoice",
    "customer",
    "order",
    "shipment",
    "inventory",
    "payment",
    "database",
    "file",
    "image",
    "translation",
    "contact",
    "note",
    "task",
    "expense",
    "flight",
    "hotel",
    "recipe",
    "music",
    "podcast",
]
VERBS = [
    "get",
    "list",
    "create",
    "update",
    "delete",
    "search",
    "archive",
    "restore",
    "export",
    "import",
    "share",
    "tag",
    "comment",
    "approve",
    "assign",
    "summarize",
    "count",
    "merge",
    "schedule",
    "notify",
]
assert len(DOMAINS) * len(VERBS) == 500
KEPT = ("list_task", "get_note")  # the tools every turn needs: never deferred
TARGET = "archive_invoice"  # what the model looks for
KEPT_IN_ORDER = [n for d in DOMAINS for v in VERBS if (n := f"{v}_{d}") in KEPT]


def _domain_tools(domain: str) -> list[ToolDefinition[Any, Any]]:
    field = f"{domain}_id"
    action = create_model(
        f"{domain.title()}Action",
        __base__=Action,
        **{field: (str, Field(description=f"The id of the {domain}."))},
    )
    tools = []
    for verb in VERBS:

        def run(act: Any, verb: str = verb) -> Observation:
            return Observation.from_text(f"{verb}d {domain} {getattr(act, field)}")

        tools.append(
            ToolDefinition(
                name=f"{verb}_{domain}",
                description=f"{verb.title()} one {domain} of the {domain} service by its id.",
                action_type=action,
                executor=run,
            )
        )
    return tools


def _factory(domain: str) -> Any:
    def create(context: Any) -> list[ToolDefinition[Any, Any]]:
        return _domain_tools(domain)

    create.__name__ = domain
    return create


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    for domain in DOMAINS:
        registry.register(_factory(domain), name=domain)
    return registry


@pytest.fixture
def tools() -> Any:
    with Toolset.load(registry=_registry()) as toolset:
        assert len(toolset) == 500
        yield toolset.defer(above=100, keep=KEPT)


def _check(fmt_name: str, exported: list[dict[str, Any]]) -> None:
    fmt = default_formats()[fmt_name]
    for item in exported:
        fmt.check_tool(item)


def _tokens(fmt_name: str, exported: list[dict[str, Any]]) -> int:
    """Tokens of what enters the model's context before a search."""
    from toolplug.tokens import count_before_search

    return count_before_search(fmt_name, exported)


def _full_tokens(fmt_name: str) -> int:
    with Toolset.load(registry=_registry()) as every:
        return _tokens(fmt_name, every.export(fmt_name, check="off"))


def _visible(tools: Toolset) -> list[str]:
    """The tools an export shows, in the toolset's order."""
    assert tools.deferral is not None
    hidden = set(tools.deferral.deferred()) - tools.deferral.revealed
    return [name for name in tools if name not in hidden]


# -- choosing the tools ----------------------------------------------------------------


def test_patterns_choose_by_name_glob_factory_and_count() -> None:
    with Toolset.load(registry=_registry()) as tools:
        assert tools.factories()["archive_invoice"] == "invoice"
        tools.defer("get_weather", "*_slack", "invoice")
        assert tools.deferral is not None
        deferred = tools.deferral.deferred()
        assert len(deferred) == 1 + 20 + 20
        assert {"get_weather", "list_slack", "archive_invoice"} <= set(deferred)
        assert deferred == [n for n in tools if n in set(deferred)]  # the toolset's order
        tools.defer("{get,list}_weather")  # braces: toolplug's glob syntax
        assert tools.deferral.deferred() == ["get_weather", "list_weather"]
        tools.defer(above=500)
        assert tools.deferral.deferred() == []  # 500 tools: not more than 500
        tools.defer(above=499, keep=["*_weather"])
        assert len(tools.deferral.deferred()) == 480


def test_bad_rules_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="never closed"):
        Deferral(("get_[weather",))
    with pytest.raises(ValueError, match="bm25"):
        Deferral(search="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="above"):
        Deferral(above=-1)
    with Toolset(_domain_tools("weather")) as tools:
        tools.add(_domain_tools("note")[0])
        tools.add(
            ToolDefinition(
                name="search_tools",
                description="A host's own.",
                action_type=Action,
                executor=lambda a: Observation.from_text(""),
            )
        )
        with pytest.raises(ToolError, match="search_tools"):
            tools.defer()


def test_no_tool_deferred_exports_as_before() -> None:
    with Toolset.load(registry=_registry()) as tools:
        before = tools.export("anthropic")
        tools.defer(above=1000)
        assert tools.export("anthropic") == before
        assert tools.find("search_tools") is not None  # callable, finds nothing
        assert "No tool matched" in tools.call("search_tools", {"query": "invoice"}).text


# -- anthropic ----------------------------------------------------------------------------


@pytest.mark.parametrize("search", ["bm25", "regex"])
def test_anthropic_round_trip(search: str) -> None:
    anthropic = pytest.importorskip("anthropic")
    with Toolset.load(registry=_registry()) as tools:
        tools.defer(above=100, keep=KEPT, search=search)  # type: ignore[arg-type]
        exported = tools.export("anthropic", check="error")
        _check("anthropic", exported)
        assert exported[-1] == {
            "type": f"tool_search_tool_{search}_20251119",
            "name": f"tool_search_tool_{search}",
        }
        declared = exported[:-1]
        assert [t["name"] for t in declared] == list(tools)  # every tool, in order
        loaded = [t["name"] for t in declared if not t.get("defer_loading")]
        assert loaded == KEPT_IN_ORDER

        # The model's turn, as the API returns it: the search ran on the server.
        message = anthropic.types.Message.model_validate(
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 10},
                "content": [
                    {"type": "text", "text": "Let me find an archiving tool."},
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_1",
                        "name": f"tool_search_tool_{search}",
                        "input": {"query": "archive invoice"}
                        if search == "bm25"
                        else {"pattern": "archive.*invoice"},
                    },
                    {
                        "type": "tool_search_tool_result",
                        "tool_use_id": "srvtoolu_1",
                        "content": {
                            "type": "tool_search_tool_search_result",
                            "tool_references": [{"type": "tool_reference", "tool_name": TARGET}],
                        },
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": TARGET,
                        "input": {"invoice_id": "INV-7"},
                    },
                ],
            }
        )
        [result] = tools.dispatch(message)
        assert result["tool_use_id"] == "toolu_1"
        assert result["content"] == [{"type": "text", "text": "archived invoice INV-7"}]
        default_formats()["anthropic"].check_result(result, Observation.from_text("x"))
        assert tools.deferral is not None and tools.deferral.revealed == {TARGET}
        # The provider loads revealed tools from the conversation: the export is the
        # same, byte for byte, so the prompt cache holds.
        assert tools.export("anthropic", check="error") == exported


def test_anthropic_search_error_reveals_nothing(tools: Toolset) -> None:
    turn = [
        {"type": "server_tool_use", "id": "s", "name": "tool_search_tool_bm25", "input": {}},
        {
            "type": "tool_search_tool_result",
            "tool_use_id": "s",
            "content": {"type": "tool_search_tool_result_error", "error_code": "unavailable"},
        },
    ]
    assert tools.dispatch(turn) == []
    assert tools.deferral is not None and tools.deferral.revealed == frozenset()


# -- OpenAI Responses ----------------------------------------------------------------------


@pytest.mark.parametrize("namespaces", [False, True])
def test_responses_round_trip(namespaces: bool) -> None:
    responses = pytest.importorskip("openai.types.responses")
    with Toolset.load(registry=_registry()) as tools:
        tools.defer(above=100, keep=KEPT, namespaces=namespaces)
        exported = tools.export("responses", check="error")  # 498 deferred: under the cap
        _check("responses", exported)
        assert exported[-1] == {"type": "tool_search"}
        if namespaces:
            spaces = [t for t in exported if t["type"] == "namespace"]
            assert len(spaces) == 25
            [invoice] = [s for s in spaces if s["name"] == "invoice"]
            assert [f["name"] for f in invoice["tools"]] == [f"{v}_invoice" for v in VERBS]
            assert all(f["defer_loading"] is True for f in invoice["tools"])
            assert "archive_invoice" in invoice["description"]
            top = [t["name"] for t in exported if t["type"] == "function"]
            assert sorted(top) == sorted(KEPT)
        else:
            assert [t["name"] for t in exported[:-1]] == list(tools)

        # The response's items, each validated as the SDK reads a response's output.
        output = [
            {
                "type": "tool_search_call",
                "id": "tsc_1",
                "call_id": None,
                "execution": "server",
                "status": "completed",
                "arguments": {"query": "archive an invoice"},
            },
            {
                "type": "tool_search_output",
                "id": "tso_1",
                "call_id": None,
                "execution": "server",
                "status": "completed",
                "tools": [
                    {
                        "type": "namespace",
                        "name": "invoice",
                        "description": "Tools of 'invoice'",
                        "tools": [_function(exported, TARGET)],
                    }
                    if namespaces
                    else _function(exported, TARGET)
                ],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": TARGET,
                "arguments": json.dumps({"invoice_id": "INV-9"}),
                "status": "completed",
                **({"namespace": "invoice"} if namespaces else {}),
            },
        ]
        adapter = TypeAdapter(responses.ResponseOutputItem)
        items = [adapter.validate_python(item) for item in output]
        [result] = tools.dispatch(items)
        assert result == {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": "archived invoice INV-9",
        }
        default_formats()["responses"].check_result(result, Observation.from_text("x"))
        assert tools.deferral is not None and tools.deferral.revealed == {TARGET}
        assert tools.export("responses", check="error") == exported


def _function(exported: list[dict[str, Any]], name: str) -> dict[str, Any]:
    for item in exported:
        for function in item.get("tools", [item]):
            if function.get("name") == name:
                return function
    raise AssertionError(name)


def test_responses_limit_counts_only_loaded_tools() -> None:
    with Toolset.load(registry=_registry()) as tools:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tools.export("responses")
        assert [w.category for w in caught] == [LimitWarning]  # 500 > 128
        tools.defer(above=100, keep=KEPT)
        assert check("responses", tools.export("responses", check="error")) == []
        tools.defer("invoice")  # 480 tools still loaded
        with pytest.raises(Exception, match="480 tools declared"):
            tools.export("responses", check="error")


# -- every other format: the local search_tools --------------------------------------------


def _search_call(fmt: str, query: str) -> Any:
    """A model's turn that calls search_tools, in the provider's real shape."""
    arguments = {"query": query, "limit": 3}
    if fmt == "openai":
        from openai.types.chat import ChatCompletionMessage

        return ChatCompletionMessage.model_validate(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_s",
                        "type": "function",
                        "function": {"name": "search_tools", "arguments": json.dumps(arguments)},
                    }
                ],
            }
        )
    if fmt == "gemini":
        from google.genai import types

        return types.Content.model_validate(
            {
                "role": "model",
                "parts": [{"functionCall": {"name": "search_tools", "args": arguments}}],
            }
        )
    if fmt == "bedrock":
        return {
            "role": "assistant",
            "content": [
                {"toolUse": {"toolUseId": "tu_s", "name": "search_tools", "input": arguments}}
            ],
        }
    assert fmt == "mcp"
    import mcp.types

    params = mcp.types.CallToolRequestParams(name="search_tools", arguments=arguments)
    return [params.model_dump(mode="json", exclude_none=True)]


def _tool_call(fmt: str, name: str, arguments: dict[str, Any]) -> Any:
    if fmt == "openai":
        raw = json.dumps(arguments)
        return [{"id": "call_t", "type": "function", "function": {"name": name, "arguments": raw}}]
    if fmt == "gemini":
        return {"role": "model", "parts": [{"functionCall": {"name": name, "args": arguments}}]}
    if fmt == "bedrock":
        return [{"toolUse": {"toolUseId": "tu_t", "name": name, "input": arguments}}]
    return [{"name": name, "arguments": arguments}]


def _names(fmt: str, exported: list[dict[str, Any]]) -> list[str]:
    if fmt == "openai":
        return [t["function"]["name"] for t in exported]
    if fmt == "gemini":
        return [d["name"] for t in exported for d in t["functionDeclarations"]]
    if fmt == "bedrock":
        return [t["toolSpec"]["name"] for t in exported]
    return [t["name"] for t in exported]


def _result_text(fmt: str, result: Any) -> str:
    if fmt == "openai":
        return str(result["content"])
    if fmt == "gemini":
        return str(result["functionResponse"]["response"]["output"])
    if fmt == "bedrock":
        return str(result["toolResult"]["content"][0]["text"])
    return str(result["content"][0]["text"])


@pytest.mark.parametrize("fmt", ["openai", "gemini", "bedrock", "mcp"])
def test_local_search_round_trip(tools: Toolset, fmt: str) -> None:
    before = tools.export(fmt, check="error")
    _check(fmt, before)
    assert _names(fmt, before) == [*KEPT_IN_ORDER, "search_tools"]

    # First turn: the model searches.
    [found] = tools.dispatch(_search_call(fmt, "archive an invoice"))
    text = _result_text(fmt, found)
    assert f"- {TARGET}: Archive one invoice" in text.splitlines()[1]
    assert tools.deferral is not None and TARGET in tools.deferral.revealed

    # The next export has the revealed tools, each at its place in the toolset.
    after = tools.export(fmt, check="error")
    _check(fmt, after)
    assert _names(fmt, after) == [*_visible(tools), "search_tools"]
    assert TARGET in _names(fmt, after)
    revealed = sorted(tools.deferral.revealed)
    assert len(revealed) == 3  # limit=3

    # Second turn: the model calls what it found.
    [ran] = tools.dispatch(_tool_call(fmt, TARGET, {"invoice_id": "INV-3"}))
    assert _result_text(fmt, ran) == "archived invoice INV-3"

    # A later search reveals more; nothing already shown moves.
    tools.dispatch(_search_call(fmt, "weather"))
    later = _names(fmt, tools.export(fmt, check="error"))
    shown = _names(fmt, after)
    assert [n for n in later if n in shown] == shown


def test_regex_search_and_its_errors() -> None:
    with Toolset.load(registry=_registry()) as tools:
        tools.defer(search="regex")
        out = tools.call("search_tools", {"query": r"^restore_(invoice|order)$"})
        assert not out.is_error
        assert out.tools == ["restore_invoice", "restore_order"]  # type: ignore[attr-defined]
        bad = tools.call("search_tools", {"query": "(unclosed"})
        assert bad.is_error and bad.text.startswith("search_tools:")
        assert tools.deferral is not None
        assert tools.deferral.revealed == {"restore_invoice", "restore_order"}


def test_search_tools_refuses_bad_arguments_without_raising(tools: Toolset) -> None:
    out = tools.call("search_tools", {"query": "invoice", "limit": 0})
    assert out.is_error and "limit" in out.text
    assert tools.call("search_tools", {}).is_error


def test_tokens_with_deferral_are_a_small_part() -> None:
    pytest.importorskip("bpe_openai")
    with Toolset.load(registry=_registry()) as tools:
        tools.defer(above=100, keep=KEPT, namespaces=True)
        for fmt in ("anthropic", "responses", "openai", "gemini", "bedrock"):
            deferred = _tokens(fmt, tools.export(fmt, check="off"))
            full = _full_tokens(fmt)
            # At most a tenth (the target); the figures go in the docs.
            assert deferred * 10 <= full, (fmt, deferred, full)


def test_revealed_by_provider_name() -> None:
    """A tool exported under a mapped name (a dot in its name) is revealed by it."""
    dotted = ToolDefinition(
        name="crm.archive_invoice",
        description="Archive an invoice in the CRM.",
        action_type=Action,
        executor=lambda a: Observation.from_text("done"),
    )
    with Toolset([dotted, *_domain_tools("note")]) as tools:
        tools.defer("crm.*")
        exported = tools.export("anthropic")
        [name] = [t["name"] for t in exported if t.get("defer_loading")]
        assert name == "crm_archive_invoice"
        block = {
            "type": "tool_search_tool_result",
            "tool_use_id": "s",
            "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [{"type": "tool_reference", "tool_name": name}],
            },
        }
        tools.dispatch([block])
        assert tools.deferral is not None and tools.deferral.revealed == {"crm.archive_invoice"}
        found = tools.call("search_tools", {"query": "archive invoice crm"})
        assert re.search(r"^- crm_archive_invoice: ", found.text, re.M)


def test_a_namespace_names_its_tools_once_without_their_shared_prefix() -> None:
    # The description is read before any search, on every request: "github__" is the
    # namespace's own name, not repeated for each of its tools.
    def github(context: Any) -> list[ToolDefinition[Any, Any]]:
        action = create_model("IssueAction", __base__=Action, title=(str, Field()))
        return [
            ToolDefinition(
                name=f"github__{verb}_issue",
                description=f"{verb.title()} an issue.",
                action_type=action,
                executor=lambda act: Observation.from_text("ok"),
            )
            for verb in ("create", "close")
        ]

    registry = ToolRegistry()
    registry.register(github, name="github")
    with Toolset.load(registry=registry) as tools:
        tools.defer(namespaces=True)
        exported = tools.export("responses", check="error")
    _check("responses", exported)
    [space] = [t for t in exported if t["type"] == "namespace"]
    assert space["name"] == "github"
    assert space["description"] == "Tools: create_issue, close_issue"
    assert [f["name"] for f in space["tools"]] == ["github__create_issue", "github__close_issue"]
