"""The ``memory`` tool's types: its action, and the description the model reads.

The fields are those of Anthropic's ``memory_20250818`` tool, so the function form and
the native form take the same input.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from toolplug import Action

MemoryCommand = Literal["view", "create", "str_replace", "insert", "delete", "rename"]

#: The folder the model sees: every memory path starts with it.
MEMORY_ROOT = "/memories"


class MemoryAction(Action):
    """One memory command. Which optional fields a command uses is said on each field."""

    command: MemoryCommand = Field(description="What to do.")
    path: str | None = Field(
        default=None,
        description="The file or folder, under /memories (every command but `rename`).",
    )
    view_range: list[int] | None = Field(
        default=None,
        min_length=2,
        max_length=2,
        description="`view`: [start, end] lines, from 1, inclusive; end -1: to the end.",
    )
    file_text: str | None = Field(default=None, description="`create`: the file's content.")
    old_str: str | None = Field(
        default=None, description="`str_replace`: the text to replace; it must be unique."
    )
    new_str: str | None = Field(default=None, description="`str_replace`: the new text.")
    insert_line: int | None = Field(
        default=None, description="`insert`: the line to insert after (0: at the top)."
    )
    insert_text: str | None = Field(default=None, description="`insert`: the lines to insert.")
    old_path: str | None = Field(default=None, description="`rename`: the file or folder.")
    new_path: str | None = Field(
        default=None, description="`rename`: its new path (which must not exist yet)."
    )


DESCRIPTION = (
    "Your memory: a folder of files, /memories, that outlives this conversation. Look "
    "at it before you start a task, and keep what you learn there.\n"
    "* `view`: a folder's files (two levels deep) or a file's numbered lines.\n"
    "* `create`: a new file of `file_text` (it never overwrites one).\n"
    "* `str_replace`: `old_str`, which must occur once, becomes `new_str`.\n"
    "* `insert`: `insert_text` after line `insert_line` (0: at the top).\n"
    "* `delete`: a file, or a folder and everything in it.\n"
    "* `rename`: `old_path` to `new_path`.\n"
    "Every path starts with /memories; nothing outside it can be reached."
)
