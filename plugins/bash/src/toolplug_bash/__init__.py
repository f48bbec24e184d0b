"""toolplug-bash: the ``bash`` tool, a persistent, fast and unbreakable shell session."""

from __future__ import annotations

from collections.abc import Callable

from toolplug import hookimpl

from toolplug_bash.executor import BashConfig, BashExecutor
from toolplug_bash.tool import ANNOTATIONS, BashTool
from toolplug_bash.types import DESCRIPTION, BashAction, BashObservation

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
