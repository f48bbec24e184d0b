"""Fixtures: a workspace on disk, policy files, and toolsets of real tools under a policy."""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import toolplug_policy
from toolplug import Observation, ToolDefinition, Toolset, hookimpl
from toolplug.testing import registry_from


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small project: ``src/app.py``, ``src/.env``, ``tests/test_app.py``, ``README.md``."""
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "app.py").write_text("print('app')\n")
    (root / "src" / ".env").write_text("TOKEN=hunter2\n")
    (root / "tests" / "test_app.py").write_text("def test(): pass\n")
    (root / "README.md").write_text("# the project\n")
    (tmp_path / "outside.txt").write_text("not the workspace's\n")
    return root


@pytest.fixture
def write_policy(tmp_path: Path) -> Callable[[str], Path]:
    """Write a policy file (dedented) next to the workspace and return its path."""

    def write(text: str, name: str = "policy.toml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    return write


@pytest.fixture
def toolset(workspace: Path) -> Iterator[Callable[..., Toolset]]:
    """``toolset(tools, policy, approver=None)``: real tools under a policy; closed after."""
    made: list[Toolset] = []

    def load(tools: list[Any], policy: Any, approver: Any = None, **kwargs: Any) -> Toolset:
        loaded = Toolset.load(
            tools, workspace=workspace, policy=policy, approver=approver, **kwargs
        )
        made.append(loaded)
        return loaded

    yield load
    for loaded in made:
        loaded.close()


def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


def fetch(url: str, headers: dict[str, str] | None = None) -> str:
    """Pretend to fetch a URL (nothing leaves the machine)."""
    return f"fetched {url}"


def deploy(target: str, security_risk: str) -> str:
    """Deploy somewhere; the model declares the risk."""
    return f"deployed to {target}"


class FunctionTools:
    """A plugin of function tools, some named as an MCP server's tools are (``srv.tool``)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    @hookimpl
    def register_tools(self, register: Callable[..., None]) -> None:
        for name, fn in [
            ("github.create_issue", echo),
            ("github.list_issues", echo),
            ("gitlab.create_issue", echo),
            ("fetch", fetch),
            ("deploy", deploy),
            ("time__now", echo),
        ]:
            made = ToolDefinition.from_function(self._recorded(name, fn))
            made.name = name
            if "__" in name:  # as toolplug-mcp makes a server's tool: "server__tool", and
                server, remote = name.split("__")  # the server and the tool in its meta
                made.meta["toolplug/mcp"] = {"server": server, "tool": remote}
            register(made, name=name)

    def _recorded(self, name: str, fn: Callable[..., str]) -> Callable[..., str]:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> str:
            self.calls.append(name)
            return fn(*args, **kwargs)

        return run


@pytest.fixture
def functions() -> FunctionTools:
    """The function-tool plugin (its ``calls`` list says which tools really ran)."""
    return FunctionTools()


@pytest.fixture
def function_toolset(functions: FunctionTools, workspace: Path) -> Iterator[Callable[..., Toolset]]:
    """``function_toolset(policy, approver=None)``: the function tools under a policy."""
    made: list[Toolset] = []

    def load(policy: Any, approver: Any = None) -> Toolset:
        registry = registry_from(toolplug_policy, functions)
        loaded = Toolset.load(
            None, workspace=workspace, registry=registry, policy=policy, approver=approver
        )
        made.append(loaded)
        return loaded

    yield load
    for loaded in made:
        loaded.close()


def refused(observation: Observation) -> str:
    """The refusal text, after checking that the observation is one."""
    assert observation.is_error, observation.text
    assert observation.text.startswith("Refused by the policy: "), observation.text
    return observation.text
