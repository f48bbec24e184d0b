"""``apply_patch`` in the OpenAI Responses API's own shapes (see ``toolplug.formats.forms``).

Two forms, one per kind of model:

- :class:`ApplyPatchForm` declares the typed ``{"type": "apply_patch"}`` tool (GPT-5.1
  and later). Each call is an ``apply_patch_call`` item with one operation on one
  file: ``create_file`` (a V4A diff of ``+`` lines), ``update_file`` (the V4A body of
  one file's section: ``@@`` hunks) or ``delete_file``. The operation becomes the
  one-section patch the tool applies, so it runs with the tool's guarantees and policy
  sees its path; the answer is an ``apply_patch_call_output`` item, ``completed`` or
  ``failed`` with the tool's text.
- :class:`GrammarApplyPatchForm` declares a ``custom`` tool whose input is the whole
  Codex patch envelope, held to a Lark grammar (the freeform tool GPT-5 models were
  trained on before the typed tool existed). Its calls are ``custom_tool_call`` items,
  answered with ``custom_tool_call_output``.

A tool holds one form per format, so :class:`~toolplug_file_editor.ApplyPatchTool`
takes a ``responses_form`` param to choose between them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from toolplug import ArgumentError, Observation, ToolCall
from toolplug.formats import NativeForm, ToolFormat
from toolplug.formats.base import validate_sdk_type

from toolplug_file_editor.errors import EditorError
from toolplug_file_editor.patch_parse import (
    ADD,
    BEGIN,
    DELETE,
    END,
    UPDATE,
    AddFile,
    DeleteFile,
    UpdateFile,
    parse,
)
from toolplug_file_editor.patch_types import DESCRIPTION

_INPUT_ITEMS = "openai.types.responses.response_input_item_param"

#: Each native operation, the patch header it becomes and the parsed operation it must be.
_OPERATIONS: dict[str, tuple[str, type[Any]]] = {
    "create_file": (ADD, AddFile),
    "update_file": (UPDATE, UpdateFile),
    "delete_file": (DELETE, DeleteFile),
}

# Lines of the patch the section's header and the Begin marker take before the diff.
_DIFF_OFFSET = 2
_PATCH_LINE = re.compile(r"^Invalid patch, line (\d+): ")
_HUNK_LINE = re.compile(r"\(patch line (\d+)\)")


def _call_text(observation: Observation) -> str:
    """The observation's text for an output item's ``output`` string (never empty)."""
    return observation.text or ("The patch failed." if observation.is_error else "Done.")


class ApplyPatchForm(NativeForm):
    """``apply_patch`` as the Responses API's typed ``{"type": "apply_patch"}`` tool."""

    def __init__(self) -> None:
        super().__init__(
            "responses",
            {"type": "apply_patch"},
            call_name="apply_patch",
            sdk_type=("openai.types.responses", "ApplyPatchToolParam", "openai"),
        )

    def read_call(self, item: dict[str, Any], index: int) -> ToolCall | None:
        """An ``apply_patch_call`` item as a call whose input is its ``operation``."""
        if item.get("type") != "apply_patch_call":
            return None
        return ToolCall(item["call_id"], self.call_name, {"operation": item["operation"]})

    def arguments(self, data: dict[str, Any]) -> dict[str, Any]:
        """The operation as a one-section patch: ``{"input": "*** Begin Patch ..."}``."""
        return {"input": operation_patch(data.get("operation"))}

    def render_result(self, call: ToolCall, observation: Observation, fmt: ToolFormat) -> Any:
        """An ``apply_patch_call_output`` item: ``failed`` for an error observation.

        The tool counts a hunk's place in the patch built from the operation; the model
        wrote only the diff, so the message counts in the diff instead."""
        text = _call_text(observation)
        if observation.is_error:
            text = _HUNK_LINE.sub(lambda m: f"(diff line {int(m[1]) - _DIFF_OFFSET})", text)
        return {
            "type": "apply_patch_call_output",
            "call_id": call.id,
            "status": "failed" if observation.is_error else "completed",
            "output": text,
        }

    def check_result(self, result: Any, observation: Observation, fmt: ToolFormat) -> None:
        """Validate against the SDK's ``ApplyPatchCallOutput`` input item."""
        validate_sdk_type(result, _INPUT_ITEMS, "ApplyPatchCallOutput", "openai", fmt.title)


