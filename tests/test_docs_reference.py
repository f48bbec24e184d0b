"""The API reference (docs/reference/) covers every public name of the core.

``mkdocs build --strict`` (the ``docs`` tox env) checks that each page renders; this
checks that no public name is missing from the pages, so a name added to
``toolplug.__all__`` without a place in the reference fails here.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
import toolplug

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "reference"
SUBMODULES = (
    "toolplug.formats",
    "toolplug.interaction",
    "toolplug.testing",
    "toolplug.names",
    "toolplug.compose",
    "toolplug.loop",
    "toolplug.errors",
)


def rendered() -> set[str]:
    """The identifiers the reference pages render with ``::: identifier``."""
    found: set[str] = set()
    for page in REFERENCE.glob("*.md"):
        found.update(re.findall(r"^::: *(\S+)", page.read_text(), re.M))
    hooks = (REFERENCE.parent / "hooks.md").read_text()
    found.update(re.findall(r"^::: *(\S+)", hooks, re.M))
    return found


def test_every_public_name_of_the_core_is_in_the_reference() -> None:
    shown = rendered()
    # A name is covered by its own entry, or by a page that renders its whole module.
    defined_in = toolplug._LAZY  # the one list of the public names, with their modules
    missing = [
        name
        for name in toolplug.__all__
        if name != "__version__"
        and f"toolplug.{name}" not in shown
        and defined_in[name] not in shown
    ]
    assert not missing, f"add these to a page of docs/reference/: {missing}"


@pytest.mark.parametrize("module", SUBMODULES)
def test_every_public_submodule_has_a_page(module: str) -> None:
    assert module in rendered()


@pytest.mark.parametrize("name", [n for n in toolplug.__all__ if n != "__version__"])
def test_every_public_callable_and_class_has_a_docstring(name: str) -> None:
    value = getattr(toolplug, name)
    if inspect.isclass(value) or inspect.isfunction(value):
        assert inspect.getdoc(value), f"toolplug.{name} has no docstring"


def test_the_hook_specs_have_docstrings() -> None:
    hookspecs = importlib.import_module("toolplug.hookspecs")
    for name in (
        "register_tools",
        "register_formats",
        "register_commands",
        "tool_call",
        "add_options",
        "load_guard",
    ):
        assert inspect.getdoc(getattr(hookspecs, name)), name
