"""The README's host example, run against its own plugin example and the real bash tool."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_host_example_runs(tmp_path: Path) -> None:
    section = (ROOT / "README.md").read_text().split("## Writing a tool", 1)[1]
    plugin, host = re.findall(r"```python\n(.*?)```", section, re.S)[:2]
    # The plugin example, laid out as pip installs a distribution: a module and its
    # .dist-info with the entry point the README names.
    (tmp_path / "word_count_example.py").write_text(plugin)
    info = tmp_path / "toolplug_word_count-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolplug-word-count\nVersion: 0.1.0\n"
    )
    (info / "entry_points.txt").write_text("[toolplug]\nword_count = word_count_example\n")
    ran = subprocess.run(
        [sys.executable, "-c", host],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)},
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("2 {'type': 'tool_result', 'tool_use_id': 'toolu_01'")
