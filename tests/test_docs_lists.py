"""The lists the docs keep, checked against the code they describe.

A page that lists what exists (the distributions, the provider formats, the CLI's
``--format`` choices, a baked plugin's dependencies) drifts when something is added and
the page is not touched. Each test here reads one such list from its page and compares
it with the real thing: the ``plugins/`` folders' pyproject files, the core's format
registry, the ``toolplug`` command in a subprocess, a plugin baked from the template.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_blocks import ROOT
from packaging.requirements import Requirement
from toolplug.formats import default_formats

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def read(page: str) -> str:
    return (ROOT / page).read_text()


def section(text: str, heading: str) -> str:
    """The text under a markdown heading, up to the next heading of any level."""
    _, found, rest = ("\n" + text).partition(f"\n{heading}\n")
    assert found, f"no heading {heading!r}"
    return re.split(r"\n#{1,6} ", rest, maxsplit=1)[0]


def table_names(text: str) -> list[str]:
    """The backquoted names of a markdown table's first column."""
    return re.findall(r"^\| `([^`]+)` \|", text, re.MULTILINE)


def distributions() -> set[str]:
    """The distribution names of the core and every folder under plugins/."""
    files = [ROOT / "core/pyproject.toml", *sorted(ROOT.glob("plugins/*/pyproject.toml"))]
    return {tomllib.loads(file.read_text())["project"]["name"] for file in files}


def test_the_packages_tables_list_every_distribution() -> None:
    expected = distributions()
    assert len(expected) >= 10, expected  # the core and the plugins/ folders were found
    for page in ("docs/index.md", "README.md"):
        listed = table_names(section(read(page), "## The packages"))
        assert sorted(listed) == sorted(expected), page


def test_the_pages_that_name_the_formats_name_every_one() -> None:
    """index.md's and the README's first paragraphs name every provider format by its
    title; formats.md's table has one row per registered format."""
    formats = default_formats()
    titles = {formats[name].title for name in formats if name != "toolplug"}
    assert len(titles) >= 6, titles
    first = section(read("docs/index.md"), "# toolplug").split("\n- ", 2)[1]
    readme = section(read("README.md"), "# toolplug")
    for page, text in (("docs/index.md", first), ("README.md", readme)):
        flat = " ".join(text.split())
        assert [t for t in sorted(titles) if t not in flat] == [], page
    assert "toolplug's own" in " ".join(first.split()), "index.md: the toolplug format"
    table = section(read("docs/formats.md"), "# Provider formats")
    assert table_names(table) == list(formats)


def format_choices() -> list[str]:
    """The formats ``toolplug tools --format`` takes with no plugin loaded (the core's),
    as the command itself says when given one it does not know."""
    out = subprocess.run(
        [sys.executable, "-m", "toolplug", "tools", "--format", "no-such", "--plugins", ""],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2, out.stderr
    found = re.search(r"choose one of (.+)$", out.stderr.strip())
    assert found, out.stderr
    return found.group(1).split(", ")


def test_the_format_choices_cli_md_and_the_help_give_are_the_clis() -> None:
    choices = format_choices()
    assert choices == list(default_formats())
    (documented,) = re.findall(r"`--format ([a-z|]+)`", read("docs/cli.md"))
    assert documented.split("|") == choices
    helped = subprocess.run(
        [sys.executable, "-m", "toolplug", "tools", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    about = " ".join(helped.split("--format", 1)[1].split("--strict", 1)[0].split())
    assert re.findall(r"[a-z]+(?=,)", about.split("or a plugin")[0]) == choices


@pytest.fixture(scope="module")
def baked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cookiecutter.main import cookiecutter

    out = tmp_path_factory.mktemp("baked")
    return Path(cookiecutter(str(ROOT / "cookiecutter-tool"), no_input=True, output_dir=str(out)))


def test_the_baked_readme_names_every_dependency(baked: Path) -> None:
    """The Dependencies section of a baked plugin's README names (in backquotes)
    exactly the runtime dependencies and the test extra of its pyproject.toml."""
    project = tomllib.loads((baked / "pyproject.toml").read_text())["project"]
    requirements = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    expected = {Requirement(line).name for line in requirements}
    assert {"toolplug", "pytest"} <= expected
    named = set(re.findall(r"`([A-Za-z0-9_.-]+)`", section(read_baked(baked), "## Dependencies")))
    assert sorted(named) == sorted(expected)


def read_baked(baked: Path) -> str:
    return (baked / "README.md").read_text()
