"""The bash executor: one session, one call at a time, and what the model is told."""

from __future__ import annotations

import math
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from toolplug import Observation, TextContent, ToolExecutor
from toolplug.interaction import report_progress

from toolplug_bash import background_tools
from toolplug_bash.background import ProcessTable
from toolplug_bash.environment import session_env
from toolplug_bash.errors import ShellError
from toolplug_bash.output import LiveOutput, SecretMasker, render
from toolplug_bash.sandbox import Confinement, SandboxConfig
from toolplug_bash.session import KEYS, Limits, Outcome, Reason, ShellSession
from toolplug_bash.types import BashAction, BashObservation

#: Spellings of the special keys a model may use.
_KEY_NAMES = {
    **{name.lower(): name for name in KEYS},
    **{f"^{name[-1]}": name for name in KEYS},
    **{f"ctrl-{name[-1]}": name for name in KEYS},
    **{f"ctrl+{name[-1]}": name for name in KEYS},
}


@dataclass
class BashConfig:
    """Everything a session needs, checked by ``BashTool.create``."""

    workspace: Path
    base_env: dict[str, str]
    timeout: float
    no_output_timeout: float
    hard_timeout: float | None
    max_output: int
    max_saved_output: int
    env: dict[str, str] = field(default_factory=dict)
    env_allowlist: list[str] | None = None
    inherit_env: bool = True
    shell: str = "bash"
    secrets: list[str] = field(default_factory=list)
    #: Run the session under bubblewrap with these rights (None: no sandbox).
    sandbox: SandboxConfig | None = None
    #: Background processes that may run at once (0: none, the tool cannot start them).
    max_background: int = 0
    #: The host closes the tool when its one call returns (``toolplug call``), which
    #: stops any background process: a start says so.
    one_call: bool = False