def operation_patch(operation: Any) -> str:
    """The Codex patch applying one native ``operation`` (a decoded JSON object).

    Raises :class:`~toolplug.ArgumentError` naming what to fix when the operation is
    not one the contract allows: an unknown type, a missing or multi-line path, a diff
    that does not read as one section of that kind on that path (a diff that smuggles
    in a second file's header is refused, not applied). Diff lines in messages are
    counted from 1 in the operation's own ``diff``.
    """
    if not isinstance(operation, dict):
        raise ArgumentError(
            "the call needs an `operation` object (create_file, update_file or delete_file)"
        )
    kind = operation.get("type")
    if kind not in _OPERATIONS:
        raise ArgumentError(
            f"operation type must be create_file, update_file or delete_file; got {kind!r}"
        )
    header, expected = _OPERATIONS[kind]
    path = operation.get("path")
    if not isinstance(path, str) or not path.strip():
        raise ArgumentError(f"{kind} needs a `path`, the file's path in the workspace")
    if "\n" in path or "\r" in path:
        raise ArgumentError(f"{kind}: the path must be one line; got {path!r}")
    lines = [BEGIN, f"{header} {path}"]
    if kind != "delete_file":
        diff = operation.get("diff")
        if not isinstance(diff, str):
            raise ArgumentError(f"{kind} of {path} needs a `diff` string")
        lines.extend(diff.removesuffix("\n").split("\n") if diff else [])
    lines.append(END)
    patch = "\n".join(lines) + "\n"
    try:
        parsed = parse(patch)
    except EditorError as exc:
        raise ArgumentError(_diff_error(kind, path, str(exc))) from None
    [first, *rest] = parsed
    if rest or not isinstance(first, expected) or first.path != path.strip():
        raise ArgumentError(
            f"the diff of {kind} {path} holds more than that file's changes (a line starting "
            "with `***` begins another file's section); send each file in its own operation"
        )
    if isinstance(first, UpdateFile) and first.move_to is not None:
        raise ArgumentError(
            f"update_file cannot move {path}: create_file the new path with the whole "
            "content, then delete_file the old one"
        )
    return patch


def _diff_error(kind: str, path: str, message: str) -> str:
    """A parse error of the built patch, its line counted in the operation's diff."""
    found = _PATCH_LINE.match(message)
    if found is None:
        return f"{kind} of {path}: {message}"
    line = int(found.group(1)) - _DIFF_OFFSET
    rest = message[found.end() :]
    where = f"diff line {line}" if line >= 1 else "the operation"
    return f"{kind} of {path}, invalid {where}: {rest}"


#: The Codex patch envelope as a Lark grammar, for the freeform tool: the model's whole
#: input is held to it while it writes. It is the canonical form (an ``@@`` line opens
#: every hunk, no padded markers); the tool reads that and the looser forms Codex
#: accepts, so a patch the grammar lets through is never refused for its shape.
PATCH_GRAMMAR = r"""
start: "*** Begin Patch" LF section+ "*** End Patch" LF?
section: added | deleted | updated
added: "*** Add File: " PATH LF ("+" TEXT? LF)*
deleted: "*** Delete File: " PATH LF
updated: "*** Update File: " PATH LF (moved hunk* | hunk+)
moved: "*** Move to: " PATH LF
hunk: "@@" (" " TEXT)? LF hunk_line+ ("*** End of File" LF)?
hunk_line: (" " | "-" | "+") TEXT? LF

PATH: /[^\n]+/
TEXT: /[^\n]+/
%import common.LF
""".strip()


class GrammarApplyPatchForm(NativeForm):
    """``apply_patch`` as a Responses ``custom`` tool held to :data:`PATCH_GRAMMAR`."""

    def __init__(self) -> None:
        super().__init__(
            "responses",
            {
                "type": "custom",
                "name": "apply_patch",
                "description": DESCRIPTION,
                "format": {"type": "grammar", "syntax": "lark", "definition": PATCH_GRAMMAR},
            },
            sdk_type=("openai.types.responses", "CustomToolParam", "openai"),
        )

    def read_call(self, item: dict[str, Any], index: int) -> ToolCall | None:
        """A ``custom_tool_call`` item of this tool's name: its ``input`` is the patch."""
        if item.get("type") != "custom_tool_call" or item.get("name") != self.call_name:
            return None
        return ToolCall(item["call_id"], self.call_name, {"input": item["input"]})

    def render_result(self, call: ToolCall, observation: Observation, fmt: ToolFormat) -> Any:
        """A ``custom_tool_call_output`` item with the tool's text (errors say so)."""
        return {
            "type": "custom_tool_call_output",
            "call_id": call.id,
            "output": _call_text(observation),
        }

    def check_result(self, result: Any, observation: Observation, fmt: ToolFormat) -> None:
        """Validate against the SDK's ``ResponseCustomToolCallOutputParam``."""
        module = "openai.types.responses.response_custom_tool_call_output_param"
        validate_sdk_type(result, module, "ResponseCustomToolCallOutputParam", "openai", fmt.title)


#: The forms by the name the tool's ``responses_form`` param gives them.
FORMS: dict[str, Callable[[], NativeForm]] = {
    "apply_patch": ApplyPatchForm,
    "grammar": GrammarApplyPatchForm,
}
