"""``toolplug tools --format F --native``: the shipped tools' native declarations, as a
host would see them before choosing a form."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

TOOLPLUG = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"


def tools(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLPLUG, "tools", "--plugins", "bash,file_editor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def test_native_declares_each_providers_own_forms(tmp_path: Path) -> None:
    anthropic = tools("--format", "anthropic", "--native", cwd=tmp_path)
    assert anthropic.returncode == 0, anthropic.stderr
    kinds = {entry.get("type") for entry in json.loads(anthropic.stdout)}
    assert {"bash_20250124", "text_editor_20250728"} <= kinds
    responses = tools("--format", "responses", "--native", cwd=tmp_path)
    assert responses.returncode == 0, responses.stderr
    kinds = {entry.get("type") for entry in json.loads(responses.stdout)}
    assert {"shell", "apply_patch"} <= kinds and "function" in kinds  # file_editor
    # Without --native, every tool is a function.
    plain = tools("--format", "anthropic", cwd=tmp_path)
    assert all("input_schema" in entry for entry in json.loads(plain.stdout))


def test_native_without_a_format_is_a_usage_error(tmp_path: Path) -> None:
    refused = tools("--native", cwd=tmp_path)
    assert refused.returncode == 2
    assert "--native chooses the form of an export: give --format too" in refused.stderr
