"""Shared paths and helpers for the template's tests."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TEMPLATE = Path(__file__).resolve().parents[1]
REPO = TEMPLATE.parent
CORE = REPO / "core"
VARIANTS = ("function", "class")


@pytest.fixture(scope="session", autouse=True)
def template_extensions_importable() -> Iterator[None]:
    """Let pytest-cookies import the template's ``local_extensions``.

    pytest-cookies renders the answers before it calls cookiecutter, outside the
    import-path patch with which cookiecutter itself finds a template's extensions.
    """
    sys.path.append(str(TEMPLATE))
    yield
    sys.path.remove(str(TEMPLATE))


@pytest.fixture
def bake(cookies: Any) -> Any:
    """Bake the template with answers; returns pytest-cookies' result."""

    def bake_with(**answers: str) -> Any:
        return cookies.bake(template=str(TEMPLATE), extra_context=answers)

    return bake_with


def assigned_constant(path: Path, name: str) -> Any:
    """The literal value a module assigns to ``name`` at top level, read without importing."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in node.targets
        ):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path} assigns no {name}")
