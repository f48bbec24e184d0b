"""The ``apply_patch`` tool itself: :class:`ApplyPatchTool`, whose ``create`` takes the params."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field
from toolplug import Observation, ToolAnnotations, ToolContext, ToolDefinition

from toolplug_file_editor.patch_executor import ApplyPatchExecutor, PatchSettings
from toolplug_file_editor.patch_forms import FORMS
from toolplug_file_editor.patch_types import (
    DESCRIPTION,
    ApplyPatchAction,
    ApplyPatchObservation,
)
from toolplug_file_editor.session import shared_for
from toolplug_file_editor.tool import DEFAULT_MAX_FILE_SIZE, DEFAULT_UNDO_DEPTH


# Typed with the base Observation: failed calls return plain error observations.
class ApplyPatchTool(ToolDefinition[ApplyPatchAction, Observation]):
    """The ``apply_patch`` tool; it shares its session's undo history with ``file_editor``."""

    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        max_file_size: Annotated[
            int, Field(ge=1, description="The largest file (bytes) a patch may change.")
        ] = DEFAULT_MAX_FILE_SIZE,
        allow_outside_workspace: Annotated[
            bool, Field(description="Let paths leave the workspace.")
        ] = False,
        undo_depth: Annotated[
            int,
            Field(
                ge=1,
                description="Undo steps kept per file, when this tool is the session's "
                "first editor (the history is shared with file_editor).",
            ),
        ] = DEFAULT_UNDO_DEPTH,
        responses_form: Annotated[
            Literal["apply_patch", "grammar"],
            Field(
                description="The OpenAI Responses native form (export native=True): the "
                "typed apply_patch tool (GPT-5.1 and later), or a custom tool held to a "
                "Lark grammar of the patch (GPT-5)."
            ),
        ] = "apply_patch",
    ) -> Sequence[ApplyPatchTool]:
        """Build the tool for one session, working in ``context.workspace``."""
        settings = PatchSettings(max_file_size, allow_outside_workspace)
        executor = ApplyPatchExecutor(context.workspace, settings, shared_for(context, undo_depth))
        tool = cls(
            name="apply_patch",
            description=DESCRIPTION,
            action_type=ApplyPatchAction,
            observation_type=ApplyPatchObservation,
            executor=executor,
            annotations=ToolAnnotations(
                title="Apply patch",
                readOnlyHint=False,
                destructiveHint=True,
                idempotentHint=False,
                openWorldHint=False,
            ),
            native_forms={"responses": FORMS[responses_form]()},
        )
        return [tool]
