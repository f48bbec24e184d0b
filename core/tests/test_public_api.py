"""The public names: one list, mirrored for type checkers, every name importable."""

from __future__ import annotations

import ast
import inspect

import toolplug


def _type_checking_imports() -> dict[str, str]:
    tree = ast.parse(inspect.getsource(toolplug))
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.module
                for alias in stmt.names:
                    found[alias.asname or alias.name] = stmt.module
    return found


def test_type_checking_imports_mirror_the_public_list() -> None:
    assert _type_checking_imports() == toolplug._LAZY


def test_every_public_name_imports() -> None:
    for name in toolplug.__all__:
        assert getattr(toolplug, name) is not None, name


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        toolplug.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name was found")
