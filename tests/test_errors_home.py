"""Every exception a plugin defines lives in that plugin's ``errors.py`` (issue #27).

One module per plugin, its tree drawn at the top as in the core's ``toolplug.errors``:
a reader looks in one place for what a plugin can raise. Other modules import the
classes from there (and may keep an old import path working by importing them back).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

#: The plugins' import packages.
PLUGINS = (
    "toolplug_think",
    "toolplug_finish",
    "toolplug_bash",
    "toolplug_file_editor",
    "toolplug_glob",
    "toolplug_grep",
    "toolplug_mcp",
    "toolplug_policy",
    "toolplug_otel",
)


def modules_of(package: ModuleType) -> list[ModuleType]:
    """The package and every module below it, imported."""
    found = [package]
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        found.append(importlib.import_module(info.name))
    return found


@pytest.mark.parametrize("name", PLUGINS)
def test_a_plugins_exceptions_are_all_in_its_errors_module(name: str) -> None:
    package = importlib.import_module(name)
    home = f"{name}.errors"
    strays: list[str] = []
    defined: list[str] = []
    for module in modules_of(package):
        for _, value in inspect.getmembers(module, inspect.isclass):
            if not issubclass(value, BaseException) or value.__module__ != module.__name__:
                continue  # not an exception, or imported from elsewhere
            if module.__name__ == home:
                defined.append(value.__qualname__)
            else:
                strays.append(f"{module.__name__}.{value.__qualname__}")
    assert not strays, f"define these in {home}: {', '.join(sorted(strays))}"
    if defined:
        tree = importlib.import_module(home).__doc__ or ""
        missing = [cls for cls in defined if cls not in tree]
        assert not missing, f"{home}'s docstring draws no tree with {', '.join(missing)}"


#: Import paths the errors had before they moved (the changelogs promise they work).
OLD_PATHS = (
    ("toolplug_bash.session", "ShellError"),
    ("toolplug_glob", "PatternError"),
    ("toolplug_glob.patterns", "PatternError"),
    ("toolplug_grep", "PatternError"),
    ("toolplug_grep.query", "PatternError"),
    ("toolplug_mcp.client.config", "ConfigError"),
    ("toolplug_mcp.client.prompts", "PromptError"),
    ("toolplug_mcp.client.connection", "RequestFailed"),
    ("toolplug_mcp.server.security", "OriginError"),
    ("toolplug_policy.paths", "GlobError"),
    ("toolplug_policy.rules", "ArgumentPathError"),
    ("toolplug_policy.shell", "ShellParseError"),
    ("toolplug_policy.shell", "ShellTimeout"),
)


@pytest.mark.parametrize(("module", "name"), OLD_PATHS)
def test_an_errors_old_import_path_gives_the_same_class(module: str, name: str) -> None:
    home = importlib.import_module(module.split(".")[0] + ".errors")
    assert getattr(importlib.import_module(module), name) is getattr(home, name)
