"""A plugin outside the core versions it declares is refused, with a clear message.

The declaration is the distribution's ``Requires-Dist: toolplug ...``, read from real
installed distributions (``.dist-info`` folders on ``sys.path``); the specifier logic
is checked against ``packaging`` (pytest's own dependency) as the oracle.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from core_test_tools import GOOD
from hypothesis import given, strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version as Oracle
from toolplug import ToolRegistry, Toolset, UnknownToolError, __version__
from toolplug._versions import Version, contains
from toolplug.plugins import installed_plugins

LOUD = GOOD.replace("def shout(", "def loud(").replace('"shout"', '"loud"')


@pytest.fixture
def ranged(install_dist: Any) -> Path:
    """Three plugins: one for this core, one for a later core, one with an extra's range."""
    site = install_dist(
        "toolplug-shout",
        "1.2.0",
        {"shout": "tp_test_shout"},
        {"tp_test_shout": GOOD},
        requires=[f"toolplug>={__version__},<99", "pydantic>=2"],
    ).parent
    install_dist(
        "toolplug-future",
        "3.0.0",
        {"future": "tp_test_future"},
        {"tp_test_future": GOOD.replace("a.text.upper()", "a.text")},
        requires=["pydantic>=2", "toolplug<99,>=98.1"],  # sorted, as built metadata has it
    )
    install_dist(
        "toolplug-extra",
        "1.0.0",
        {"extra": "tp_test_extra"},
        {"tp_test_extra": LOUD},
        requires=["toolplug[test]>=98; extra == 'test'", "toolplug (>=0.1)"],
    )
    return site


def test_a_plugin_for_another_core_is_refused_before_its_import(ranged: Path) -> None:
    registry = ToolRegistry.from_plugins("shout,future,extra")
    reports = {r.name: r for r in registry.reports}
    future = reports["future"]
    assert future.status == "broken" and future.tools == []
    assert future.error == (
        f"toolplug-future 3.0.0 supports toolplug >=98.1,<99, but toolplug {__version__} is "
        f"installed, so it is not loaded. Install a toolplug-future release made for "
        f"toolplug {__version__}, or a toolplug in its range (pip install 'toolplug>=98.1,<99')."
    )
    assert "tp_test_future" not in sys.modules
    # The others load: one in range, one whose only out-of-range line is an extra's.
    assert reports["shout"].status == reports["extra"].status == "ok"
    with Toolset.load(["shout", "loud"], registry=registry) as tools:
        assert tools.call("shout", {"text": "hi"}).text == "HI"
    with pytest.raises(UnknownToolError, match="The plugin 'future' is broken: toolplug-future"):
        registry.resolve("future")


def test_the_listing_shows_it_without_importing_anything(
    ranged: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLPLUG_PLUGINS", "shout")
    reports = {r.name: r for r in installed_plugins()}
    # Disabled, so not broken; but the listing still says why it could not load.
    assert reports["future"].status == "disabled"
    assert "supports toolplug >=98.1,<99" in str(reports["future"].error)
    assert reports["shout"].error is None and reports["extra"].error is None
    assert not any(m.startswith("tp_test_") for m in sys.modules)


def test_toolplug_plugins_check_reports_it_and_fails(ranged: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ranged), *sys.path])}
    env.pop("TOOLPLUG_PLUGINS", None)
    run = [sys.executable, "-m", "toolplug", "plugins", "--plugins", "shout,future", "--check"]
    out = subprocess.run(run, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert "error: toolplug-future 3.0.0 supports toolplug >=98.1,<99, but toolplug " in out.stdout
    listed = subprocess.run(
        [*run, "--json"], env=env, capture_output=True, text=True, cwd=tmp_path
    ).stdout
    by_name = {r["name"]: r for r in json.loads(listed)}
    assert by_name["future"]["status"] == "broken" and by_name["shout"]["status"] == "ok"


def test_a_range_the_core_cannot_read_is_not_held_against_the_plugin(install_dist: Any) -> None:
    install_dist(
        "toolplug-odd", "1.0.0", {"odd": "tp_test_odd"}, {"tp_test_odd": GOOD},
        requires=["toolplug===0.0.0-odd"],
    )  # fmt: skip
    (report,) = [r for r in ToolRegistry.from_plugins("odd").reports if r.name == "odd"]
    assert report.status == "ok" and report.error is None


def test_the_requirement_is_found_after_a_folded_header(install_dist: Any) -> None:
    """A long License folds over lines, one of them only spaces; Requires-Dist follows."""
    info = install_dist("toolplug-fold", "1.0.0", {"fold": "tp_test_fold"}, {"tp_test_fold": GOOD})
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolplug-fold\nVersion: 1.0.0\n"
        "License: Copyright the authors\n        \n        All rights granted.\n"
        "Requires-Dist: toolplug>=98\n\nThe long description.\n"
    )
    (report,) = [r for r in installed_plugins("fold") if r.name == "fold"]
    assert report.status == "broken" and "supports toolplug >=98," in str(report.error)


# -- the specifier logic, against packaging ----------------------------------------------


@pytest.mark.parametrize(
    ("specifiers", "version", "inside"),
    [
        (">=0.2,<0.3", "0.2.1", True),
        (">=0.2,<0.3", "0.3.0", False),
        (">=0.2,<0.3", "0.3.0rc1", False),  # <0.3 admits no 0.3 pre-release
        (">=0.2,<0.3", "0.2.0rc1", False),
        ("~=0.2.1", "0.2.9", True),
        ("~=0.2.1", "0.3", False),
        ("==0.2.*", "0.2.7", True),
        ("!=0.2.*", "0.2.7", False),
        ("==0.2", "0.2.0+local", True),
        (">0.2", "0.2.post1", False),  # >0.2 admits no 0.2 post-release
        ("!=0.2.1", "0.2.1", False),
        ("", "1.0", True),
        ("===0.2", "0.2", None),  # arbitrary equality: cannot tell
        (">=0.2", "not a version", None),
    ],
)
def test_contains(specifiers: str, version: str, inside: bool | None) -> None:
    assert contains(specifiers, version) is inside


releases = st.lists(st.integers(0, 3), min_size=1, max_size=3).map(
    lambda parts: ".".join(map(str, parts))
)
suffixes = st.sampled_from(["", "a1", "b2", "rc1", ".post1", ".dev1", "rc1.dev2", ".post2.dev1"])
versions = st.builds(lambda r, s: r + s, releases, suffixes)
operators = st.sampled_from(["==", "!=", "<=", ">=", "<", ">", "~="])


@given(version=versions, op=operators, release=releases, suffix=suffixes, wildcard=st.booleans())
def test_contains_agrees_with_packaging(
    version: str, op: str, release: str, suffix: str, wildcard: bool
) -> None:
    if op == "~=" and "." not in release:
        release = "0." + release  # ~= needs two release parts
    bound = release + (".*" if wildcard and op in ("==", "!=") else suffix)
    expected = SpecifierSet(f"{op}{bound}").contains(version, prereleases=True)
    assert contains(f"{op}{bound}", version) is expected


@given(a=versions, b=versions)
def test_order_agrees_with_packaging(a: str, b: str) -> None:
    va, vb = Version.parse(a), Version.parse(b)
    assert va is not None and vb is not None
    assert (va < vb, va.same(vb)) == (Oracle(a) < Oracle(b), Oracle(a) == Oracle(b))
    assert str(va) == str(Oracle(a))