class BashExecutor(ToolExecutor[BashAction, BashObservation]):
    """Runs actions in one persistent shell, started on the first call."""

    def __init__(self, config: BashConfig) -> None:
        self.config = config
        self.session: ShellSession | None = None
        self._env = session_env(
            config.base_env,
            inherit=config.inherit_env,
            allowlist=config.env_allowlist,
            extra=config.env,
        )
        self._workdir: Path | None = None
        self._call_lock = threading.Lock()
        self._fresh_note = ""
        self._command = ""
        self._started_at = 0.0
        self._closed = False
        #: The background processes (None when the tool has none).
        self.processes = ProcessTable(config.max_background) if config.max_background else None

    @property
    def env(self) -> dict[str, str]:
        """The environment the session's shell starts with."""
        return self._env

    def workdir(self) -> Path:
        """The session's directory for saved output (made on first use)."""
        if self._workdir is None:
            self._workdir = Path(tempfile.mkdtemp(prefix="toolplug-bash-"))
        return self._workdir

    # -- the call ----------------------------------------------------------------------

    #: The core hands a host's per-call timeout to this executor, which turns it into
    #: the command's soft timeout: control comes back, the command keeps running.
    handles_timeout = True

    def __call__(
        self, action: BashAction, timeout: float | None = None
    ) -> BashObservation | Observation:
        if timeout is not None:
            problem = _timeout_problem(timeout)
            if problem is not None:
                return Observation.error(
                    f"The host's timeout for this call {problem}; nothing was run."
                )
            if action.timeout is None or action.timeout > timeout:
                action = action.model_copy(update={"timeout": timeout})
        if not self._call_lock.acquire(blocking=False):
            return Observation.error(
                "Another call to this bash session is still in progress; calls to one "
                "session run one at a time. Wait for it to return, then call again."
            )
        try:
            if self._closed:
                return Observation.error("This bash session is closed.")
            return self._handle(action)
        except (ShellError, OSError) as exc:
            closed = self._closed
            self._discard_session()
            if closed:
                return Observation.error("This bash session was closed while the call ran.")
            return Observation.error(
                f"The shell failed: {exc}. The next call starts a fresh session."
            )
        finally:
            self._call_lock.release()

    def _handle(self, action: BashAction) -> BashObservation | Observation:
        notes: list[str] = []
        if action.reset:
            self._discard_session()
            self._fresh_note = ""
            notes.append(f"The session was reset: a fresh shell in {self.config.workspace}.")
            if not action.command.strip():
                return self._observe(None, notes)
        table = self.processes
        if table is not None:
            if getattr(action, "run_in_background", False):
                return background_tools.start(self, table, action)
            if action.is_input and getattr(action, "process_id", None) is not None:
                return background_tools.send(self, table, action, _input_bytes(action.command))
            notes += background_tools.end_notes(table)
        session = self._session()
        if action.is_input:
            return self._send_input(session, action, notes)
        if session.running:
            return Observation.error(
                f"The previous command is still running ({self._running_for()}): "
                f"{_short(self._command)}. Call with is_input=true and an empty command to "
                "wait for it, text to answer it, or 'C-c' to interrupt it; or reset=true."
            )
        if not action.command.strip():
            return Observation.error(
                "The command is empty. Give a bash command to run (or is_input=true to "
                "wait on a running command)."
            )
        if self._fresh_note:
            notes.append(self._fresh_note)
            self._fresh_note = ""
        self._command = action.command
        self._started_at = time.monotonic()
        outcome = session.run(action.command, self._limits(action), _live())
        return self._observe(outcome, notes)

    def _send_input(
        self, session: ShellSession, action: BashAction, notes: list[str]
    ) -> BashObservation | Observation:
        if not session.running:
            return Observation.error(
                "No command is running, so there is nothing to send input to. "
                "To run it as a command, call again with is_input=false."
            )
        outcome = session.send(_input_bytes(action.command), self._limits(action), _live())
        return self._observe(outcome, notes)

    def _limits(self, action: BashAction) -> Limits:
        config, timeout = self.config, action.timeout
        # An explicit wait from the model also covers silence: it asked to wait.
        return Limits(
            timeout=timeout if timeout is not None else config.timeout,
            no_output_timeout=timeout if timeout is not None else config.no_output_timeout,
            max_output=config.max_output,
            max_saved_output=config.max_saved_output,
        )

    # -- sessions ----------------------------------------------------------------------

    def _session(self) -> ShellSession:
        if self.session is None:
            workdir = self.workdir()
            self.session = ShellSession(
                shell=self.config.shell,
                cwd=self.config.workspace,
                env=self._env,
                workdir=workdir,
                secrets=SecretMasker(self.config.secrets),
                hard_timeout=self.config.hard_timeout,
                confinement=None
                if self.config.sandbox is None
                else Confinement(self.config.sandbox, workdir),
            )
        return self.session

    def _discard_session(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            session.close()

    def close(self) -> None:
        """End the shell and every process it started, and remove the temp files."""
        self._closed = True
        if self.processes is not None:
            self.processes.close()
        self._discard_session()
        # Wait (bounded) for a call in flight to notice, then remove its files.
        if self._call_lock.acquire(timeout=5):
            self._call_lock.release()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    # -- what the model is told ------------------------------------------------------

    def _observe(self, outcome: Outcome | None, notes: list[str]) -> BashObservation:
        if outcome is None:
            text = "\n".join(notes)
            return BashObservation.from_text(text, output="", cwd=str(self.config.workspace))
        session = self.session
        head, tail, left_out = outcome.capture.view()
        script = session.script_path if session is not None else None
        shown = _rendered(head, script)
        saved: str | None = None
        if left_out > 0:
            saved = str(outcome.capture.save_path)
            shown += f"\n[... {left_out} bytes left out ...]\n" + _rendered(tail, script)
        elif tail:  # a short output is all in the head
            shown += _rendered(tail, script)
        reason = outcome.reason
        status = self._status(outcome, saved)
        # The shell ending by itself (`exit 3`) is an answer; its end by a signal or
        # for a reason unknown is the session failing.
        failed = reason is Reason.EXITED and (outcome.exit_code is None or outcome.exit_code < 0)
        if session is not None:
            if session.redirected and reason in (Reason.DONE, Reason.REPAIRED):
                status += _redirected_note(session.redirected)
            if session.replaced_by and outcome.running:
                status += (
                    f"\n[Note: the shell itself was replaced by `{session.replaced_by}` "
                    "(exec): what you type goes to it, and when it ends the session ends. "
                    "Call with reset=true for a fresh shell.]"
                )
        if reason is Reason.EXITED:
            self._discard_session()
            self._fresh_note = (
                "Note: the previous shell had exited, so this is a fresh session in "
                f"{self.config.workspace} (variables, functions and the directory were reset)."
            )
        # (isspace, unlike strip, neither copies the output nor goes past its first
        # visible character.)
        parts = [*notes, shown if shown and not shown.isspace() else "(no output)", status]
        # Validated: pydantic-core checks these typed values faster (2.8 us for both
        # models) than model_construct's Python loop skips the checks (4.4 us).
        return BashObservation(
            content=[TextContent(text="\n".join([p.rstrip("\n") for p in parts]))],
            is_error=failed,
            output=shown,
            exit_code=outcome.exit_code,
            cwd=outcome.cwd or str(self.config.workspace),
            running=outcome.running,
            waiting_for_input=reason is Reason.INPUT,
            full_output_path=saved,
        )

    def _status(self, outcome: Outcome, saved: str | None) -> str:
        lines = []
        if saved is not None:
            total = outcome.capture.total
            kept = outcome.capture.saved
            whole = "the full output" if kept >= total else f"the first {kept} bytes of it"
            lines.append(
                f"[The output ({total} bytes) was cut to its start and end; {whole} is "
                f"saved in {saved}: read parts of it with grep, head, tail or sed -n.]"
            )
        reason = outcome.reason
        limit = self.config.hard_timeout
        if reason is Reason.DONE:
            lines.append(f"[Exit code {outcome.exit_code}. Working directory: {outcome.cwd}]")
        elif reason is Reason.REPAIRED:
            lines.append(
                "[The command replaced the shell with a new bash (exec). The session's "
                "settings were typed into it, so it works as the session's shell again "
                "(the old shell's variables and functions are gone). "
                f"Working directory: {outcome.cwd}]"
            )
        elif reason is Reason.KILLED:
            lines.append(
                f"[The command ran past the hard limit of {limit:g} seconds and was killed "
                f"with its process group. Working directory: {outcome.cwd}]"
            )
        elif reason is Reason.EXITED:
            status = "unknown" if outcome.exit_code is None else outcome.exit_code
            lines.append(
                f"[The shell exited (status {status}). The next call starts a fresh session.]"
            )
        elif reason is Reason.INPUT:
            lines.append(
                "[The command is waiting for input. Answer with is_input=true (the text is "
                "typed followed by Enter), or send 'C-c' to interrupt it or 'C-d' for "
                "end-of-file.]"
            )
        else:
            why = "no new output came" if reason is Reason.QUIET else "the call's timeout came"
            lines.append(
                f"[The command is still running ({self._running_for()}; {why}). Call with "
                "is_input=true and an empty command to wait for more output, text to send "
                "it, or 'C-c' to interrupt it.]"
            )
        return "\n".join(lines)

    def _running_for(self) -> str:
        return f"for {time.monotonic() - self._started_at:.0f} s"


#: Seconds between two reports of a long command's output to the host.
LIVE_EVERY = 0.5


def _live() -> LiveOutput:
    """The call's live output: the host's ``on_progress`` gets the output of a command
    that runs longer than :data:`LIVE_EVERY`, as it arrives, at most that often."""
    return LiveOutput(_report, LIVE_EVERY)


def _report(printed: int, text: str) -> None:
    # progress: bytes printed so far (it grows with each report); no total is known.
    report_progress(printed, None, text)


def _input_bytes(text: str) -> bytes:
    """What typing ``text`` sends: a special key's byte, or the text and Enter."""
    key = _KEY_NAMES.get(text.strip().lower())
    if key is not None:
        return KEYS[key]
    return text.encode("utf-8", errors="surrogateescape") + b"\n" if text else b""


def _timeout_problem(value: object) -> str | None:
    """What is wrong with a timeout in seconds (None: nothing): it must be a finite
    number above 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number of seconds, not {type(value).__name__}"
    if not math.isfinite(value) or value <= 0:
        return f"must be a positive, finite number of seconds, not {value!r}"
    return None


def _redirected_note(fds: list[int]) -> str:
    if not fds:
        return ""
    names = " and ".join({1: "standard output", 2: "standard error"}[fd] for fd in fds)
    verb = "go" if len(fds) > 1 else "goes"
    return (
        f"\n[Note: the shell's {names} no longer {verb} to the terminal (an `exec >...` "
        "redirection), so what commands print there is not shown. Undo it with "
        "`exec >/dev/tty 2>&1`, or call with reset=true for a fresh shell.]"
    )


def _rendered(data: bytes, script: str | None) -> str:
    text = render(data)
    if script is not None and script in text:
        # Errors in a sourced multi-line command name its file; the model never saw it.
        text = text.replace(f"{script}: ", "bash: ")
    return text


def _short(command: str, limit: int = 80) -> str:
    line = command.strip().splitlines()[0] if command.strip() else ""
    return repr(line if len(line) <= limit else line[: limit - 3] + "...")
