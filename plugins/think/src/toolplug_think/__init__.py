"""toolplug-think: the ``think`` tool, a place for a model to reason before it acts."""

from __future__ import annotations

from collections.abc import Callable

from toolplug import hookimpl

from toolplug_think.executor import CONFIRMATION, ThinkExecutor
from toolplug_think.tool import think_tool
from toolplug_think.types import DESCRIPTION, ThinkAction, ThinkObservation

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
