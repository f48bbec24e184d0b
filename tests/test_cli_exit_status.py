"""`toolplug call --exit-status` with the real bash tool: the command's status is the
CLI's, for scripts (issue #26)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def call_bash(command: str, *options: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    arguments = json.dumps({"command": command})
    return subprocess.run(
        [sys.executable, "-m", "toolplug", "call", "bash", arguments, *options],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_a_command_exiting_3_makes_the_cli_exit_3(tmp_path: Path) -> None:
    failed = call_bash("echo partial; exit 3", "--exit-status", cwd=tmp_path)
    assert failed.returncode == 3, failed.stderr
    assert "partial" in failed.stdout
    # Without the option the call itself worked: 0, the status only in the text.
    plain = call_bash("(exit 3)", cwd=tmp_path)
    assert plain.returncode == 0 and "[Exit code 3." in plain.stdout
    assert call_bash("true", "--exit-status", cwd=tmp_path).returncode == 0
