"""Entry-point discovery against real installed distributions (dist-info on sys.path)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from core_test_tools import GOOD
from toolplug import PluginSelectionError, ToolRegistry, Toolset
from toolplug.plugins import installed_plugins, parse_selection


@pytest.fixture
def dists(install_dist: Any) -> None:
    install_dist("toolplug-shout", "1.2.0", {"shout": "tp_test_shout"}, {"tp_test_shout": GOOD})
    install_dist(
        "toolplug-broken",
        "0.0.1",
        {"broken": "tp_test_broken"},
        {"tp_test_broken": "import a_module_that_does_not_exist\n"},
    )
    install_dist(
        "toolplug-raiser",
        "0.2.0",
        {"raiser": "tp_test_raiser"},
        {
            "tp_test_raiser": """
        from toolplug import hookimpl

        @hookimpl
        def register_tools(register):
            raise RuntimeError("no API key")
    """
        },
    )
    install_dist(
        "toolplug-twin",
        "3.0.0",
        {"twin": "tp_test_twin"},
        {"tp_test_twin": GOOD.replace("a.text.upper()", "a.text")},
    )


def test_selection_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLPLUG_PLUGINS", raising=False)
    assert parse_selection(None) is None
    assert parse_selection("a, b,") == ["a", "b"]
    assert parse_selection(["a"]) == ["a"]
    monkeypatch.setenv("TOOLPLUG_PLUGINS", "")
    assert parse_selection(None) == []
    monkeypatch.setenv("TOOLPLUG_PLUGINS", "x,y")
    assert parse_selection(None) == ["x", "y"]
    assert parse_selection("z") == ["z"], "an explicit choice beats the variable"


def test_listing_reads_metadata_and_imports_nothing(
    dists: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLPLUG_PLUGINS", "shout")
    reports = {r.name: r for r in installed_plugins()}
    assert (reports["shout"].distribution, reports["shout"].version) == ("toolplug-shout", "1.2.0")
    assert reports["shout"].enabled and not reports["twin"].enabled
    assert reports["twin"].status == "disabled"
    assert not any(m.startswith("tp_test_") for m in sys.modules)


def test_enabling_one_imports_only_that_one(dists: None) -> None:
    registry = ToolRegistry.from_plugins("shout")
    assert registry.names() == ["shout"]
    assert [m for m in sys.modules if m.startswith("tp_test_")] == ["tp_test_shout"]
    with Toolset.load(["shout"], registry=registry) as tools:
        assert tools.call("shout", {"text": "hi"}).text == "HI"


def test_none_enabled(dists: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPLUG_PLUGINS", "")
    assert ToolRegistry.from_plugins().names() == []


def test_unknown_plugin_lists_installed(dists: None) -> None:
    with pytest.raises(
        PluginSelectionError, match=r"not installed: nope\. Installed plugins: .*shout"
    ):
        ToolRegistry.from_plugins("shout,nope")


def test_broken_plugins_are_reported_and_the_rest_work(dists: None) -> None:
    registry = ToolRegistry.from_plugins("shout,broken,raiser")
    reports = {r.name: r for r in registry.reports}
    assert reports["shout"].status == "ok" and reports["shout"].tools == ["shout"]
    assert reports["broken"].status == "broken"
    assert "ModuleNotFoundError" in str(reports["broken"].error)
    assert (
        reports["broken"].distribution == "toolplug-broken" and reports["broken"].version == "0.0.1"
    )
    assert reports["raiser"].status == "broken" and "RuntimeError: no API key" in str(
        reports["raiser"].error
    )
    assert registry.resolve("shout")[0].call({"text": "ok"}).text == "OK"


def test_same_tool_name_from_two_distributions(dists: None) -> None:
    registry = ToolRegistry.from_plugins("shout,twin")
    with pytest.raises(Exception) as info:
        registry.resolve("shout")
    assert "toolplug-shout 1.2.0" in str(info.value) and "toolplug-twin 3.0.0" in str(info.value)
