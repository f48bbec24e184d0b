"""The ``file_editor`` tool itself: :class:`FileEditorTool`, whose ``create`` checks the params."""

from __future__ import annotations

from collections.abc import Sequence

from toolplug import Observation, ToolAnnotations, ToolContext, ToolDefinition

from toolplug_file_editor.executor import FileEditorExecutor, Settings
from toolplug_file_editor.types import FileEditorAction, FileEditorObservation, describe

#: Defaults of the tool's params.
DEFAULT_MAX_FILE_SIZE = 64 * 1024 * 1024
DEFAULT_MAX_VIEW_CHARS = 16_000
DEFAULT_UNDO_DEPTH = 10
DEFAULT_MAX_IMAGE_SIZE = 5 * 1024 * 1024


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
