"""A tool's params are checked against its factory's annotations before it is created."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pytest
from pydantic import BaseModel
from toolplug import (
    Action,
    Observation,
    Tool,
    ToolContext,
    ToolDefinition,
    ToolParamsError,
    hookimpl,
)
from toolplug.testing import registry_from


class Echo(Action):
    text: str


made: list[dict[str, Any]] = []


class Limits(BaseModel):
    cpu: int
    memory_mb: int = 512


class EchoTool(ToolDefinition[Echo, Observation]):
    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        timeout: float = 10.0,
        mode: Literal["fast", "safe"] = "safe",
        limits: Limits | None = None,
        **extra: Any,
    ) -> Sequence[ToolDefinition[Any, Any]]:
        made.append({"timeout": timeout, "mode": mode, "limits": limits, **extra})
        return [
            cls(
                name="echo",
                description="Echo.",
                action_type=Echo,
                executor=lambda a: Observation.from_text(a.text),
            )
        ]


class Plugin:
    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(EchoTool, name="echo")


def resolve(**params: Any) -> dict[str, Any]:
    made.clear()
    registry = registry_from(Plugin())
    for tool in registry.resolve(Tool("echo", params)):
        tool.close()
    return made[-1]


def test_good_params_reach_the_factory_as_their_types() -> None:
    got = resolve(timeout=2, limits={"cpu": 2})
    assert got["timeout"] == 2.0 and got["mode"] == "safe"
    assert got["limits"] == Limits(cpu=2, memory_mb=512)


def test_params_it_does_not_annotate_pass_unchecked() -> None:
    assert resolve(colour=object)["colour"] is object


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"timeout": "soon"}, "- timeout: Input should be a valid number"),
        ({"timeout": "2.5"}, "- timeout: Input should be a valid number"),  # no conversion
        ({"mode": "slow"}, "- mode: Input should be 'fast' or 'safe' (got \"slow\")"),
        ({"limits": {"memory_mb": 1}}, "- limits.cpu: Field required"),
    ],
)
def test_a_bad_param_is_named_with_what_it_should_be(params: dict[str, Any], expected: str) -> None:
    with pytest.raises(ToolParamsError) as raised:
        resolve(**params)
    message = str(raised.value)
    assert message.startswith("Invalid params for tool 'echo':")
    assert expected in message
    assert "`toolplug tools --params` lists the params of 'echo'." in message
    assert made == []  # the factory never ran


def test_the_cli_reports_a_bad_param_without_a_traceback(tmp_path: Any) -> None:
    from toolplug.testing import run_toolplug

    pytest.importorskip("toolplug_bash", reason="the CLI check calls bash (compat envs)")
    done = run_toolplug(
        "call", "bash", '{"command": "echo hi"}', "-p", "timeout=soon", "--workspace", str(tmp_path)
    )
    assert done.returncode != 0
    assert "Invalid params for tool 'bash':" in done.stderr
    assert "- timeout: Input should be a valid number" in done.stderr
    assert "Traceback" not in done.stderr
