"""What the model does with background processes: start, type to, read, list, stop.

The bash tool starts them (``run_in_background``) and types to them (``is_input`` with
``process_id``); ``bash_output`` reads them (read-only) and ``bash_stop`` ends them.
All three share the bash executor's :class:`~toolplug_bash.background.ProcessTable`,
so the processes belong to the tool instance and end with its ``close``.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolplug import Observation, TextContent, ToolContext, ToolExecutor
from toolplug.interaction import LogMessage, notify_host

from toolplug_bash.background import STOP_GRACE, BackgroundProcess, ProcessTable, Spawn, stop_all
from toolplug_bash.output import render
from toolplug_bash.types import (
    BashAction,
    BashObservation,
    BashOutputAction,
    BashStopAction,
    ProcessInfo,
    ProcessObservation,
)

if TYPE_CHECKING:
    from toolplug_bash.executor import BashExecutor

#: Seconds a start (or an input) waits for first output when the call gives no timeout.
START_WAIT = 1.0
#: Seconds a read with ``wait_for`` waits when the call gives no timeout.
PATTERN_WAIT = 30.0


def start(executor: BashExecutor, table: ProcessTable, action: BashAction) -> Observation:
    """Start ``action.command`` in the background; its id and first output."""
    if not action.command.strip():
        return Observation.error("The command is empty. Give a bash command to start.")
    config = executor.config
    session = executor.session
    cwd = session.cwd if session is not None and session.cwd else str(config.workspace)
    spawn = Spawn(
        shell=config.shell,
        workspace=config.workspace,
        env=executor.env,
        workdir=executor.workdir(),
        secrets=config.secrets,
        sandbox=config.sandbox,
        save_limit=config.max_saved_output,
    )
    if "\0" in action.command:
        return Observation.error("The command contains a NUL character, which bash cannot run.")
    try:
        process = table.start(action.command, spawn, cwd)
    except OSError as exc:
        return Observation.error(f"The background process could not start: {exc}.")
    if isinstance(process, str):
        return Observation.error(process)
    process.wait(_wait(action.timeout), settle=True)
    return _bash_view(executor, table, process, "started")


def send(
    executor: BashExecutor, table: ProcessTable, action: BashAction, data: bytes
) -> Observation:
    """Type ``data`` to a background process; what it printed after."""
    number = getattr(action, "process_id", None)
    process = table.get(number) if number is not None else None
    if process is None:
        return _unknown(table, number)
    if not process.running:
        return Observation.error(
            f"Background process {number} has ended (exit code {process.exit_code}); "
            f"nothing was sent. Read its last output with bash_output process_id={number}."
        )
    if data:
        process.write(data)
    process.wait(_wait(action.timeout), settle=True)
    return _bash_view(executor, table, process, "input")


def _wait(timeout: float | None) -> float:
    return START_WAIT if timeout is None else timeout


def _bash_view(
    executor: BashExecutor, table: ProcessTable, process: BackgroundProcess, what: str
) -> BashObservation:
    """A start's or an input's answer, in the bash tool's own observation."""
    shown, _, path = _new_output(process, executor.config.max_output)
    number = process.number
    if process.running and executor.config.one_call:
        status = (
            f"[Background process {number} was running when this call returned; this host "
            "runs one call and then closes the tool, which stops it. To keep a process "
            "between calls, use a host that keeps the tool (a Toolset, toolplug mcp serve).]"
        )
    elif process.running:
        status = (
            f"[Background process {number} is running (pid {process.pid}). Read it with "
            f"bash_output process_id={number}; type to it with is_input=true, "
            f"process_id={number}; stop it with bash_stop.]"
        )
    else:
        process.end_reported = True
        status = f"[Background process {number} {_ended(process)}.]"
    notes = end_notes(table)
    text = "\n".join([*notes, shown.rstrip("\n") or "(no output)", status])
    return BashObservation(
        content=[TextContent(text=text)],
        output=shown,
        exit_code=process.exit_code,
        cwd=process.cwd,
        running=process.running,
        full_output_path=path,
        process_id=number,
    )


def _new_output(process: BackgroundProcess, limit: int) -> tuple[str, int, str | None]:
    """The output since the last read as the model sees it, bytes left out, and the
    file with the whole output (when there is one)."""
    found = process.read(limit)
    shown = render(found.head)
    path = str(process.log.save_path) if process.log.spilled else None
    if found.left_out:
        where = (
            f"; the whole output is in {path} (read parts with grep, tail or sed -n)"
            if path is not None and found.lost == 0
            else f"; {found.lost} of them are no longer kept"
            if found.lost
            else ""
        )
        shown += f"\n[... {found.left_out} bytes left out{where} ...]\n" + render(found.tail)
    return shown, found.left_out, path


def _ended(process: BackgroundProcess) -> str:
    code = process.exit_code
    if process.stopped:
        how = (
            f"by signal {_signal_name(-code)}"
            if code is not None and code < 0
            else f"(exit code {code})"
        )
        return f"was stopped {how} after {process.runtime:.0f} s"
    if code is not None and code < 0:
        return f"was killed by signal {_signal_name(-code)} after {process.runtime:.0f} s"
    return f"exited with code {code} after {process.runtime:.0f} s"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def end_notes(table: ProcessTable) -> list[str]:
    """A line for each background process that ended since the model last looked."""
    return [
        f"[Background process {p.number} ({_short(p.command)}) {_ended(p)}; read its "
        f"output with bash_output process_id={p.number}.]"
        for p in table.newly_ended()
    ]


