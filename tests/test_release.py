"""Versions, changelogs and release tags agree (tools/release.py's checks).

``tox -e release`` runs the whole release path (build, twine check, offline install);
these are its quick checks, run with the cross-package tests so that a version bump
without a changelog entry fails here too.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "release.py"


def _load_release() -> ModuleType:
    spec = importlib.util.spec_from_file_location("toolplug_release_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


release = _load_release()


def test_every_distribution_is_consistent() -> None:
    dists = release.distributions()
    # The core and every plugins/* directory with a pyproject.toml, e.g. a new plugins/grep.
    expected = {"core"} | {
        f"plugins/{p.name}" for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").exists()
    }
    assert {d.relative for d in dists} == expected
    assert release.check_consistency(dists) == []


def test_every_tag_maps_to_its_directory_and_triggers_the_workflow() -> None:
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    patterns = re.findall(r'^\s+- "(toolplug[^"]*)"$', workflow, re.M)
    assert patterns, "release.yml lists no tag pattern"
    dists = release.distributions()
    for dist in dists:
        assert release.dir_for_tag(dist.tag, dists) == dist
        assert any(fnmatch.fnmatchcase(dist.tag, p) for p in patterns), dist.tag
    think = next(d for d in dists if d.relative == "plugins/think")
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "dir-for-tag", think.tag], capture_output=True, text=True
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, "plugins/think\n", "")


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ("toolplug-bash-v0.0.1", "says version 0.0.1, but plugins/bash/pyproject.toml says"),
        ("toolplug-nothing-v1.0.0", "names no distribution here"),
        ("bash-0.3.0", "is not a release tag"),
    ],
)
def test_a_wrong_tag_is_refused_with_the_reason(tag: str, message: str) -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "dir-for-tag", tag], capture_output=True, text=True
    )
    assert out.returncode == 1 and out.stdout == ""
    assert message in out.stderr


def test_a_version_without_its_changelog_entry_is_found(tmp_path: Path) -> None:
    """A copy of the layout, then the mistakes a release can carry, one by one."""
    for folder in ["core", "plugins/think"]:
        target = tmp_path / folder
        target.mkdir(parents=True)
        for name in ["pyproject.toml", "CHANGELOG.md"]:
            shutil.copy(ROOT / folder / name, target / name)
    assert release.check_consistency(release.distributions(tmp_path)) == []

    think = tmp_path / "plugins/think/pyproject.toml"
    text = think.read_text(encoding="utf-8")
    version = re.search(r'^version = "([^"]+)"', text, re.M)
    assert version is not None
    think.write_text(text.replace(version[0], 'version = "9.9.9"'), encoding="utf-8")
    (problem,) = release.check_consistency(release.distributions(tmp_path))
    assert problem == (
        f"plugins/think: pyproject.toml says 9.9.9, the newest CHANGELOG.md entry is {version[1]}"
    )

    changelog = tmp_path / "plugins/think/CHANGELOG.md"
    changelog.write_text(
        changelog.read_text(encoding="utf-8").replace(
            "## [Unreleased]", "## [Unreleased]\n\n## [9.9.9] - 2026-12-01"
        ),
        encoding="utf-8",
    )
    assert release.check_consistency(release.distributions(tmp_path)) == []

    init = tmp_path / "core/src/toolplug/__init__.py"
    init.parent.mkdir(parents=True)
    init.write_text('__version__ = "0.0.0"\n', encoding="utf-8")
    (problem,) = release.check_consistency(release.distributions(tmp_path))
    assert problem.startswith("core: __version__ is 0.0.0, pyproject.toml says ")


def test_the_metadata_check_knows_a_complete_wheel_from_a_bare_one(
    wheels: dict[str, Path],
) -> None:
    """The core's wheel as built here, against the test plugin's (name, version, deps)."""
    assert release.metadata_problems(wheels["core"]) == []
    bare = release.metadata_problems(wheels["demo"])
    name = wheels["demo"].name
    for expected in [
        "no classifier 'Programming Language :: Python :: 3.10'",
        "no classifier 'Typing :: Typed'",
        "no 'Development Status' classifier",
        'no License-Expression (license = "SPDX" in pyproject.toml)',
        "no License-File (license-files in pyproject.toml)",
        "no project URL 'Source'",
        "no Markdown readme as the long description",
    ]:
        assert f"{name}: {expected}" in bare
