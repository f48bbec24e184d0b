"""The ``file_editor`` tool's types: its action, its observation, and its description."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema
from toolplug import Action, Observation

Command = Literal["view", "create", "str_replace", "insert", "undo_edit"]


class FileEditorAction(Action):
    """One editor command. Which optional fields a command uses is said on each field."""

    command: Command = Field(description="What to do.")
    path: str = Field(description="The file or directory.")
    view_range: list[int] | None = Field(
        default=None,
        min_length=2,
        max_length=2,
        description="`view`: [start, end] lines, from 1, inclusive; end -1: to the end.",
    )
    file_text: str | None = Field(default=None, description="`create`: the file's content.")
    old_str: str | None = Field(
        default=None,
        description="`str_replace`: the text to replace; add lines around it to make it unique.",
    )
    new_str: str | None = Field(
        default=None,
        description="`str_replace`: the new text (left out or empty deletes `old_str`). "
        "`insert`: the lines to insert.",
    )
    insert_line: int | None = Field(default=None, description="`insert`: the line to insert after.")
    # Another name for `new_str` in `insert`, the one some models were trained on; kept
    # out of the schema, so the model reads one field, not two.
    insert_text: SkipJsonSchema[str | None] = None


class FileEditorObservation(Observation):
    """The result of a successful command; failures are plain error observations."""

    command: str = Field(description="The command that ran.")
    path: str = Field(description="The absolute path of the file or directory.")
    diff: str | None = Field(
        default=None, description="For edits and undo: the change as a unified diff."
    )


def describe(undo_depth: int, *, outside: bool = False) -> str:
    """The tool description the model reads: the same in every workspace (a prompt
    cache keeps it), so it names none."""
    where = "or absolute" if outside else "or absolute inside it"
    return (
        "View, create and edit text files.\n"
        "* `view`: a file's lines, numbered like `cat -n` (`view_range` for part of a long "
        "file); a directory's files and folders, two levels deep; an image (png, jpeg, gif, "
        "webp) as an image.\n"
        "* `create`: a new file of `file_text` (missing folders are made); it never "
        "overwrites a file.\n"
        "* `str_replace`: `old_str` must match exactly one place, whitespace and "
        "indentation included (leave out the line numbers `view` shows); it becomes "
        "`new_str`.\n"
        "* `insert`: `new_str` as lines after line `insert_line` (0: at the top).\n"
        f"* `undo_edit`: reverts the file's last edit (up to {undo_depth} steps back).\n"
        f"Paths are relative to the workspace, {where}. Line endings, encoding and "
        "permissions are kept."
    )
