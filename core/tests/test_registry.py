"""Registering instances, classes and factories; resolving specs; clear errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from core_test_tools import EchoAction, make_echo_tool
from toolplug import (
    Observation,
    Tool,
    ToolConflictError,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
    ToolParamsError,
    ToolRegistry,
    UnknownToolError,
)
from toolplug.registry import Source


class Counter(ToolExecutor[EchoAction, Observation]):
    def __init__(self, start: int, workspace: str) -> None:
        self.count = start
        self.workspace = workspace

    def __call__(self, action: EchoAction) -> Observation:
        self.count += 1
        return Observation.from_text(f"{self.count} in {self.workspace}")


class CounterTool(ToolDefinition[EchoAction, Observation]):
    @classmethod
    def create(
        cls, context: ToolContext, *, start: int = 0, step: int = 1
    ) -> Sequence[ToolDefinition[Any, Any]]:
        return [
            cls(
                name="counter",
                description="Counts.",
                action_type=EchoAction,
                executor=Counter(start, context.workspace.name),
            )
        ]


def pair_factory(context: ToolContext, *, prefix: str) -> list[ToolDefinition[Any, Any]]:
    def make(name: str) -> ToolDefinition[Any, Any]:
        return ToolDefinition(
            name=f"{prefix}_{name}",
            description=name,
            action_type=EchoAction,
            executor=lambda a: Observation.from_text(name),
        )

    return [make("one"), make("two")]


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(make_echo_tool(), aliases=["say", "print_text"])
    reg.register(CounterTool, name="counter")
    reg.register(pair_factory, name="pair")
    return reg


def test_names_aliases_and_kinds(registry: ToolRegistry) -> None:
    assert registry.names() == ["counter", "echo", "pair"]
    assert registry.aliases() == {"say": "echo", "print_text": "echo"}
    assert [e.kind for e in registry] == ["class", "instance", "factory"]
    assert "say" in registry and "nope" not in registry


def test_resolving_an_alias_gives_the_tool(registry: ToolRegistry) -> None:
    (tool,) = registry.resolve("say")
    assert tool.name == "echo"
    assert tool.call({"text": "x"}).text == "x"


def test_class_gets_context_and_params_and_fresh_state(
    registry: ToolRegistry, tmp_path: Any
) -> None:
    ctx = ToolContext(workspace=tmp_path)
    (a,) = registry.resolve(Tool("counter", {"start": 10}), ctx)
    (b,) = registry.resolve(Tool("counter"), ctx)
    assert a.call({"text": "x"}).text == f"11 in {tmp_path.name}"
    assert a.call({"text": "x"}).text == f"12 in {tmp_path.name}"
    assert b.call({"text": "x"}).text == f"1 in {tmp_path.name}"


def test_factory_returns_several_tools(registry: ToolRegistry) -> None:
    tools = registry.resolve({"name": "pair", "params": {"prefix": "p"}})
    assert [t.name for t in tools] == ["p_one", "p_two"]


def test_unknown_tool_lists_available(registry: ToolRegistry) -> None:
    with pytest.raises(
        UnknownToolError,
        # A factory (pair) makes tools but is none: it is named apart.
        match=r"There is no tool named 'nope'\. Available tools: counter, echo\. "
        r"Factories, whose tools are called as FACTORY/TOOL: pair\.",
    ):
        registry.resolve("nope")


def test_unknown_tool_suggests_names_and_aliases(registry: ToolRegistry) -> None:
    with pytest.raises(UnknownToolError, match=r"named 'countr'\. Did you mean 'counter'\?"):
        registry.resolve("countr")
    with pytest.raises(UnknownToolError, match=r"Did you mean 'print_text'\? Available tools: c"):
        registry.resolve("print_txt")


def test_unknown_params_list_what_the_tool_takes(registry: ToolRegistry) -> None:
    with pytest.raises(
        ToolParamsError, match=r"does not take the param\(s\) colour; it takes: start, step"
    ):
        registry.resolve(Tool("counter", {"colour": "red"}))
    with pytest.raises(ToolParamsError, match=r"needs the param\(s\): prefix"):
        registry.resolve("pair")
    with pytest.raises(ToolParamsError, match="takes no params"):
        registry.resolve(Tool("echo", {"x": 1}))


def test_factory_errors_are_wrapped_with_the_tool_name() -> None:
    def bad(context: ToolContext, *, size: int = 1) -> list[ToolDefinition[Any, Any]]:
        raise ValueError("size must be positive")

    reg = ToolRegistry()
    reg.register(bad)
    with pytest.raises(ToolParamsError, match="could not create tool 'bad': size must be positive"):
        reg.resolve(Tool("bad", {"size": -1}))


def test_conflict_names_both_distributions() -> None:
    reg = ToolRegistry()
    reg.register(make_echo_tool(), source=Source("one", "toolplug-one", "1.0"))
    reg.register(make_echo_tool(), source=Source("two", "toolplug-two", "2.0"))
    with pytest.raises(ToolConflictError) as info:
        reg.resolve("echo")
    message = str(info.value)
    assert "toolplug-one 1.0" in message and "toolplug-two 2.0" in message


def test_alias_taken_by_another_tool_is_ignored() -> None:
    reg = ToolRegistry()
    reg.register(make_echo_tool())
    reg.register(CounterTool, name="counter", aliases=["echo", "count"])
    (tool,) = reg.resolve("echo")
    assert tool.name == "echo"
    assert reg.resolve("count")[0].name == "counter"


def test_register_rejects_what_is_not_a_tool() -> None:
    with pytest.raises(TypeError, match="takes a ToolDefinition instance"):
        ToolRegistry().register(42)
    with pytest.raises(TypeError, match="needs name="):
        ToolRegistry().register(CounterTool)
