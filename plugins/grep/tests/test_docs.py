"""docs/tools/grep.md, run: each bash block in one temp workspace, in order, and the
output shown after it is what the installed tool prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[3] / "docs" / "tools" / "grep.md"


def test_the_docs_page_runs_as_shown(tmp_path: Path) -> None:
    blocks = re.findall(r"```(\w+)([^\n]*)\n(.*?)```", DOC.read_text(), re.S)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("TOOLPLUG_PLUGINS", None)
    printed: str | None = None
    compared = 0
    for language, info, body in blocks:
        if language == "bash" and "fragment" not in info:
            done = subprocess.run(
                ["bash", "-ec", body], cwd=tmp_path, capture_output=True, text=True, env=env
            )
            assert done.returncode == 0, (body, done.stderr)
            printed = done.stdout
        elif language == "text" and printed is not None:
            assert printed.strip() == body.strip()
            printed = None
            compared += 1
    assert compared >= 5
