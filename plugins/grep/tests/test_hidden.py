"""Paths a tool_call hook hides from the call (`toolplug.hide_paths`) are not shown:
a guard that is not the permission policy, through a real registry and real files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import toolplug_grep
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
    registry = registry_from(toolplug_grep, HideSecrets())
    with Toolset.load(["grep"], workspace=tmp_path, registry=registry) as tools:
        yield tools


@pytest.mark.parametrize("engine", ["ripgrep", "python"])
@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
def test_hidden_files_are_not_searched(
    tmp_path: Path, guarded: Any, engine: str, mode: str
) -> None:
    registry = registry_from(toolplug_grep, HideSecrets())
    spec = {"name": "grep", "params": {"engine": engine}}
    with Toolset.load([spec], workspace=tmp_path, registry=registry) as tools:
        text = tools.call("grep", {"pattern": "needle", "output_mode": mode}).text
    assert "a/open.txt" in text and "secret.txt" not in text and "in the secret" not in text
    assert "(2 files here are hidden by the secrets guard and were not searched" in text


def test_the_note_counts_the_searched_files_not_the_matches(guarded: Any) -> None:
    text = guarded.call("grep", {"pattern": "nothing matches this", "path": "a"}).text
    assert "(1 file here is hidden by the secrets guard" in text