def notifier(context: ToolContext, tool: str = "bash") -> Callable[[BackgroundProcess], None]:
    """What tells the host (the context's handlers) that a background process ended:
    an ``on_log`` message outside any call, ``info`` for a clean exit or a stop the
    model asked for, ``warning`` for a non-zero status or a signal it did not ask for."""

    def notify(process: BackgroundProcess) -> None:
        notify_host(context, end_message(process, tool))

    return notify


def end_message(process: BackgroundProcess, tool: str = "bash") -> LogMessage:
    """The host's notice of a process's end, with typed ``data``."""
    code = process.exit_code
    signal_name = _signal_name(-code) if code is not None and code < 0 else None
    if process.stopped:
        how = f"was stopped ({signal_name or f'status {code}'})"
    elif signal_name is not None:
        how = f"was killed by signal {signal_name}"
    else:
        how = f"exited with status {code}"
    clean = process.stopped or code == 0
    data: dict[str, Any] = {
        "process_id": process.number,
        "command": process.command,
        "state": process.state,
        "exit_code": code,
        "signal": signal_name,
        "runtime": round(process.runtime, 3),
    }
    message = (
        f"background process {process.number} (`{_short(process.command)}`) {how} "
        f"after {process.runtime:.1f} s"
    )
    return LogMessage(tool, None, "info" if clean else "warning", message, data)


def _unknown(table: ProcessTable, number: int | None) -> Observation:
    known = ", ".join(str(p.number) for p in table.all()) or "none"
    return Observation.error(
        f"There is no background process {number} in this session (known: {known}). "
        "Call bash_output without process_id to list them."
    )


class BashOutputExecutor(ToolExecutor[BashOutputAction, ProcessObservation]):
    """``bash_output``: a background process's new output and state, or the list."""

    def __init__(self, table: ProcessTable, max_output: int) -> None:
        self.table = table
        self.max_output = max_output

    def __call__(self, action: BashOutputAction) -> ProcessObservation | Observation:
        if action.process_id is None:
            return self._listing()
        process = self.table.get(action.process_id)
        if process is None:
            return _unknown(self.table, action.process_id)
        pattern = None
        if action.wait_for is not None:
            try:
                pattern = re.compile(action.wait_for, re.MULTILINE)
            except re.error as exc:
                return Observation.error(f"wait_for is not a valid regular expression: {exc}.")
        timeout = action.timeout
        if timeout is None:
            timeout = PATTERN_WAIT if pattern is not None else 0.0
        matched = process.wait(timeout, pattern) if pattern is not None or timeout else None
        return _process_view(self.table, process, self.max_output, matched if pattern else None)

    def _listing(self) -> ProcessObservation:
        infos = [_info(p) for p in self.table.all()]
        for process in self.table.all():
            if not process.running:
                process.end_reported = True
        lines = [
            f"{i.process_id}  {i.state:<7}  {_code(i.exit_code):>4}  {i.runtime:7.0f} s  "
            f"{_short(i.command)}"
            for i in infos
        ]
        text = (
            "\n".join(["id  state    exit  runtime    command", *lines])
            if lines
            else ("No background processes in this session.")
        )
        return ProcessObservation(content=[TextContent(text=text)], processes=infos)


class BashStopExecutor(ToolExecutor[BashStopAction, ProcessObservation]):
    """``bash_stop``: end a background process's whole group, then show its last output."""

    def __init__(self, table: ProcessTable, max_output: int) -> None:
        self.table = table
        self.max_output = max_output

    def __call__(self, action: BashStopAction) -> ProcessObservation | Observation:
        process = self.table.get(action.process_id)
        if process is None:
            return _unknown(self.table, action.process_id)
        stop_all([process], STOP_GRACE)
        process.wait(STOP_GRACE)  # its last output is read
        return _process_view(self.table, process, self.max_output, None)


def _process_view(
    table: ProcessTable, process: BackgroundProcess, limit: int, matched: bool | None
) -> ProcessObservation:
    shown, left_out, path = _new_output(process, limit)
    number = process.number
    if process.running:
        status = f"[Background process {number} is running ({process.runtime:.0f} s).]"
        if matched is False:
            status = f"[wait_for did not match yet. {status[1:]}"
    else:
        process.end_reported = True
        status = f"[Background process {number} {_ended(process)}.]"
    text = "\n".join([*end_notes(table), shown.rstrip("\n") or "(no new output)", status])
    return ProcessObservation(
        content=[TextContent(text=text)],
        process_id=number,
        state=process.state,  # type: ignore[arg-type]
        exit_code=process.exit_code,
        output=shown,
        left_out=left_out,
        full_output_path=path,
        matched=matched,
    )


def _info(process: BackgroundProcess) -> ProcessInfo:
    return ProcessInfo(
        process_id=process.number,
        command=process.command,
        state=process.state,  # type: ignore[arg-type]
        exit_code=process.exit_code,
        runtime=round(process.runtime, 3),
    )


def _code(code: int | None) -> str:
    return "-" if code is None else str(code)


def _short(command: str, limit: int = 60) -> str:
    line = command.strip().splitlines()[0] if command.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
