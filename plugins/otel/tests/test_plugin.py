"""The plugin is found through its entry point and enabled by name like any other."""

from __future__ import annotations

import json

import pytest
from conftest import Spans
from toolplug import Toolset
from toolplug.testing import run_toolplug


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


def test_a_selective_load_leaves_it_out(spans: Spans, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no selection, a load for named tools imports only their plugins (as
    ``toolplug call think`` does): otel, not named, is not among them."""
    monkeypatch.delenv("TOOLPLUG_PLUGINS", raising=False)
    with Toolset.load(["think"]) as toolset:
        toolset.call("think", {"thought": "plan"})
    assert spans.tools() == []


def test_all_installed_includes_it(spans: Spans, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading every installed plugin (no selection, no tool names) enables it."""
    monkeypatch.delenv("TOOLPLUG_PLUGINS", raising=False)
    with Toolset.load() as toolset:
        toolset.call("think", {"thought": "plan"})
    assert spans.one().name == "execute_tool think"
