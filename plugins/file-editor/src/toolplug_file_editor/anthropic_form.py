"""The editor's native forms for Anthropic Messages: ``text_editor_20250728`` for
``file_editor`` and ``memory_20250818`` for ``memory`` (see :mod:`toolplug.formats.forms`).

Claude models are trained on both tools as Anthropic declares them, by type, with fixed
inputs. ``file_editor`` already takes the text editor's commands and argument names
(``view``, ``create``, ``str_replace``, ``insert``; ``path``, ``view_range``,
``file_text``, ``old_str``, ``new_str``, ``insert_line``, ``insert_text``), and the
memory tool takes the memory tool's: the forms check the command and hand the input to
the tool unchanged, so a native call runs exactly as a function call does.
"""

from __future__ import annotations

from typing import Any

from toolplug import ArgumentError
from toolplug.formats import NativeForm

#: The text editor version's commands. ``undo_edit`` is not among them, but a call
#: that sends it anyway is carried out (the editor has it): it is not refused.
TEXT_EDITOR_COMMANDS = ("view", "create", "str_replace", "insert")
MEMORY_COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")


def _command(data: dict[str, Any], commands: tuple[str, ...], extra: tuple[str, ...]) -> None:
    command = data.get("command")
    if command not in commands + extra:
        shown = "missing" if command is None else repr(command)
        raise ArgumentError(f"`command` is {shown}; it must be one of {', '.join(commands)}.")


class TextEditorForm(NativeForm):
    """``file_editor`` as Anthropic's ``text_editor_20250728``, called
    ``str_replace_based_edit_tool``, with ``max_characters`` the editor's own
    ``max_view_chars`` (what one ``view`` returns at most, cut with a note)."""

    def __init__(self, max_characters: int | None = None) -> None:
        declaration: dict[str, Any] = {
            "type": "text_editor_20250728",
            "name": "str_replace_based_edit_tool",
        }
        if max_characters is not None:
            declaration["max_characters"] = max_characters
        super().__init__(
            "anthropic",
            declaration,
            sdk_type=("anthropic.types", "ToolTextEditor20250728Param", "anthropic"),
        )

    def arguments(self, data: dict[str, Any]) -> dict[str, Any]:
        _command(data, TEXT_EDITOR_COMMANDS, ("undo_edit",))
        return data


class MemoryForm(NativeForm):
    """The memory tool as Anthropic's ``memory_20250818``, called ``memory``."""

    def __init__(self) -> None:
        super().__init__(
            "anthropic",
            {"type": "memory_20250818", "name": "memory"},
            sdk_type=("anthropic.types", "MemoryTool20250818Param", "anthropic"),
        )

    def arguments(self, data: dict[str, Any]) -> dict[str, Any]:
        _command(data, MEMORY_COMMANDS, ())
        return data
