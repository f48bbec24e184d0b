"""Fixtures: a real bash tool in a temporary workspace, and a look at the process table.

Tests marked ``@both_modes`` run twice: as is, and with the session in the bubblewrap
sandbox (skipped, with bwrap's reason, where bubblewrap cannot run).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import toolplug_bash
from toolplug import Tool, ToolContext, ToolDefinition, ToolError
from toolplug.testing import registry_from
from toolplug_bash import sandbox

MakeBash = Callable[..., ToolDefinition[Any, Any]]

#: Run a test without and with the sandbox (it overrides the ``sandbox_mode`` fixture).
both_modes = pytest.mark.parametrize("sandbox_mode", ["none", "bwrap"])


@functools.cache
def bwrap_problem() -> str | None:
    """Why the bubblewrap sandbox cannot run here (None: it can)."""
    try:
        sandbox.check_runs(sandbox.find_bwrap(os.environ.get("PATH")), network=False)
    except ToolError as exc:
        return str(exc)
    return None


def need_bwrap() -> None:
    """Skip the test, saying why, when bubblewrap cannot run on this machine."""
    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f"bubblewrap is unavailable here: {problem}")


def _python_in_home() -> str | None:
    home = os.path.realpath(os.path.expanduser("~"))
    prefix = os.path.realpath(sys.base_prefix)
    return prefix if prefix.startswith(home + os.sep) else None


#: The Python running the tests, when it lives in the home a sandbox hides.
HOST_PYTHON = _python_in_home()


@pytest.fixture
def sandbox_mode() -> str:
    """The ``sandbox`` param the ``bash`` and ``make_bash`` tools get by default."""
    return "none"


@pytest.fixture
def make_bash(tmp_path: Path, sandbox_mode: str) -> Iterator[MakeBash]:
    """Create bash tools with params; every one is closed when the test ends."""
    created: list[ToolDefinition[Any, Any]] = []
    registry = registry_from(toolplug_bash)
    if sandbox_mode == "bwrap":
        need_bwrap()

    def make(workspace: Path | None = None, **params: Any) -> ToolDefinition[Any, Any]:
        context = ToolContext(workspace=workspace or tmp_path)
        if sandbox_mode != "none":
            params.setdefault("sandbox", sandbox_mode)
        if params.get("sandbox") == "bwrap" and HOST_PYTHON is not None:
            # The tests run python3 in the shell: the one running them, when the
            # sandbox would hide it in the home (pyenv), is shown and found first.
            params.setdefault("read_only_paths", [HOST_PYTHON])
            params.setdefault("env", {"PATH": f"{HOST_PYTHON}/bin:{os.environ['PATH']}"})
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
