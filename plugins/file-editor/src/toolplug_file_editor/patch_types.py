"""The ``apply_patch`` tool's types: its action, its observation, and its description."""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation

#: What the model reads: the format in brief (models of the GPT-5 family know it well).
DESCRIPTION = """\
Edit files with a patch:
*** Begin Patch
*** Add File: new.py
+each line of the new file, after +
*** Delete File: old.py
*** Update File: app.py
*** Move to: main.py
@@ def greet():
 context line, unchanged
-removed line
+added line
*** End Patch
`*** Move to:` (a rename) and the text after `@@` (a line to find first) are optional. \
Use one @@ hunk per change, in file order, with about 3 context lines; end a hunk with \
`*** End of File` when its lines end the file. Paths are relative to the workspace. \
The whole patch is applied or none of it."""


class ApplyPatchAction(Action):
    """One patch to apply."""

    input: str = Field(description="The whole patch, from `*** Begin Patch` to `*** End Patch`.")

    def touched_paths(self) -> tuple[str, ...]:
        """Every file the patch names (a move's both ends), so that a guard deciding by
        path (toolplug-policy) sees each; none for a patch that cannot be read, which
        the tool refuses anyway."""
        from toolplug_file_editor.errors import EditorError
        from toolplug_file_editor.patch_parse import UpdateFile, parse

        try:
            operations = parse(self.input)
        except EditorError:
            return ()
        paths: list[str] = []
        for operation in operations:
            paths.append(operation.path)
            if isinstance(operation, UpdateFile) and operation.move_to is not None:
                paths.append(operation.move_to)
        return tuple(paths)


class ApplyPatchObservation(Observation):
    """The files a patch changed, by what happened to them (paths relative to the workspace)."""

    added: list[str] = Field(default_factory=list, description="Files the patch created.")
    updated: list[str] = Field(default_factory=list, description="Files changed in place.")
    deleted: list[str] = Field(default_factory=list, description="Files removed.")
    moved: dict[str, str] = Field(
        default_factory=dict, description="Files moved, old path to new path."
    )
