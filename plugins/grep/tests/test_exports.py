"""The grep tool and its results, in every provider format, validated by their own types."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import build, make_tree
from toolplug.testing import validate_observation_exports, validate_tool_exports


def test_the_tool_exports_in_every_format(tmp_path: Path) -> None:
    validate_tool_exports(build(tmp_path, "python"))


@pytest.mark.parametrize(
    "arguments",
    [
        {"pattern": "main"},
        {"pattern": "main", "output_mode": "count"},
        {"pattern": "main", "output_mode": "content", "context": 1, "limit": 1},
        {"pattern": "nowhere"},
        {"pattern": "ma(in"},
    ],
)
def test_every_kind_of_result_converts_for_every_provider(tmp_path: Path, arguments) -> None:
    make_tree(tmp_path, {"a.py": "x\ndef main():\n", "b.md": "main\n"})
    observation = build(tmp_path, "python").call(arguments)
    validate_observation_exports(observation)
