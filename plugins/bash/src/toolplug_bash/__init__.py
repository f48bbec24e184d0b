"""toolplug-bash: the ``bash`` tool, a persistent, fast and unbreakable shell session."""

from __future__ import annotations

from collections.abc import Callable

from toolplug import hookimpl

from toolplug_bash.definition import (
    ANNOTATIONS,
    DESCRIPTION,
    BashAction,
    BashObservation,
    BashTool,
)
from toolplug_bash.impl import BashConfig, BashExecutor

__all__ = [
    "ANNOTATIONS",
    "DESCRIPTION",
    "BashAction",
    "BashConfig",
    "BashExecutor",
    "BashObservation",
    "BashTool",
    "register_tools",
]


@hookimpl
def register_tools(register: Callable[..., None]) -> None:
    """Register the stateful bash tool (created per host session with its params)."""
    register(BashTool, name="bash")
