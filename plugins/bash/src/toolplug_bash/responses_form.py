"""bash in the OpenAI Responses API's own shape: the native ``shell`` tool.

``Toolset.export("responses", native=True)`` declares bash as ``{"type": "shell",
"environment": {"type": "local"}}``: the commands run here, in the tool's session. The
model's calls come as ``shell_call`` items (``action.commands``, ``timeout_ms``,
``max_output_length``) and are answered with a ``shell_call_output`` item.

How the contract maps onto the session (docs/tools/bash.md says it for people):

- The commands run in order as one script in the persistent session, joined by
  newlines: one call of the tool, so a call guard (toolplug-policy) judges exactly
  the text that runs. Running them as separate calls would let a guard read the
  joined text one way (a heredoc spanning two commands) while the shell runs it
  another.
- So the answer is one output entry for the whole call: the terminal's text (stdout
  and stderr together, as the session's terminal shows them) in ``stdout``, the
  tool's notes and errors in ``stderr``, and the outcome: ``exit`` with the last
  command's status, or ``timeout``.
- ``timeout_ms`` is the call's timeout (without it, the tool's own). A command still
  running when it comes, or waiting for terminal input (a shell call cannot type),
  is interrupted with ``C-c`` (the session is reset if that does not stop it), so
  the next call finds the shell at its prompt.
- ``max_output_length`` caps the characters of ``stdout`` and ``stderr`` together
  (the start and the end are kept), and is passed back on the output item.
"""

from __future__ import annotations

from typing import Any

from toolplug import ArgumentError, Observation, ToolCall
from toolplug.formats import NativeForm, ToolFormat
from toolplug.formats.base import validate_sdk_type

from toolplug_bash.executor import BashExecutor
from toolplug_bash.types import BashAction, BashObservation

#: The longest timeout_ms taken: the bash tool's own limit on a call's wait (an hour).
MAX_TIMEOUT_MS = 3_600_000
#: The seconds an interrupt (C-c) is given to bring the shell back to its prompt.
_INTERRUPT_WAIT = 5.0


class ShellForm(NativeForm):
    """bash as the Responses ``shell`` tool (see the module's docstring).

    ``executor`` is the bash tool's own, to interrupt a command left running when a
    call ends (the contract has no way to type to it later); without one (checks of
    the shapes alone) nothing is interrupted.
    """

    def __init__(self, executor: BashExecutor | None = None) -> None:
        super().__init__(
            "responses",
            {"type": "shell", "environment": {"type": "local"}},
            call_name="shell",
            sdk_type=("openai.types.responses", "FunctionShellToolParam", "openai"),
        )
        self.executor = executor

    def read_call(self, item: dict[str, Any], index: int) -> ToolCall | None:
        """A ``shell_call`` item as a call whose input is its ``action``."""
        if item.get("type") != "shell_call":
            return None
        return ToolCall(item["call_id"], self.call_name, {"action": item["action"]})

    def arguments(self, data: dict[str, Any]) -> dict[str, Any]:
        """The bash tool's arguments: the commands as one script, the timeout in seconds."""
        action = data.get("action")
        if not isinstance(action, dict):
            raise ArgumentError("a shell call needs an `action` object with `commands`")
        commands = action.get("commands")
        if (
            not isinstance(commands, list)
            or not commands
            or not all(isinstance(c, str) and c.strip() for c in commands)
        ):
            raise ArgumentError("`commands` must be a list of shell commands, none of them empty")
        arguments: dict[str, Any] = {"command": "\n".join(commands)}
        timeout_ms = action.get("timeout_ms")
        if timeout_ms is not None:
            if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 1:
                raise ArgumentError(
                    f"`timeout_ms` must be a whole number above 0; got {timeout_ms!r}"
                )
            if timeout_ms > MAX_TIMEOUT_MS:
                raise ArgumentError(
                    f"`timeout_ms` is at most {MAX_TIMEOUT_MS} (an hour); got {timeout_ms}"
                )
            arguments["timeout"] = timeout_ms / 1000
        elif self.executor is not None:
            # The tool's own timeout, for silence too: a quiet command is no timeout here.
            arguments["timeout"] = min(self.executor.config.timeout, MAX_TIMEOUT_MS / 1000)
        _max_length(action)  # checked now: refused before anything runs
        return arguments

    def render_result(self, call: ToolCall, observation: Observation, fmt: ToolFormat) -> Any:
        """A ``shell_call_output`` item; a command left running is interrupted first."""
        limit = _limit_of(call)
        entry = self._entry(observation)
        item: dict[str, Any] = {
            "type": "shell_call_output",
            "call_id": call.id,
            "output": [_capped(entry, limit)],
        }
        if limit is not None:
            item["max_output_length"] = limit
        return item

    def check_result(self, result: Any, observation: Observation, fmt: ToolFormat) -> None:
        """Validate against the SDK's ``ShellCallOutput`` input item."""
        module = "openai.types.responses.response_input_item_param"
        validate_sdk_type(result, module, "ShellCallOutput", "openai", fmt.title)

    # -- the output entry ----------------------------------------------------------------

    def _entry(self, observation: Observation) -> dict[str, Any]:
        """What the call printed, its notes and its outcome, as one output entry."""
        if not isinstance(observation, BashObservation):
            # Refused by a guard, bad arguments, a session that failed: nothing ran.
            return _entry("", observation.text, exit_code=1 if observation.is_error else 0)
        output = "" if observation.output == "(no output)" else observation.output
        notes = _notes(observation)
        if not observation.running:
            code = observation.exit_code
            if code is None:  # the shell died (a signal): a failure the model must see
                code = 1
            return _entry(output, notes, exit_code=code)
        waiting = observation.waiting_for_input
        more, stopped = self._interrupt()
        output += more
        if waiting:
            why = (
                "The command waited for input, which a shell call cannot give, so it was "
                "interrupted. Pipe the input in, use a here-document, or the command's "
                "non-interactive option."
            )
        else:
            why = "The command ran past the timeout, so it was interrupted."
        if stopped == "reset":
            why += " It did not stop, so the session was reset: a fresh shell in the workspace."
        elif stopped == "failed":
            why += " It could not be stopped: the next call may find it still running."
        notes = "\n".join(n for n in (notes, why) if n)
        if waiting:
            return _entry(output, notes, exit_code=130)
        return _entry(output, notes, timeout=True)

    def _interrupt(self) -> tuple[str, str]:
        """Stop the command still running: its last output, and how (``C-c``, ``reset``,
        ``failed``). This runs as the tool's own clean-up, outside the call's hooks: the
        contract's timeout ends the command, as the tool's hard_timeout would."""
        executor = self.executor
        if executor is None:
            return "", "none"
        after = executor(BashAction(command="C-c", is_input=True, timeout=_INTERRUPT_WAIT))
        if isinstance(after, BashObservation) and not after.running:
            return _printed(after.output), "C-c"
        reset = executor(BashAction(command="", reset=True))
        return "", "reset" if isinstance(reset, BashObservation) else "failed"


