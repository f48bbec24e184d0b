"""Toolset.update and Toolset.changes: tools that come, go and change after load."""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
from core_test_tools import EchoAction
from toolplug import Observation, ToolChange, ToolDefinition, ToolError, Toolset


class Closing:
    """An executor that says what it echoes and counts its closes."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.closed = 0

    def __call__(self, action: EchoAction) -> Observation:
        return Observation.from_text(f"{self.label}: {action.text}")

    def close(self) -> None:
        self.closed += 1


def tool(name: str, label: str | None = None) -> ToolDefinition[Any, Any]:
    return ToolDefinition(
        name=name,
        description=f"Tool {name}.",
        action_type=EchoAction,
        executor=Closing(label or name),
    )


def test_update_adds_removes_and_replaces_and_changes_tells_once() -> None:
    old_b = tool("b")
    toolset = Toolset([tool("a"), old_b, tool("c")])
    changes = toolset.update(add=[tool("d"), tool("b", "new b")], remove=["b", "c"])
    assert sorted(toolset) == ["a", "b", "d"]
    assert toolset.call("b", {"text": "x"}).text == "new b: x"
    assert toolset.call("c", {"text": "x"}).is_error  # gone: an unknown tool now
    assert sorted(changes, key=lambda c: c.name) == [
        ToolChange("changed", "b"),
        ToolChange("removed", "c"),
        ToolChange("added", "d"),
    ]
    assert sorted(toolset.changes(), key=lambda c: c.name) == sorted(changes, key=lambda c: c.name)
    assert toolset.changes() == []  # told once
    # A removed tool stays open until the toolset closes (a call may still run in it).
    assert old_b.executor.closed == 0
    toolset.close()
    assert old_b.executor.closed == 1


def test_update_refuses_a_taken_name_and_changes_nothing() -> None:
    toolset = Toolset([tool("a"), tool("b")])
    with pytest.raises(ToolError, match="named 'a'"):
        toolset.update(add=[tool("a")], remove=["b"])
    assert sorted(toolset) == ["a", "b"]
    assert toolset.changes() == []


def test_a_closed_toolset_takes_nothing_and_closes_what_it_was_given() -> None:
    toolset = Toolset([tool("a")])
    toolset.close()
    late = tool("late")
    assert toolset.update(add=[late]) == []
    assert "late" not in toolset
    assert late.executor.closed == 1


def test_aliases_of_a_removed_tool_go_with_it() -> None:
    toolset = Toolset()
    toolset.add(tool("a"), aliases=["first"])
    toolset.update(remove=["a"])
    assert toolset.find("first") is None
    assert toolset.aliases() == {}


def test_add_tells_a_tool_that_wants_to_know_its_toolset() -> None:
    seen: list[Toolset] = []

    class Following(ToolDefinition[Any, Any]):
        def added_to(self, toolset: Toolset) -> None:
            seen.append(toolset)

    following = Following(name="f", description="F.", action_type=EchoAction, executor=Closing("f"))
    toolset = Toolset([tool("a"), following])
    assert seen == [toolset]


def test_readers_in_other_threads_see_whole_toolsets() -> None:
    """items(), values() and find() in one thread while another updates: each read
    sees a whole toolset (25 or 50 tools), and none raises (a KeyError, before)."""
    toolset = Toolset([tool(f"t{i}") for i in range(50)])
    stop = threading.Event()
    seen: set[int] = set()
    errors: list[BaseException] = []

    def read() -> None:
        try:
            while not stop.is_set():
                seen.add(len(list(toolset.items())))
                seen.add(len(list(toolset.values())))
                seen.add(len(dict(toolset.items())))
                toolset.find("t10")
        except BaseException as exc:  # the test fails on it below, not as a warning
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often: the half-way state shows
    reader = threading.Thread(target=read)
    reader.start()
    try:
        for round_ in range(400):
            gone = [f"t{i}" for i in range(25)] if round_ % 2 == 0 else []
            back = [] if round_ % 2 == 0 else [tool(f"t{i}") for i in range(25)]
            toolset.update(add=back, remove=gone)
    finally:
        stop.set()
        reader.join()
        sys.setswitchinterval(interval)
    assert errors == []
    assert seen and seen <= {25, 50}
    toolset.close()


def test_add_in_one_thread_while_another_iterates() -> None:
    """add() replaces the mapping too: an iteration elsewhere never sees it change size."""
    toolset = Toolset([tool(f"t{i}") for i in range(50)])
    stop = threading.Event()
    errors: list[BaseException] = []

    def read() -> None:
        try:
            while not stop.is_set():
                for _name, _tool in toolset.items():
                    pass
        except BaseException as exc:
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(300):
            toolset.add(tool(f"new{i}"))
    finally:
        stop.set()
        reader.join()
        sys.setswitchinterval(interval)
    assert errors == []
    assert len(toolset) == 350
    toolset.close()
