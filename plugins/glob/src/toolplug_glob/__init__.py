"""toolplug-glob: the ``glob`` tool, which finds files by pattern, newest first."""

from __future__ import annotations

from collections.abc import Callable

from toolplug import hookimpl

from toolplug_glob.errors import PatternError
from toolplug_glob.executor import Engine, GlobExecutor, GlobSettings, choose_engine
from toolplug_glob.patterns import compile_glob, split_pattern
from toolplug_glob.tool import GlobTool
from toolplug_glob.types import DESCRIPTION, GlobAction, GlobObservation

__all__ = [
    "DESCRIPTION",
    "Engine",
    "GlobAction",
    "GlobExecutor",
    "GlobObservation",
    "GlobSettings",
    "GlobTool",
    "PatternError",
    "choose_engine",
    "compile_glob",
    "register_tools",
    "split_pattern",
]


@hookimpl
def register_tools(register: Callable[..., None]) -> None:
    """Register the glob tool (stateful: created per session, rooted at its workspace)."""
    register(GlobTool, name="glob")
