"""toolplug-think: the ``think`` tool, a place for a model to reason before it acts."""

from __future__ import annotations

from collections.abc import Callable

from toolplug import hookimpl

from toolplug_think.definition import DESCRIPTION, ThinkAction, ThinkObservation, think_tool
from toolplug_think.impl import CONFIRMATION, ThinkExecutor

__all__ = [
    "CONFIRMATION",
    "DESCRIPTION",
    "ThinkAction",
    "ThinkExecutor",
    "ThinkObservation",
    "register_tools",
    "think_tool",
]


@hookimpl
def register_tools(register: Callable[..., None]) -> None:
    """Register the think tool (stateless: it takes no params)."""
    register(think_tool)
