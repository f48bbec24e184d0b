"""The bash tool's types: :class:`BashAction`, :class:`BashObservation` and the description."""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation

DESCRIPTION = """\
Run a command in a persistent bash session (stdout and stderr together, as a terminal \
shows them). The working directory, exported variables, functions, aliases and an \
activated virtualenv carry over from call to call.

- Chain commands with && or ;, write multi-line scripts and heredocs; `cmd &` runs in \
the background and returns at once (send its output to a file to read it later).
- A command still running when the timeout (or a long silence) comes keeps running: \
you get its output so far. Then call again with is_input=true and an empty command to \
wait, text to answer a prompt, or "C-c" to interrupt it.
- A command waiting for input (a prompt, `cat`, `read`) is reported: answer it with \
is_input=true (the text is typed followed by Enter); "C-d" sends end-of-file.
- Long output is cut to its start and end; the full text is saved to a file whose path \
is given. Prefer commands that print little (grep, head, tail, wc).
- reset=true ends the session and every process in it and starts a fresh one.\
"""


class BashAction(Action):
    """A command for the session, or input for the command that is running."""

    command: str = Field(
        description=(
            "The bash command to run (one line or a multi-line script). With "
            "is_input=true: the text to type to the running command, followed by Enter; "
            "an empty string just waits for more output; 'C-c', 'C-d' and 'C-z' send "
            "those keys."
        )
    )
    is_input: bool = Field(
        default=False,
        description=(
            "Send `command` to the command that is still running instead of starting a new one."
        ),
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=3600,
        description=(
            "Seconds to wait for this call before control returns to you (the command "
            "keeps running). When set, a silent command is waited for just as long."
        ),
    )
    reset: bool = Field(
        default=False,
        description=(
            "Kill the session and every process it started, and start a fresh shell in "
            "the workspace; `command` (if any) then runs in the fresh shell."
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
