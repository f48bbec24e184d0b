"""Entry-point discovery against real installed distributions (dist-info on sys.path)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from core_test_tools import GOOD
from toolplug import (
    PluginSelectionError,
    ToolConflictError,
    ToolRegistry,
    Toolset,
    UnknownToolError,
)
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


# -- pluggy's checks at load ---------------------------------------------------------------

TYPO = """
from toolplug import hookimpl

@hookimpl
def register_tool(register):
    raise AssertionError("never called: no hook has this name")
"""

EMPTY = """
def register_tools(register):
    raise AssertionError("never called: not marked")
"""

OPTIONAL = (
    GOOD
    + """

@hookimpl(optionalhook=True)
def a_hook_of_a_later_version(x):
    pass
"""
)


@pytest.fixture
def mistakes(install_dist: Any) -> None:
    install_dist("toolplug-shout", "1.2.0", {"shout": "tp_test_shout"}, {"tp_test_shout": GOOD})
    install_dist("toolplug-typo", "0.1.0", {"typo": "tp_test_typo"}, {"tp_test_typo": TYPO})
    install_dist("toolplug-empty", "0.1.0", {"empty": "tp_test_empty"}, {"tp_test_empty": EMPTY})
    install_dist(
        "toolplug-nothing", "0.1.0", {"nothing": "tp_test_nothing"}, {"tp_test_nothing": "X = 1\n"}
    )
    install_dist(
        "toolplug-optional",
        "0.1.0",
        {"optional": "tp_test_optional"},
        {"tp_test_optional": OPTIONAL},
    )


def test_a_misspelled_hook_is_reported_with_the_known_hooks(mistakes: None) -> None:
    registry = ToolRegistry.from_plugins("shout,typo")
    reports = {r.name: r for r in registry.reports}
    assert reports["typo"].status == "broken" and reports["typo"].tools == []
    error = str(reports["typo"].error)
    assert error.startswith("register_tool (did you mean register_tools?): marked @hookimpl")
    assert "Known hooks: " in error and "register_tools" in error.partition("Known hooks: ")[2]
    assert reports["shout"].status == "ok" and registry.names() == ["shout"]


def test_a_module_with_no_hook_implementation_is_broken(mistakes: None) -> None:
    reports = {r.name: r for r in ToolRegistry.from_plugins("empty,nothing").reports}
    assert reports["empty"].status == reports["nothing"].status == "broken"
    assert str(reports["nothing"].error).startswith("no function is marked @hookimpl")
    assert "register_tools is named like a hook but not marked @hookimpl" in str(
        reports["empty"].error
    )
    assert "named like a hook" not in str(reports["nothing"].error)


def test_an_optional_hook_is_allowed_as_pluggy_allows_it(mistakes: None) -> None:
    reports = {r.name: r for r in ToolRegistry.from_plugins("optional").reports}
    report = reports["optional"]
    assert (report.name, report.status, report.tools) == ("optional", "ok", ["shout"])


def test_registry_from_checks_a_plugin_module_too() -> None:
    import types

    from toolplug.testing import registry_from

    module = types.ModuleType("tp_test_in_memory")
    exec(TYPO, module.__dict__)
    (report,) = registry_from(module).reports
    assert report.status == "broken" and "register_tool " in str(report.error)


# -- one entry-point name, two distributions ---------------------------------------------


def test_two_distributions_with_one_plugin_name_load_neither(install_dist: Any) -> None:
    install_dist("toolplug-shout", "1.2.0", {"shout": "tp_test_shout"}, {"tp_test_shout": GOOD})
    install_dist("toolplug-loud", "2.0.0", {"shout": "tp_test_loud"}, {"tp_test_loud": GOOD})
    listed = [r for r in installed_plugins() if r.name == "shout"]
    assert len(listed) == 2 and all(r.status == "broken" for r in listed)
    registry = ToolRegistry.from_plugins("shout")
    reports = [r for r in registry.reports if r.name == "shout"]
    (error,) = {r.error for r in reports}
    assert "toolplug-shout 1.2.0" in str(error) and "toolplug-loud 2.0.0" in str(error)
    assert "neither is loaded" in str(error)
    assert registry.names() == []
    assert not any(m.startswith("tp_test_") for m in sys.modules)
    with pytest.raises(UnknownToolError, match="The plugin 'shout' is broken: the plugin name"):
        registry.resolve("shout")


# -- loading only the plugins a toolset names ------------------------------------------


def test_load_imports_only_the_plugins_named_like_the_tools(
    dists: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLPLUG_PLUGINS", raising=False)
    with Toolset.load(["shout"]) as tools:
        assert tools.call("shout", {"text": "hi"}).text == "HI"
    assert [m for m in sys.modules if m.startswith("tp_test_")] == ["tp_test_shout"]


def test_a_name_no_entry_point_has_loads_every_plugin(
    dists: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLPLUG_PLUGINS", raising=False)
    # twin registers a tool named shout too: the conflict shows that it was loaded
    with pytest.raises(ToolConflictError, match=r"toolplug-twin 3\.0\.0"):
        Toolset.load(["shout", "not_a_plugin"])
    with pytest.raises(UnknownToolError, match=r"Broken plugins .*: broken, raiser"):
        Toolset.load(["not_a_plugin"])
    assert {m for m in sys.modules if m.startswith("tp_test_")} >= {
        "tp_test_shout",
        "tp_test_twin",
        "tp_test_raiser",
    }


def test_a_plugin_that_lacks_its_namesake_tool_loads_every_plugin(
    install_dist: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLPLUG_PLUGINS", raising=False)
    install_dist("toolplug-shout", "1.2.0", {"shout": "tp_test_shout"}, {"tp_test_shout": GOOD})
    install_dist(
        "toolplug-other",
        "1.0.0",
        {"other": "tp_test_other", "later": "tp_test_later"},
        {
            "tp_test_other": GOOD.replace('name="shout"', 'name="other_tool"'),
            "tp_test_later": GOOD.replace('name="shout"', 'name="other"'),
        },
    )
    with Toolset.load(["other"]) as tools:
        assert list(tools) == ["other"]
    assert "tp_test_later" in sys.modules and "tp_test_shout" in sys.modules


def test_an_explicit_selection_is_honoured(dists: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPLUG_PLUGINS", "shout,twin")
    with pytest.raises(ToolConflictError):
        Toolset.load(["shout"])
    assert {m for m in sys.modules if m.startswith("tp_test_")} == {"tp_test_shout", "tp_test_twin"}
    monkeypatch.delenv("TOOLPLUG_PLUGINS")
    with pytest.raises(ToolConflictError):
        Toolset.load(["shout"], plugins=["shout", "twin"])


def test_a_name_or_object_registered_twice_is_explained_without_pluggys_dump() -> None:
    import types

    from toolplug.plugins import plugin_manager, register_plugin

    first, second = types.ModuleType("tp_test_first"), types.ModuleType("tp_test_second")
    exec(GOOD, first.__dict__)
    exec(GOOD, second.__dict__)
    pm = plugin_manager()
    assert register_plugin(pm, "shout", first) is None
    assert register_plugin(pm, "shout", second) == (
        "the plugin name 'shout' is taken by <module 'tp_test_first'>"
    )
    assert register_plugin(pm, "again", first) == (
        "it is the same object as the plugin 'shout', which is loaded instead"
    )
