"""The examples of docs/formats.md run as written (those marked as fragments excepted)."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).parents[2] / "docs" / "formats.md"
BLOCK = re.compile(r"(?P<before>[^\n]*)\n+```python\n(?P<code>.*?)```", re.DOTALL)


def test_the_examples_run() -> None:
    namespace: dict[str, object] = {}
    ran = 0
    for match in BLOCK.finditer(PAGE.read_text()):
        if "fragment" in match["before"]:
            continue
        exec(compile(match["code"], str(PAGE), "exec", dont_inherit=True), namespace)
        ran += 1
    assert ran >= 2, "the page's runnable examples were not found"
