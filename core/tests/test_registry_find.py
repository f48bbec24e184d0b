"""The registry finds a tool by name (``ToolRegistry.find``), starting only the factory
that has it; ``toolplug call`` uses it, run here as a user runs it (a subprocess).

Each factory writes a marker file when it runs (its "server" starts) and another when
its tools are closed, so a test sees which factories ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field
from toolplug import (
    Action,
    Observation,
    ToolDefinition,
    ToolError,
    ToolExecutor,
    UnknownToolError,
    hookimpl,
)
from toolplug.testing import registry_from

# Three factories in one plugin; each writes "<name>.started" when it runs and
# "<name>.closed" when its tools are closed, into $TP_MARKERS.
FACTORIES = """
import os
from pathlib import Path

from pydantic import Field
from toolplug import Action, Observation, ToolDefinition, ToolExecutor, hookimpl

class Say(Action):
    text: str = Field(description="Text to say.")

def _mark(name, what):
    folder = Path(os.environ["TP_MARKERS"])
    with open(folder / f"{name}.{what}", "a") as marker:
        marker.write("x")

class Speaker(ToolExecutor):
    def __init__(self, name):
        self.name = name
    def __call__(self, action):
        return Observation.from_text(f"{self.name}: {action.text}")
    def close(self):
        _mark(self.name, "closed")

def factory(name):
    def make(context):
        _mark(name, "started")
        return [ToolDefinition(name=f"{name}_tool", description=name, action_type=Say,
                               executor=Speaker(name))]
    make.__name__ = name
    return make

@hookimpl
def register_tools(register):
    for name in ("alpha", "other", "zeta"):
        register(factory(name))
"""


@pytest.fixture
def call(install_dist: Any, tmp_path: Path) -> Any:
    site = install_dist(
        "toolplug-speakers", "0.1.0", {"speakers": "tp_test_speakers"},
        {"tp_test_speakers": FACTORIES},
    ).parent  # fmt: skip
    markers = tmp_path / "markers"
    markers.mkdir()

    def call(*args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
        for old in markers.iterdir():
            old.unlink()
        env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
        env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
        env["TP_MARKERS"] = str(markers)
        done = subprocess.run(
            [sys.executable, "-m", "toolplug", "call", *args, "--plugins", "speakers"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=60,
        )
        return done, sorted(p.name for p in markers.iterdir())

    return call


def test_factory_slash_tool_starts_only_that_factory(call: Any) -> None:
    done, marks = call("other/other_tool", '{"text": "hi"}')

    assert (done.returncode, done.stdout) == (0, "other: hi\n"), done.stderr
    assert marks == ["other.closed", "other.started"]


def test_a_factory_tools_name_starts_no_factory_after_the_one_that_has_it(call: Any) -> None:
    done, marks = call("other_tool", '{"text": "hi"}')

    assert (done.returncode, done.stdout) == (0, "other: hi\n"), done.stderr
    # alpha comes first and is tried (its tool closed at once); zeta is never started.
    assert marks == ["alpha.closed", "alpha.started", "other.closed", "other.started"]


def test_a_name_no_factory_makes_is_refused_with_every_factory_closed(call: Any) -> None:
    done, marks = call("nobody_tool", "{}")

    assert done.returncode == 2
    assert "Factories, whose tools are called as FACTORY/TOOL: alpha, other, zeta." in done.stderr
    assert marks == [
        f"{n}.{what}" for n in ("alpha", "other", "zeta") for what in ("closed", "started")
    ]


def test_a_wrong_tool_of_a_factory_is_refused_and_closed(call: Any) -> None:
    done, marks = call("other/alpha_tool", "{}")

    assert done.returncode == 2
    assert "(the tools 'other' creates, called as other/TOOL)" in done.stderr
    assert marks == ["other.closed", "other.started"]


# -- the same in Python --------------------------------------------------------------------


class Said(Action):
    text: str = Field(description="Text to say.")


closed: list[str] = []


class Speaker(ToolExecutor[Said, Observation]):
    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, action: Said) -> Observation:
        return Observation.from_text(f"{self.name}: {action.text}")

    def close(self) -> None:
        closed.append(self.name)


class Pair:
    """A plugin with a factory of two tools; what they close is in ``closed``."""

    def __init__(self) -> None:
        closed.clear()

    def make(self, context: Any) -> list[ToolDefinition[Any, Any]]:
        return [
            ToolDefinition(name=n, description=n, action_type=Said, executor=Speaker(n))
            for n in ("left", "right")
        ]

    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(self.make, name="pair")


def test_find_gives_the_tool_and_closes_what_came_with_it() -> None:
    registry = registry_from(Pair())

    with registry.find("pair/right") as tool:
        assert tool.call({"text": "hi"}).text == "right: hi"
        assert closed == []
    assert sorted(closed) == ["left", "right"]


def test_find_refuses_a_factory_of_many_tools_and_closes_them() -> None:
    registry = registry_from(Pair())

    with pytest.raises(ToolError, match="'pair' creates these tools: left, right"):
        registry.find("pair")
    assert sorted(closed) == ["left", "right"]
    with pytest.raises(UnknownToolError, match="There is no tool named 'nope'"):
        registry.find("nope")
