"""bash's native form for Anthropic Messages: ``bash_20250124`` (see
:mod:`toolplug.formats.forms`).

Claude models are trained on Anthropic's bash tool, declared by type, whose input is
``command`` (what to run in the persistent session) or ``restart: true`` (a fresh
session). That is this tool's ``command`` and ``reset``: the form renames one field and
hands the call to the tool, so a native call runs as any other (policy, hooks, the
sandbox, the output cap), and its result is the tool's own text.
"""

from __future__ import annotations

from typing import Any

from toolplug import ArgumentError
from toolplug.formats import NativeForm


class BashForm(NativeForm):
    """``bash`` as Anthropic's ``bash_20250124``, called ``bash``."""

    def __init__(self) -> None:
        super().__init__(
            "anthropic",
            {"type": "bash_20250124", "name": "bash"},
            sdk_type=("anthropic.types", "ToolBash20250124Param", "anthropic"),
        )

    def arguments(self, data: dict[str, Any]) -> dict[str, Any]:
        arguments = dict(data)
        restart = arguments.pop("restart", False)
        if not isinstance(restart, bool):
            raise ArgumentError(f"`restart` must be true or false, not {restart!r}.")
        command = arguments.get("command")
        if restart:
            # A fresh shell in the workspace; a command sent with it runs there.
            return {**arguments, "command": command or "", "reset": True}
        if command is None:
            raise ArgumentError(
                "Send `command`, the command to run in the bash session, or "
                "`restart: true` to start a fresh session."
            )
        return arguments
