"""`toolplug.hide_paths` / `toolplug.hidden_paths`: what a tool_call hook hides holds for
that one call, on every path (sync and async caller, sync and async executor, with a
timeout in a thread), and for no other call."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import pytest
from toolplug import Action, Observation, ToolDefinition, hidden_paths, hide_paths, hookimpl
from toolplug.testing import registry_from


class Look(Action):
    path: str


def look(action: Look) -> Observation:
    hidden = hidden_paths()
    seen = "nothing hidden" if hidden is None else f"{hidden.hides(action.path)} by {hidden.by}"
    return Observation.from_text(seen)


async def alook(action: Look) -> Observation:
    return look(action)


def tools() -> types.SimpleNamespace:
    @hookimpl
    def register_tools(register: Any) -> None:
        register(ToolDefinition(name="look", description="Look.", action_type=Look, executor=look))
        register(
            ToolDefinition(name="alook", description="Look.", action_type=Look, executor=alook)
        )

    return types.SimpleNamespace(register_tools=register_tools, __name__="lookers")


class Guard:
    """Hides every path ending in ``.env`` from every call."""

    __name__ = "guard"

    @hookimpl(tryfirst=True)
    def tool_call(self, tool: Any, action: Any) -> None:
        hide_paths(lambda path: path.endswith("/.env"), by="the guard")


@pytest.mark.parametrize("timeout", [None, 30.0])
def test_a_hook_hides_paths_from_its_call(timeout: float | None) -> None:
    registry = registry_from(tools(), Guard())
    for name in ("look", "alook"):
        (tool,) = registry.resolve(name)
        for path, expected in (("/w/.env", "True by the guard"), ("/w/a.py", "False by the guard")):
            assert tool.call({"path": path}, timeout=timeout).text == expected
            assert asyncio.run(tool.acall({"path": path}, timeout=timeout)).text == expected


def test_nothing_is_hidden_without_a_hook_or_after_the_call() -> None:
    (guarded,) = registry_from(tools(), Guard()).resolve("look")
    (free,) = registry_from(tools()).resolve("look")
    assert guarded.call({"path": "/w/.env"}).text == "True by the guard"
    assert free.call({"path": "/w/.env"}).text == "nothing hidden"
    assert hidden_paths() is None


def test_hide_paths_outside_a_call_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="for a tool_call hook implementation"):
        hide_paths(lambda path: True, by="nobody")
