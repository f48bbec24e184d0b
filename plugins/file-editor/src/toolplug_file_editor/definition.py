"""The ``file_editor`` tool: its action, its observation, and the definition that creates it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field
from toolplug.context import ToolContext
from toolplug.definition import ToolDefinition
from toolplug.model import Action, Observation, ToolAnnotations

Command = Literal["view", "create", "str_replace", "insert", "undo_edit"]

#: Defaults of the tool's params.
DEFAULT_MAX_FILE_SIZE = 64 * 1024 * 1024
DEFAULT_MAX_VIEW_CHARS = 16_000
DEFAULT_UNDO_DEPTH = 10
DEFAULT_MAX_IMAGE_SIZE = 5 * 1024 * 1024


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


# Typed with the base Observation: failed calls return plain error observations.
class FileEditorTool(ToolDefinition[FileEditorAction, Observation]):
    """The stateful ``file_editor`` tool: each created instance has its own undo history."""

    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
        allow_outside_workspace: bool = False,
        max_view_chars: int = DEFAULT_MAX_VIEW_CHARS,
        undo_depth: int = DEFAULT_UNDO_DEPTH,
        max_image_size: int = DEFAULT_MAX_IMAGE_SIZE,
    ) -> Sequence[FileEditorTool]:
        """Build the editor for one session, working in ``context.workspace``.

        ``max_file_size``: the largest file (bytes) that may be edited; viewing ranges
        of bigger files still works. ``allow_outside_workspace``: let paths leave the
        workspace. ``max_view_chars``: how much text one call returns.
        ``undo_depth``: undo steps kept per file. ``max_image_size``: the largest
        image (bytes) that ``view`` returns.
        """
        from toolplug_file_editor.impl import FileEditorExecutor, Settings

        settings = Settings(
            max_file_size=_positive("max_file_size", max_file_size),
            allow_outside_workspace=_flag("allow_outside_workspace", allow_outside_workspace),
            max_view_chars=_positive("max_view_chars", max_view_chars, least=200),
            undo_depth=_positive("undo_depth", undo_depth),
            max_image_size=_positive("max_image_size", max_image_size),
        )
        executor = FileEditorExecutor(context.workspace, settings)
        tool = cls(
            name="file_editor",
            description=describe(str(context.workspace), settings.undo_depth),
            action_type=FileEditorAction,
            observation_type=FileEditorObservation,
            executor=executor,
            annotations=ToolAnnotations(
                title="File editor",
                readOnlyHint=False,
                destructiveHint=True,
                idempotentHint=False,
                openWorldHint=False,
            ),
        )
        return [tool]


def _positive(name: str, value: object, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be an integer of at least {least}, got {value!r}")
    return value


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value
