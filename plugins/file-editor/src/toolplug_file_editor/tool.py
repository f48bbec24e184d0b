"""The ``file_editor`` tool itself: :class:`FileEditorTool`, whose ``create`` takes the params."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import Field
from toolplug import Observation, ToolAnnotations, ToolContext, ToolDefinition

from toolplug_file_editor.anthropic_form import TextEditorForm
from toolplug_file_editor.executor import FileEditorExecutor, Settings
from toolplug_file_editor.session import shared_for
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
        max_file_size: Annotated[
            int,
            Field(
                ge=1,
                description="The largest file (bytes) that may be edited; viewing ranges "
                "of bigger files still works.",
            ),
        ] = DEFAULT_MAX_FILE_SIZE,
        allow_outside_workspace: Annotated[
            bool, Field(description="Let paths leave the workspace.")
        ] = False,
        max_view_chars: Annotated[
            int, Field(ge=200, description="How much text one call returns.")
        ] = DEFAULT_MAX_VIEW_CHARS,
        undo_depth: Annotated[
            int, Field(ge=1, description="Undo steps kept per file.")
        ] = DEFAULT_UNDO_DEPTH,
        max_image_size: Annotated[
            int, Field(ge=1, description="The largest image (bytes) that view returns.")
        ] = DEFAULT_MAX_IMAGE_SIZE,
    ) -> Sequence[FileEditorTool]:
        """Build the editor for one session, working in ``context.workspace``.

        Each param is described in its annotation (``toolplug tools --params`` lists
        them); the registry has checked their types and ranges before this runs.
        """
        settings = Settings(
            max_file_size=max_file_size,
            allow_outside_workspace=allow_outside_workspace,
            max_view_chars=max_view_chars,
            undo_depth=undo_depth,
            max_image_size=max_image_size,
        )
        shared = shared_for(context, settings.undo_depth)
        executor = FileEditorExecutor(context.workspace, settings, shared)
        tool = cls(
            name="file_editor",
            description=describe(settings.undo_depth, outside=allow_outside_workspace),
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
            # Claude's own editor shape, for Toolset.export("anthropic", native=True).
            native_forms={"anthropic": TextEditorForm(settings.max_view_chars)},
        )
        return [tool]