def _entry(
    stdout: str, stderr: str, *, exit_code: int = 0, timeout: bool = False
) -> dict[str, Any]:
    outcome = {"type": "timeout"} if timeout else {"type": "exit", "exit_code": exit_code}
    return {"stdout": stdout, "stderr": stderr, "outcome": outcome}


def _printed(text: str) -> str:
    return "" if text == "(no output)" else text


def _notes(observation: BashObservation) -> str:
    """The tool's notes around the output in its text (where the whole output was
    saved when it was cut, a shell that exited, a fresh session), without the output
    itself and the status line, which the entry's fields carry."""
    text, shown = observation.text, observation.output.rstrip("\n")
    at = text.find(shown) if shown else -1
    rest = text if at < 0 else text[:at] + text[at + len(shown) :]
    status = ("[Exit code ", "[The command is still running")
    lines = rest.splitlines()
    return "\n".join(
        x for x in lines if x.strip() and x != "(no output)" and not x.startswith(status)
    )


def _limit_of(call: ToolCall) -> int | None:
    """The call's max_output_length; none when it has none or it is not valid (such a
    call was answered with the error, and is rendered all the same)."""
    arguments = call.arguments
    if not isinstance(arguments, dict) or not isinstance(arguments.get("action"), dict):
        return None
    try:
        return _max_length(arguments["action"])
    except ArgumentError:
        return None


def _max_length(action: dict[str, Any]) -> int | None:
    value = action.get("max_output_length")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ArgumentError(f"`max_output_length` must be a whole number, 0 or more; got {value!r}")
    return value


def _capped(entry: dict[str, Any], limit: int | None) -> dict[str, Any]:
    """``entry`` with stdout and stderr together at most ``limit`` characters: stderr
    (the notes, short) is kept first, stdout keeps its start and end."""
    if limit is None:
        return entry
    stderr = entry["stderr"][:limit]
    entry = {**entry, "stderr": stderr, "stdout": _middle_cut(entry["stdout"], limit - len(stderr))}
    return entry


def _middle_cut(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: its start and end around a marker."""
    if len(text) <= limit:
        return text
    marker = f"\n[... {len(text) - limit} characters left out ...]\n"
    if limit <= len(marker) + 2:
        return text[:limit]
    room = limit - len(marker)
    marker = f"\n[... {len(text) - room} characters left out ...]\n"
    room = limit - len(marker)
    head = room // 2
    return text[:head] + marker + text[len(text) - (room - head) :]
