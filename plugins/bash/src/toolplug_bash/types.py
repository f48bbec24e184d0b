"""The bash tool's types: :class:`BashAction`, :class:`BashObservation` and the description."""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation

DESCRIPTION = """\
Run a command in a persistent bash session; stdout and stderr come back together. The \
working directory, variables, functions, aliases and an activated virtualenv persist \
between calls.

- `cmd &` runs in the background and returns at once (send its output to a file).
- A command still running at the timeout, or after a long silence, keeps running: you \
get its output so far, and a note when it waits for input. Go on with is_input.
- Long output is cut to its start and end, and the full text saved to a file whose \
path is given. Prefer commands that print little (grep, head, tail, wc)."""


class BashAction(Action):
    """A command for the session, or input for the command that is running."""

    command: str = Field(
        description=(
            "The command or multi-line script. With is_input: text to type, followed by "
            "Enter; empty just waits for more output; 'C-c', 'C-d' and 'C-z' send those keys."
        )
    )
    is_input: bool = Field(
        default=False,
        description="Send `command` to the running command instead of starting a new one.",
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=3600,
        description=(
            "Seconds before control returns to you (the command keeps running); a silent "
            "command is then waited for as long."
        ),
    )
    reset: bool = Field(
        default=False,
        description=(
            "Kill the session and all its processes and start a fresh shell in the "
            "workspace, where `command`, if any, then runs."
        ),
    )


class BashObservation(Observation):
    """What a call saw: output, exit code, working directory, and the command's state."""

    output: str = Field(description="The output shown (cut to its start and end if long).")
    exit_code: int | None = Field(
        default=None, description="The command's exit status; null while it still runs."
    )
    cwd: str = Field(description="The session's working directory after the call.")
    running: bool = Field(default=False, description="True when the command is still running.")
    waiting_for_input: bool = Field(
        default=False, description="True when the running command waits on the terminal."
    )
    full_output_path: str | None = Field(
        default=None, description="File holding the full output, when it was cut."
    )
