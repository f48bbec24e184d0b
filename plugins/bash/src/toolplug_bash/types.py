"""The bash tool's types: :class:`BashAction`, :class:`BashObservation` and the description."""

from __future__ import annotations

import inspect
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
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
    process_id: int | None = Field(
        default=None, description="The background process's id, when the call started one."
    )


def _bash_action_description(schema: dict[str, Any]) -> None:
    schema["description"] = inspect.cleandoc(BashAction.__doc__ or "")


class BackgroundBashAction(BashAction):
    """A bash action that can also start, and type to, background processes."""

    # The schema keeps BashAction's description: the model sees one bash tool.
    model_config = ConfigDict(json_schema_extra=_bash_action_description)

    run_in_background: bool = Field(
        default=False,
        description=(
            "Start the command as a background process: the call returns its process_id "
            "and first output (within `timeout`, default 1 s). Read it with bash_output."
        ),
    )
    process_id: int | None = Field(
        default=None,
        description="With is_input=true: send `command` to this background process.",
    )


OUTPUT_DESCRIPTION = """\
New output of a background process (bash run_in_background) since the last read, its \
state and exit code; without process_id, a list of them all.\
"""

STOP_DESCRIPTION = """\
Stop a background process and all it started (SIGTERM, then SIGKILL after 3 s); \
returns its last output.\
"""


class BashOutputAction(Action):
    """The background process to read, and how long to wait."""

    process_id: int | None = Field(default=None, description="Omit to list the processes.")
    wait_for: str | None = Field(
        default=None,
        description="A regular expression: wait until the new output matches it.",
    )
    timeout: float | None = Field(
        default=None,
        ge=0,
        le=3600,
        description="Seconds to wait for its end or a wait_for match (default 0, or 30 "
        "with wait_for).",
    )


class BashStopAction(Action):
    """The background process to stop."""

    process_id: int = Field(description="The process to stop.")


ProcessState = Literal["running", "exited", "stopped"]


class ProcessInfo(BaseModel):
    """One background process, as a listing shows it."""

    process_id: int
    command: str
    state: ProcessState
    exit_code: int | None = Field(description="Its exit status; negative: killed by that signal.")
    runtime: float = Field(description="Seconds it ran (so far).")


class ProcessObservation(Observation):
    """A background process's new output and state, or (no process_id) the listing."""

    process_id: int | None = None
    state: ProcessState | None = None
    exit_code: int | None = None
    output: str = Field(default="", description="New output since the last read.")
    left_out: int = Field(default=0, description="Bytes of the new output not shown.")
    full_output_path: str | None = Field(
        default=None, description="File with the process's whole output, once it is long."
    )
    matched: bool | None = Field(default=None, description="Whether wait_for matched.")
    processes: list[ProcessInfo] = Field(default_factory=list)
