"""toolplug-file-editor: view, create and edit files exactly, with undo, and never lose a byte.

Enable the ``file_editor`` entry point; the tool is ``file_editor``, also reachable as
``str_replace_editor`` and ``str_replace_based_edit_tool``, the names Anthropic's
editor uses. The same plugin registers ``apply_patch``, which applies patches in the
Codex format with the editor's guarantees and shares its undo history.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolplug import hookimpl

from toolplug_file_editor.executor import FileEditorExecutor, Settings
from toolplug_file_editor.patch_tool import ApplyPatchTool
from toolplug_file_editor.patch_types import ApplyPatchAction, ApplyPatchObservation
from toolplug_file_editor.tool import FileEditorTool
from toolplug_file_editor.types import FileEditorAction, FileEditorObservation

__all__ = [
    "ApplyPatchAction",
    "ApplyPatchObservation",
    "ApplyPatchTool",
    "FileEditorAction",
    "FileEditorExecutor",
    "FileEditorObservation",
    "FileEditorTool",
    "Settings",
    "register_tools",
]

#: Other names the tool answers to: those of Anthropic's built-in editor.
ALIASES = ("str_replace_editor", "str_replace_based_edit_tool")


@hookimpl
def register_tools(register: Callable[..., Any]) -> None:
    """Register the ``file_editor`` tool and its aliases, and ``apply_patch``."""
    register(FileEditorTool, name="file_editor", aliases=list(ALIASES))
    register(ApplyPatchTool, name="apply_patch")
