"""The plugin is found through its entry point and enabled by name like any other."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Spans
from toolplug import Toolset
from toolplug.testing import run_toolplug

SUPPORT = Path(__file__).parent / "support"
TOOLPLUG = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"


def test_discovered_through_its_entry_point() -> None:
    done = run_toolplug("plugins", "--json", "--check")
    assert done.returncode == 0, done.stderr
    [otel] = [p for p in json.loads(done.stdout) if p["name"] == "otel"]
    assert otel["distribution"] == "toolplug-otel"
    assert otel["version"] == "0.1.0"
    assert otel["status"] == "ok" and otel["tools"] == []


def test_named_it_traces(spans: Spans) -> None:
    with Toolset.load(["think"], plugins=["think", "otel"]) as toolset:
        toolset.call("think", {"thought": "plan"})
    assert spans.one().name == "execute_tool think"


def test_by_the_environment_variable(spans: Spans, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPLUG_PLUGINS", "think,otel")
    with Toolset.load(["think"]) as toolset:
        toolset.call("think", {"thought": "plan"})
    assert spans.one().name == "execute_tool think"


def test_left_out_it_does_nothing(spans: Spans) -> None:
    with Toolset.load(["think"], plugins="think") as toolset:
        toolset.call("think", {"thought": "plan"})
    assert spans.tools() == []


def test_a_selective_load_takes_it(spans: Spans, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no selection, a load for named tools imports only their plugins (as
    ``toolplug call think`` does) and the installed guards: otel declares itself one
    (issue #27; it used to be left out)."""
    monkeypatch.delenv("TOOLPLUG_PLUGINS", raising=False)
    with Toolset.load(["think"]) as toolset:
        toolset.call("think", {"thought": "plan"})
    assert spans.one().name == "execute_tool think"


def test_all_installed_includes_it(spans: Spans, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading every installed plugin (no selection, no tool names) enables it."""
    monkeypatch.delenv("TOOLPLUG_PLUGINS", raising=False)
    with Toolset.load() as toolset:
        toolset.call("think", {"thought": "plan"})
    assert spans.one().name == "execute_tool think"


def _cli_spans(tmp_path: Path, *args: str) -> list[str]:
    """Run ``toolplug call`` in a process whose SDK writes its spans to a file (see
    support/sitecustomize.py); the names of the spans it ended."""
    spans_file = tmp_path / "spans.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
    env["PYTHONPATH"] = os.pathsep.join([str(SUPPORT), env.get("PYTHONPATH", "")])
    env["TOOLPLUG_OTEL_TEST_SPANS"] = str(spans_file)
    done = subprocess.run(
        [TOOLPLUG, "call", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    if not spans_file.exists():
        return []
    return [json.loads(line)["name"] for line in spans_file.read_text().splitlines()]


def test_a_cli_call_is_traced_when_otel_is_named(tmp_path: Path) -> None:
    names = _cli_spans(tmp_path, "--plugins", "think,otel", "think", '{"thought": "plan"}')
    assert names == ["execute_tool think"]


def test_a_selective_cli_call_is_traced(tmp_path: Path) -> None:
    """``toolplug call think`` loads the think plugin and the guards, otel among them."""
    assert _cli_spans(tmp_path, "think", '{"thought": "plan"}') == ["execute_tool think"]
