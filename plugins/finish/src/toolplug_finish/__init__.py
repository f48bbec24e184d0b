"""toolplug-finish: the ``finish`` tool, with which a model ends its task."""

from __future__ import annotations

from collections.abc import Callable

from toolplug import hookimpl

from toolplug_finish.executor import CONFIRMATION, FinishExecutor, is_finished
from toolplug_finish.tool import finish_tool
from toolplug_finish.types import DESCRIPTION, FinishAction, FinishObservation

__all__ = [
    "CONFIRMATION",
    "DESCRIPTION",
    "FinishAction",
    "FinishExecutor",
    "FinishObservation",
    "finish_tool",
    "is_finished",
    "register_tools",
]


@hookimpl
def register_tools(register: Callable[..., None]) -> None:
    """Register the finish tool (stateless: it takes no params)."""
    register(finish_tool)
