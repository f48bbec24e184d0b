"""toolplug-grep: the ``grep`` tool, which searches file contents with ripgrep."""

from __future__ import annotations

from collections.abc import Callable

from toolplug import hookimpl

from toolplug_grep.errors import PatternError
from toolplug_grep.executor import Engine, GrepExecutor, GrepSettings, choose_engine
from toolplug_grep.tool import GrepTool
from toolplug_grep.types import (
    DESCRIPTION,
    GrepAction,
    GrepCount,
    GrepLine,
    GrepObservation,
)

__all__ = [
    "DESCRIPTION",
    "Engine",
    "GrepAction",
    "GrepCount",
    "GrepExecutor",
    "GrepLine",
    "GrepObservation",
    "GrepSettings",
    "GrepTool",
    "PatternError",
    "choose_engine",
    "register_tools",
]


@hookimpl
def register_tools(register: Callable[..., None]) -> None:
    """Register the grep tool (stateful: created per session, rooted at its workspace)."""
    register(GrepTool, name="grep")
