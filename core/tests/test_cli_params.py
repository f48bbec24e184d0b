"""``toolplug tools --params``: the params a stateful tool takes, from the command line.

A real distribution is laid out on a temporary site path and ``python -m toolplug`` runs
in a subprocess, as a user runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from toolplug.params import params_schema

COUNTER = '''
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field
from toolplug import Action, Observation, ToolContext, ToolDefinition, hookimpl


class Count(Action):
    text: str = Field(description="Text to count.")


class CounterTool(ToolDefinition):
    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        database: str,
        max_chars: int = 1000,
        unit: Literal["words", "chars"] = "words",
        tags: tuple[str, ...] = ("a", "b"),
    ) -> Sequence[ToolDefinition[Any, Any]]:
        """Build the counter for one session.

        Args:
            database: The SQLite file the counts are kept in, relative to the workspace.
                It is created when missing.
            max_chars: Longest text accepted. Longer ones are refused.
            unit: What to count.
        """
        raise AssertionError("--params must not create the tool")


def loose(context, **params):
    raise AssertionError("--params must not run the factory")


@hookimpl
def register_tools(register):
    register(CounterTool, name="counter")
    register(loose, name="loose")
    register(ToolDefinition(name="plain", description="Plain.", action_type=Count,
                            executor=lambda a: Observation.from_text(a.text)))
'''


@pytest.fixture
def toolplug(install_dist: Any, tmp_path: Path) -> Any:
    site = install_dist(
        "toolplug-counter", "0.4.0", {"counter": "tp_test_counter"}, {"tp_test_counter": COUNTER}
    ).parent

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
        env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
        env["TOOLPLUG_PLUGINS"] = "counter"
        return subprocess.run(
            [sys.executable, "-m", "toolplug", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=60,
        )

    return run


def test_params_are_listed_with_types_defaults_and_descriptions(toolplug: Any) -> None:
    done = toolplug("tools", "--params")

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "counter  [toolplug-counter 0.4.0]",
        "    database (string, required): The SQLite file the counts are kept in, relative"
        " to the workspace.",
        "    max_chars (integer, optional, default 1000): Longest text accepted.",
        '    unit ("words" | "chars", optional, default "words"): What to count.',
        '    tags (array of string, optional, default ["a", "b"])',
        "loose  [toolplug-counter 0.4.0]",
        "    any params (it takes **params)",
        "plain  [toolplug-counter 0.4.0]",
        "    (no params)",
    ]


def test_params_as_json_are_a_json_schema_per_tool(toolplug: Any) -> None:
    done = toolplug("tools", "--params", "--json")

    assert done.returncode == 0, done.stderr
    listed = {item["name"]: item for item in json.loads(done.stdout)}
    counter = listed["counter"]
    assert (counter["kind"], counter["distribution"], counter["version"]) == (
        "class",
        "toolplug-counter",
        "0.4.0",
    )
    schema = counter["params"]
    assert schema["required"] == ["database"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["max_chars"] == {
        "type": "integer",
        "default": 1000,
        "description": "Longest text accepted. Longer ones are refused.",
    }
    assert listed["loose"]["params"]["additionalProperties"] is True
    assert listed["plain"]["params"]["properties"] == {}


def test_params_take_no_format(toolplug: Any) -> None:
    done = toolplug("tools", "--params", "--format", "openai")

    assert done.returncode == 2
    assert "--params lists params; it takes no --format" in done.stderr


def test_bullet_docstrings_describe_params_too() -> None:
    class Tool:
        @classmethod
        def create(cls, context: object, *, env: dict[str, str] | None = None, shell: str = "sh"):  # type: ignore[no-untyped-def]
            """Build it.

            - ``env``: variables to set; ``shell``: the shell to run,
              a name or a path.
            """

    properties = params_schema(Tool.create)["properties"]

    assert properties["env"]["description"] == "variables to set"
    assert properties["shell"]["description"] == "the shell to run, a name or a path."
