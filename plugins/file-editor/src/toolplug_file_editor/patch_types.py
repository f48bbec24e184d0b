"""The ``apply_patch`` tool's types: its action, its observation, and its description."""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation

#: What the model reads: the format in brief (models of the GPT-5 family know it well).
DESCRIPTION = """\
Edit files with a patch. Format:
*** Begin Patch
*** Add File: PATH
+each line of the new file
*** Delete File: PATH
*** Update File: PATH
*** Move to: NEW_PATH (optional)
@@ optional line to find first, such as a def or class
 context line
-removed line
+added line
*** End Patch
Use several @@ hunks per file, in file order, with about 3 context lines around each \
change; end a hunk with `*** End of File` when its lines end the file. Paths are \
relative to the workspace. The whole patch is applied or none of it."""


class ApplyPatchAction(Action):
    """One patch to apply."""

    input: str = Field(description="The whole patch, from `*** Begin Patch` to `*** End Patch`.")


class ApplyPatchObservation(Observation):
    """The files a patch changed, by what happened to them (paths relative to the workspace)."""

    added: list[str] = Field(default_factory=list, description="Files the patch created.")
    updated: list[str] = Field(default_factory=list, description="Files changed in place.")
    deleted: list[str] = Field(default_factory=list, description="Files removed.")
    moved: dict[str, str] = Field(
        default_factory=dict, description="Files moved, old path to new path."
    )
