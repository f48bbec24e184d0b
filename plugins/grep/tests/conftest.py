"""Fixtures: real trees on disk, and the grep tool built through the registry."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import toolplug_grep
from toolplug import Tool, ToolContext, ToolDefinition
from toolplug.testing import registry_from
from toolplug_grep.ripgrep import find_ripgrep

#: A fixed clock, so that the modification times (and the order) are exact.
EPOCH = 1_700_000_000

ENGINES = ["ripgrep", "python"] if find_ripgrep() else ["python"]


def write(root: Path, rel: str, text: str = "", *, age: int = 0) -> Path:
    """Create ``root/rel`` (and its parents) holding ``text``, ``age`` seconds before EPOCH."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (EPOCH - age, EPOCH - age))
    return path


def make_tree(root: Path, files: dict[str, str]) -> None:
    """Create every ``rel: text`` of ``files`` below ``root``, older in the order given."""
    for age, (rel, text) in enumerate(files.items()):
        write(root, rel, text, age=age)


def build(workspace: Path, engine: str = "auto", **params: Any) -> ToolDefinition[Any, Any]:
    """The grep tool for a workspace, as a host builds it."""
    registry = registry_from(toolplug_grep)
    context = ToolContext(workspace=workspace)
    [tool] = registry.resolve(Tool("grep", {"engine": engine, **params}), context)
    return tool


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Each test that takes it runs once per engine (ripgrep and the portable one)."""
    return str(request.param)


@pytest.fixture
def make_tool(engine: str) -> Callable[..., ToolDefinition[Any, Any]]:
    """Build the grep tool for a workspace with params, with the test's engine (its
    executor holds nothing, so there is nothing to close)."""
    return functools.partial(build, engine=engine)
