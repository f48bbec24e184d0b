"""The ``file_editor`` tool's types: its action, its observation, and its description."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from toolplug import Action, Observation

Command = Literal["view", "create", "str_replace", "insert", "undo_edit"]


class FileEditorAction(Action):
    """One editor command. Which optional fields a command uses is said on each field."""

    command: Command = Field(
        description=(
            "What to do: `view` a file or directory, `create` a new file, `str_replace` "
            "text in a file, `insert` lines into a file, or `undo_edit` the last edit of a file."
        )
    )
    path: str = Field(
        description=("The file or directory: relative to the workspace, or absolute inside it.")
    )
    view_range: list[int] | None = Field(
        default=None,
        min_length=2,
        max_length=2,
        description=(
            "For `view` of a file: [start, end], 1-based and inclusive; end -1 means to "
            "the end of the file. Left out: the whole file."
        ),
    )
    file_text: str | None = Field(
        default=None, description="For `create`: the whole content of the new file."
    )
    old_str: str | None = Field(
        default=None,
        description=(
            "For `str_replace`: the exact text to replace, whitespace included. It must "
            "occur exactly once in the file; add surrounding lines to make it unique."
        ),
    )
    new_str: str | None = Field(
        default=None,
        description=(
            "For `str_replace`: the replacement text (left out or empty deletes `old_str`). "
            "For `insert`: the lines to insert."
        ),
    )
    insert_line: int | None = Field(
        default=None,
        description="For `insert`: the line after which to insert; 0 inserts at the top.",
    )
    insert_text: str | None = Field(
        default=None, description="For `insert`: the lines to insert (the same as `new_str`)."
    )


class FileEditorObservation(Observation):
    """The result of a successful command; failures are plain error observations."""

    command: str = Field(description="The command that ran.")
    path: str = Field(description="The absolute path of the file or directory.")
    diff: str | None = Field(
        default=None, description="For edits and undo: the change as a unified diff."
    )


def describe(workspace: str, undo_depth: int) -> str:
    """The tool description the model reads."""
    return (
        "View, create and edit text files.\n"
        "* `view`: a file shows its lines numbered like `cat -n` (use `view_range` for part "
        "of a long file); a directory lists its files and folders two levels deep; an image "
        "(png, jpeg, gif, webp) is shown as an image.\n"
        "* `create`: makes a new file with `file_text` (missing folders are made). It never "
        "overwrites an existing file.\n"
        "* `str_replace`: replaces `old_str` with `new_str`. `old_str` must match exactly one "
        "place in the file, whitespace and indentation included; do not copy the line "
        "numbers that `view` prints.\n"
        "* `insert`: inserts `new_str` as new lines after line `insert_line` (0 = the top).\n"
        f"* `undo_edit`: reverts the last edit of the file (up to {undo_depth} steps back).\n"
        f"Paths are relative to the workspace {workspace}, or absolute inside it. "
        "Line endings, encoding and file permissions are kept."
    )
