"""Token counts of tool definitions: ``toolplug.tokens`` and ``toolplug tools --tokens``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import run_toolplug
from core_test_tools import make_echo_tool
from toolplug import Toolset, tool
from toolplug.tokens import ENCODING, INSTALL, TOKENIZER_FOR, count, count_definitions

# A plugin with two tools of known definitions.
TWO = """
from pydantic import Field
from toolplug import Action, Observation, ToolDefinition, hookimpl

class Say(Action):
    text: str = Field(description="What to say.")

@hookimpl
def register_tools(register):
    for name in ("say_hello", "say_goodbye"):
        register(ToolDefinition(name=name, description=f"{name} to someone.", action_type=Say,
                                executor=lambda a: Observation.from_text(a.text)))
"""


@pytest.fixture
def toolplug(install_dist: Any, tmp_path: Path) -> Any:
    site = install_dist("toolplug-two", "0.1.0", {"two": "tp_test_two"}, {"tp_test_two": TWO})

    def run(*args: str, pythonpath: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
        return run_toolplug(*args, cwd=tmp_path, paths=(*pythonpath, str(site.parent)))

    return run


def test_known_o200k_counts() -> None:
    assert count("hello world") == 2
    assert count("") == 0
    # Special-token text is plain text in a definition: counted, never refused.
    assert count("<|endoftext|>") > 1


def test_each_tool_is_its_compact_json_and_the_total_is_the_sum() -> None:
    echo = make_echo_tool()
    toolset = Toolset([echo])
    for fmt in ("openai", "responses", "anthropic", "bedrock", "gemini"):
        exported = toolset.export(fmt)
        item = exported[0]["functionDeclarations"][0] if fmt == "gemini" else exported[0]
        compact = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
        counts = count_definitions(toolset, fmt)
        assert counts.tools == {"echo": count(compact)}, fmt
        assert counts.total == count(compact)


def _shout(text: str, times: int | None = None) -> str:
    """Say the text louder.

    Args:
        text: What to say.
        times: How many times (once when left out).
    """
    return text.upper() * (times or 1)


def test_a_set_sums_its_parts_and_strict_costs_more() -> None:
    # Two tools of the core's own: the core env has no plugin installed.
    with Toolset([make_echo_tool(), tool(_shout)]) as toolset:
        counts = count_definitions(toolset, "openai")
        assert list(counts.tools) == list(toolset.keys())
        assert counts.total == sum(counts.tools.values()) > 0
        # The export's options reach the export that is counted.
        strict = count_definitions(toolset, "openai", strict=True)
        compact = [
            json.dumps(t, separators=(",", ":")) for t in toolset.export("openai", strict=True)
        ]
        assert strict.total == sum(count(text) for text in compact) != counts.total
        data = counts.as_dict()
        assert data["encoding"] == ENCODING and data["total"] == counts.total
        assert data["accuracy"].startswith("exact")
        assert count_definitions(toolset, "anthropic").accuracy.startswith("approximation")


def test_cli_tokens_lists_each_tool_and_the_total(toolplug: Any) -> None:
    out = toolplug("tools", "--tokens", "--json", "--plugins", "two")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["format"] == "openai" and set(data["tools"]) == {"say_hello", "say_goodbye"}
    assert data["total"] == sum(data["tools"].values())
    text = toolplug("tools", "--tokens", "--format", "anthropic", "--plugins", "two")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert {line.split()[0] for line in lines[:2]} == {"say_hello", "say_goodbye"}
    assert lines[2].split()[0] == "total"
    assert f"{ENCODING} tokens of the anthropic definitions' JSON: approximation" in lines[3]


def test_cli_tokens_without_the_extra_says_what_to_install(toolplug: Any, tmp_path: Path) -> None:
    # An environment without bpe-openai: a module of that name that cannot be imported.
    hidden = tmp_path / "no-tokenizer"
    hidden.mkdir()
    (hidden / "bpe_openai.py").write_text("raise ImportError('not installed')\n")
    out = toolplug("tools", "--tokens", "--plugins", "two", pythonpath=(str(hidden),))
    assert out.returncode == 2
    assert INSTALL in out.stderr and "pip install 'toolplug[tokens]'" in out.stderr
    assert out.stdout == ""


def test_the_sample_geminis_docs_count_is_the_same_here() -> None:
    # The one text whose count Gemini's API reference gives (gemini-2.0-flash: 10): the
    # figure TOKENIZER_FOR and docs/context.md quote.
    assert count("The quick brown fox jumps over the lazy dog.") == 10
    assert "10 here too" in TOKENIZER_FOR["gemini"]
