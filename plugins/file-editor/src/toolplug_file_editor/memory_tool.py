"""The ``memory`` tool: :class:`MemoryTool`, whose ``create`` takes the folder.

A model's memory between conversations: files under one folder the host names, which
the model knows as ``/memories``. Declared as Anthropic's ``memory_20250818`` with
``Toolset.export("anthropic", native=True)``, and as a function tool everywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from pydantic import Field
from toolplug import Observation, ToolAnnotations, ToolContext, ToolDefinition

from toolplug_file_editor.anthropic_form import MemoryForm
from toolplug_file_editor.executor import Settings
from toolplug_file_editor.memory_executor import MemoryExecutor
from toolplug_file_editor.memory_types import DESCRIPTION, MemoryAction
from toolplug_file_editor.tool import (
    DEFAULT_MAX_FILE_SIZE,
    DEFAULT_MAX_IMAGE_SIZE,
    DEFAULT_MAX_VIEW_CHARS,
)
from toolplug_file_editor.types import FileEditorObservation

#: Where the memories are kept unless the host says: this folder of the workspace.
DEFAULT_FOLDER = "memories"


class MemoryTool(ToolDefinition[MemoryAction, Observation]):
    """The stateful ``memory`` tool: one memory folder per created instance."""

    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        folder: Annotated[
            str,
            Field(
                min_length=1,
                description="The folder that holds the memories (the model's /memories): "
                "absolute, ~/..., or relative to the workspace. Made on first use.",
            ),
        ] = DEFAULT_FOLDER,
        max_file_size: Annotated[
            int, Field(ge=1, description="The largest memory file (bytes) that may be edited.")
        ] = DEFAULT_MAX_FILE_SIZE,
        max_view_chars: Annotated[
            int, Field(ge=200, description="How much text one call returns.")
        ] = DEFAULT_MAX_VIEW_CHARS,
    ) -> Sequence[MemoryTool]:
        """Build the memory tool for one session, keeping its files in ``folder``."""
        place = Path(folder).expanduser()
        if not place.is_absolute():
            place = Path(context.workspace) / place
        settings = Settings(
            max_file_size=max_file_size,
            allow_outside_workspace=False,
            max_view_chars=max_view_chars,
            undo_depth=1,
            max_image_size=DEFAULT_MAX_IMAGE_SIZE,
        )
        tool = cls(
            name="memory",
            description=DESCRIPTION,
            action_type=MemoryAction,
            observation_type=FileEditorObservation,
            executor=MemoryExecutor(place, settings),
            annotations=ToolAnnotations(
                title="Memory",
                readOnlyHint=False,
                destructiveHint=True,
                idempotentHint=False,
                openWorldHint=False,
            ),
            # Claude's own memory tool, for Toolset.export("anthropic", native=True).
            native_forms={"anthropic": MemoryForm()},
        )
        return [tool]
