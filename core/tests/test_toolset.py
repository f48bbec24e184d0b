"""Toolset: created tools of one session, exports at once, calls by name, one close each."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from core_test_tools import EchoAction, make_echo_tool
from toolplug import (
    Observation,
    Tool,
    ToolContext,
    ToolDefinition,
    ToolError,
    ToolRegistry,
    Toolset,
    UnknownToolError,
)

closed: list[str] = []


class Session:
    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, action: EchoAction) -> Observation:
        return Observation.from_text(f"{self.name}: {action.text}")

    def close(self) -> None:
        closed.append(self.name)


class SessionTool(ToolDefinition[EchoAction, Observation]):
    @classmethod
    def create(
        cls, context: ToolContext, *, label: str = "s"
    ) -> Sequence[ToolDefinition[Any, Any]]:
        if label == "boom":
            raise ValueError("label 'boom' is not allowed")
        return [
            cls(
                name=label,
                description="A session.",
                action_type=EchoAction,
                executor=Session(label),
            )
        ]


@pytest.fixture
def registry() -> ToolRegistry:
    closed.clear()
    reg = ToolRegistry()
    reg.register(make_echo_tool())
    reg.register(SessionTool, name="session")
    return reg


def test_load_names_and_specs(registry: ToolRegistry, tmp_path: Any) -> None:
    with Toolset.load(
        ["echo", Tool("session", {"label": "a"}), {"name": "session", "params": {"label": "b"}}],
        registry=registry,
        workspace=tmp_path,
    ) as tools:
        assert list(tools) == ["echo", "a", "b"]
        assert len(tools) == 3 and "a" in tools
        assert tools.call("a", {"text": "hi"}).text == "a: hi"
        assert [t["function"]["name"] for t in tools.to_openai_tools()] == ["echo", "a", "b"]
        assert [t["name"] for t in tools.to_responses_tools(strict=True)] == ["echo", "a", "b"]
        assert [t["name"] for t in tools.to_anthropic_tools()] == ["echo", "a", "b"]
        assert [t["name"] for t in tools.to_mcp_tools()] == ["echo", "a", "b"]
    assert sorted(closed) == ["a", "b"]


def test_load_everything_registered(registry: ToolRegistry) -> None:
    with Toolset.load(registry=registry) as tools:
        assert sorted(tools) == ["echo", "s"]


def test_close_exactly_once_sync_and_async(registry: ToolRegistry) -> None:
    tools = Toolset.load([Tool("session", {"label": "x"})], registry=registry)
    tools.close()
    tools.close()
    assert closed == ["x"]

    async def main() -> None:
        async with Toolset.load([Tool("session", {"label": "y"})], registry=registry) as ts:
            assert (await ts.acall("y", {"text": "z"})).text == "y: z"

    asyncio.run(main())
    assert closed == ["x", "y"]


def test_a_failed_load_closes_what_it_created(registry: ToolRegistry) -> None:
    with pytest.raises(ToolError, match="label 'boom' is not allowed"):
        Toolset.load(
            [Tool("session", {"label": "ok"}), Tool("session", {"label": "boom"})],
            registry=registry,
        )
    assert closed == ["ok"]
    with pytest.raises(UnknownToolError):
        Toolset.load(["session", "nope"], registry=registry)
    assert closed == ["ok", "s"]


def test_a_clash_also_closes_the_tools_that_did_not_get_in(registry: ToolRegistry) -> None:
    def sessions(context: ToolContext) -> list[ToolDefinition[Any, Any]]:
        names = ("a", "echo", "b")  # "echo" is taken by the time they are added
        return [
            SessionTool(
                name=n, description="A session.", action_type=EchoAction, executor=Session(n)
            )
            for n in names
        ]

    registry.register(sessions, name="sessions")
    with pytest.raises(ToolError, match="two tools in one toolset are named 'echo'"):
        Toolset.load(["echo", "sessions"], registry=registry)
    assert sorted(closed) == ["a", "b", "echo"]


def test_unknown_tool_call_is_an_error_observation(registry: ToolRegistry) -> None:
    with Toolset.load(["echo"], registry=registry) as tools:
        obs = tools.call("ech", {"text": "x"})
        assert obs.is_error
        assert (
            obs.text == "There is no tool named 'ech'. Did you mean 'echo'? Available tools: echo."
        )
        assert tools.call("zzz").text == "There is no tool named 'zzz'. Available tools: echo."


def test_the_unknown_tool_message_is_the_registrys_too(registry: ToolRegistry) -> None:
    with Toolset.load(["echo"], registry=registry) as tools:
        observed = tools.call("ech").text
    with pytest.raises(UnknownToolError) as info:
        Toolset.load(["ech"], registry=ToolRegistry.from_plugins("", tools=["ech"]))
    assert "There is no tool named 'ech'." in str(info.value)
    assert observed.startswith("There is no tool named 'ech'.")


def test_aliases_of_the_registration_work_in_call_acall_and_find() -> None:
    reg = ToolRegistry()
    reg.register(make_echo_tool(), aliases=["say", "print_text"])
    reg.register(SessionTool, name="session", aliases=["sess", "echo"])
    with Toolset.load(["echo", "session"], registry=reg) as tools:
        assert list(tools) == ["echo", "s"], "aliases are no keys of the mapping"
        assert tools.call("say", {"text": "hi"}).text == "hi"
        assert asyncio.run(tools.acall("print_text", {"text": "yo"})).text == "yo"
        assert tools.call("sess", {"text": "x"}).text == "s: x"
        found = tools.find("say")
        assert found is not None and found.name == "echo"
        assert tools.find("echo") is tools["echo"], "a tool's own name beats an alias"
        assert tools.find("nope") is None
        assert tools.aliases() == {"say": "echo", "print_text": "echo", "sess": "s"}
        suggestion = tools.call("sya", {"text": "x"})
        assert suggestion.is_error and "Did you mean 'say'?" in suggestion.text
        calls = [
            {"type": "tool_use", "id": "t1", "name": "say", "input": {"text": "by alias"}},
            {"type": "tool_use", "id": "t2", "name": "sya", "input": {}},
        ]
        by_alias, misspelt = tools.dispatch(calls)
        assert by_alias["content"] == [{"type": "text", "text": "by alias"}]
        assert misspelt["is_error"] and "Did you mean 'say'?" in misspelt["content"][0]["text"]
    with Toolset.load(["session"], registry=reg) as tools:
        assert tools.find("echo") is None, "the registry gave the alias 'echo' to no one"
        assert tools.aliases() == {"sess": "s"}


def test_add_takes_aliases_and_the_first_claim_keeps_one() -> None:
    one = make_echo_tool()
    two = ToolDefinition(
        name="two", description="2", action_type=EchoAction, executor=lambda a: Observation()
    )
    tools = Toolset()
    tools.add(one, aliases=["x", "shared"])
    tools.add(two, aliases=["shared", "echo"])
    assert tools.find("shared") is one and tools.find("echo") is one
    assert tools.aliases() == {"x": "echo", "shared": "echo"}


def test_duplicate_names_in_one_toolset(registry: ToolRegistry) -> None:
    with pytest.raises(ToolError, match="two tools in one toolset are named 's'"):
        Toolset.load(["session", "session"], registry=registry)


def test_exports_map_names_providers_reject_and_dispatch_maps_them_back() -> None:
    long_name = "server_with_a_long_prefix." + "x" * 60
    dotted = ToolDefinition(
        name="github.create_issue",
        description="d",
        action_type=EchoAction,
        executor=lambda a: Observation.from_text(f"created {a.text}"),
    )
    long = ToolDefinition(
        name=long_name,
        description="l",
        action_type=EchoAction,
        executor=lambda a: Observation.from_text("long"),
    )
    tools = Toolset([dotted, long])
    openai_names = [t["function"]["name"] for t in tools.to_openai_tools()]
    assert openai_names[0] == "github_create_issue"
    assert len(openai_names[1]) <= 64 and openai_names[1].startswith("server_with_a_long_prefix_")
    assert [t["name"] for t in tools.to_anthropic_tools()] == openai_names
    assert [t["name"] for t in tools.to_responses_tools()] == openai_names
    assert [t["name"] for t in tools.to_mcp_tools()] == ["github.create_issue", long_name]
    calls = [
        {"type": "tool_use", "id": "t1", "name": openai_names[0], "input": {"text": "bug"}},
        {"type": "tool_use", "id": "t2", "name": openai_names[1], "input": {"text": ""}},
    ]
    results = tools.dispatch(calls)
    assert [r["content"][0]["text"] for r in results] == ["created bug", "long"]
