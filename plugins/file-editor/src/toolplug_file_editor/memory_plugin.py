"""The ``memory`` entry point: registers the memory tool alone.

It has an entry point of its own, so ``TOOLPLUG_PLUGINS=memory`` (or
``Toolset.load(["memory"])``) loads it without the editor, and the editor's entry point
does not bring it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolplug import hookimpl

from toolplug_file_editor.memory_tool import MemoryTool


@hookimpl
def register_tools(register: Callable[..., Any]) -> None:
    """Register the ``memory`` tool."""
    register(MemoryTool, name="memory")
