"""Paths a tool_call hook hides from the call (`toolplug.hide_paths`) are not shown:
a guard that is not the permission policy, through a real registry and real files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import toolplug_glob
from toolplug import Toolset, hide_paths, hookimpl
from toolplug.testing import registry_from


class HideSecrets:
    """A guard hiding every file named ``secret.txt`` from every call."""

    __name__ = "hide-secrets"

    @hookimpl(tryfirst=True)
    def tool_call(self, tool: Any, action: Any) -> None:
        hide_paths(lambda path: path.endswith("/secret.txt"), by="the secrets guard")


@pytest.fixture
def guarded(tmp_path: Path) -> Any:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "secret.txt").write_text("needle in the secret\n")
    (tmp_path / "a" / "open.txt").write_text("needle in the open\n")
    (tmp_path / "secret.txt").write_text("needle at the top\n")
    registry = registry_from(toolplug_glob, HideSecrets())
    with Toolset.load(["glob"], workspace=tmp_path, registry=registry) as tools:
        yield tools


def test_hidden_files_are_not_listed(guarded: Any) -> None:
    text = guarded.call("glob", {"pattern": "**/*.txt"}).text
    assert "a/open.txt" in text and "secret.txt" not in text.split("(")[0]
    assert "(2 matching files are hidden by the secrets guard and not listed" in text
    text = guarded.call("glob", {"pattern": "**/secret.txt"}).text
    assert text.startswith("No files match") and "2 matching files are hidden" in text
