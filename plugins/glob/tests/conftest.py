"""Fixtures: real trees on disk, and the glob tool built through the registry."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import toolplug_glob
from toolplug import Tool, ToolContext, ToolDefinition
from toolplug.testing import registry_from
from toolplug_glob.ripgrep import find_ripgrep

#: A fixed clock, so that the modification times (and the order) are exact.
EPOCH = 1_700_000_000

ENGINES = ["ripgrep", "python"] if find_ripgrep() else ["python"]


def write(root: Path, rel: str, *, age: int = 0, text: str = "") -> Path:
    """Create ``root/rel`` (and its parents), modified ``age`` seconds before EPOCH."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (EPOCH - age, EPOCH - age))
    return path


def make_tree(root: Path, files: dict[str, int]) -> None:
    """Create every ``rel: age`` of ``files`` below ``root``."""
    for rel, age in files.items():
        write(root, rel, age=age)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Each test that takes it runs once per engine (ripgrep and the Python walk)."""
    return str(request.param)


@pytest.fixture
def make_tool(engine: str) -> Iterator[Callable[..., ToolDefinition[Any, Any]]]:
    """Build the glob tool for a workspace with params, as a host would."""
    made: list[ToolDefinition[Any, Any]] = []

    def build(workspace: Path, env: dict[str, str] | None = None, **params: Any) -> Any:
        registry = registry_from(toolplug_glob)
        context = ToolContext(workspace=workspace, env=env if env is not None else dict(os.environ))
        [tool] = registry.resolve(Tool("glob", {"engine": engine, **params}), context)
        made.append(tool)
        return tool

    yield build
    for tool in made:
        tool.close()
