"""Fixtures: a real bash tool in a temporary workspace, and a look at the process table."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import toolplug_bash
from toolplug import Tool, ToolContext, ToolDefinition
from toolplug.testing import registry_from

MakeBash = Callable[..., ToolDefinition[Any, Any]]


@pytest.fixture
def make_bash(tmp_path: Path) -> Iterator[MakeBash]:
    """Create bash tools with params; every one is closed when the test ends."""
    created: list[ToolDefinition[Any, Any]] = []
    registry = registry_from(toolplug_bash)

    def make(workspace: Path | None = None, **params: Any) -> ToolDefinition[Any, Any]:
        context = ToolContext(workspace=workspace or tmp_path)
        (tool,) = registry.resolve(Tool("bash", params), context)
        created.append(tool)
        return tool

    yield make
    for tool in created:
        tool.close()


@pytest.fixture
def bash(make_bash: MakeBash) -> ToolDefinition[Any, Any]:
    """A bash tool with the default params."""
    return make_bash()


def session_pids(leader: int) -> set[int]:
    """Live (not zombie) processes whose session is ``leader``, read from /proc."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        fields = raw[raw.rfind(b")") + 2 :].split()
        if int(fields[3]) == leader and fields[0] != b"Z":
            found.add(int(name))
    return found


def alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return False
    return raw[raw.rfind(b")") + 2 :].split()[0] != b"Z"
