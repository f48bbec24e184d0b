"""Fixtures: a real editor in a fresh temporary workspace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import toolplug_file_editor
from toolplug import Observation, Tool, ToolContext
from toolplug.testing import registry_from

Call = Callable[..., Observation]


def make_editor(workspace: Path, name: str = "file_editor", **params: Any) -> Any:
    """The tool as a host gets it: resolved through a registry filled by the plugin."""
    registry = registry_from(toolplug_file_editor)
    [tool] = registry.resolve(Tool(name, params), ToolContext(workspace=workspace))
    return tool


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace folder (next to it, ``tmp_path`` has room for outside files)."""
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def editor(workspace: Path) -> Iterator[Any]:
    """The editor with default params, working in ``workspace``."""
    tool = make_editor(workspace)
    yield tool
    tool.close()


@pytest.fixture
def call(editor: Any) -> Call:
    """Call the editor with keyword arguments as a model would send them."""

    def run(**arguments: Any) -> Observation:
        return editor.call(arguments)

    return run


def ok(observation: Observation) -> str:
    """The text of a successful observation (fails the test on an error)."""
    assert not observation.is_error, observation.text
    return observation.text


def error(observation: Observation) -> str:
    """The text of an error observation (fails the test on success)."""
    assert observation.is_error, f"expected an error, got: {observation.text}"
    return observation.text


def leftovers(folder: Path) -> list[str]:
    """Temporary files the editor may have left in a folder."""
    return [p.name for p in folder.iterdir() if p.name.endswith(".toolplug-tmp")]
