"""Background processes: commands that run on while the model does other things.

Each one is ``bash -c COMMAND`` on a pseudo-terminal of its own (so it prints as it
would in a terminal, line by line, and ``C-c`` typed to it interrupts it), in a
session and process group of its own, started in the session's working directory
with the session's environment, under the same sandbox as the session. A thread per
process reads the terminal into an :class:`~toolplug_bash.ring.OutputLog` and watches
the process's end through a pidfd.

Stopping one sends SIGTERM to its process group and to every process that belongs to
it, then SIGKILL after a grace period. What belongs to it is found as for the
session's own commands (:mod:`toolplug_bash.procs`): its session and every
descendant, and anything carrying its marker in the environment (``setsid``,
``nohup`` and double forks included). A :class:`ProcessTable` holds one tool
instance's processes, caps how many run at once, and stops them all on ``close``.

The table's :attr:`ProcessTable.on_end` hears of each process's end once, at once,
from the thread that saw it (the bash tool tells its host:
:func:`~toolplug_bash.background_tools.notifier`); not of the ends that the table's
own ``close`` causes.
"""

from __future__ import annotations

import _thread
import fcntl
import os
import re
import secrets
import select
import shlex
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from toolplug_bash import procs
from toolplug_bash.output import SecretMasker
from toolplug_bash.ring import OutputLog, Slice
from toolplug_bash.sandbox import Confinement, SandboxConfig, terminal_session
from toolplug_bash.signals import with_default_signals

#: The environment variable that marks a background process and all it starts.
MARKER = "TOOLPLUG_BASH_PROCESS"
#: Seconds between SIGTERM and SIGKILL when the model stops a process, and when the
#: tool closes.
STOP_GRACE = 3.0
CLOSE_GRACE = 1.0
#: Bytes of a process's output kept in memory (the rest is in its file).
RING_SIZE = 1 << 20
#: After its first output, a start or an input returns once the output paused this long.
SETTLE = 0.1
#: How far back a pattern wait looks again in output it has already searched (a match
#: may span two reads).
_OVERLAP = 4096
_READ_SIZE = 1 << 16
#: Longest command passed as an argument (the kernel's limit for one is 128 KiB).
_MAX_ARGUMENT = 64 * 1024
#: How long after a process's end its terminal may take to close (its last output is
#: read until then); a process it left behind may keep it open longer.
_LAST_OUTPUT = 0.2


@dataclass(frozen=True)
class Spawn:
    """What a background process is started with (the tool's settings)."""

    shell: str
    workspace: Path
    env: dict[str, str]
    workdir: Path
    secrets: list[str]
    sandbox: SandboxConfig | None
    save_limit: int
    ring_size: int = RING_SIZE
    size: tuple[int, int] = (50, 200)


class BackgroundProcess:
    """One command running in the background, and its output."""

    def __init__(
        self,
        number: int,
        command: str,
        spawn: Spawn,
        cwd: str,
        on_end: Callable[[BackgroundProcess], None] | None = None,
    ) -> None:
        self.number = number
        self.command = command
        self.cwd = cwd
        self.log = OutputLog(
            spawn.ring_size, spawn.workdir / f"process-{number}.log", spawn.save_limit
        )
        #: The stream offset of the first byte the model has not read yet.
        self.cursor = 0
        self.started_at = time.monotonic()
        self.ended_at: float | None = None
        #: Whether the model was told of its end.
        self.end_reported = False
        #: Set by :meth:`stop`: the model (or the tool's close) ended it.
        self.stopped = False
        self._token = secrets.token_hex(8)
        self._masker = SecretMasker(spawn.secrets)
        self._on_end = on_end  # told once, when ended_at is first set
        self._confinement: Confinement | None = None
        self._done = False  # the process ended and its output was read to the end
        self._leader: int | None = None  # in a sandbox: the shell, once it took the terminal
        self._fd, self.process = self._start(spawn)
        self._stop_read, self._stop_write = os.pipe()
        # The low-level start: Thread.start would wait for the thread to be scheduled
        # (a tenth of a start's time); nothing joins it, it ends with the process.
        _thread.start_new_thread(self._reader, ())

    def _start(self, spawn: Spawn) -> tuple[int, subprocess.Popen[bytes]]:
        master, slave = os.openpty()
        try:
            attrs = termios.tcgetattr(slave)
            # As the session's terminal: no echo, no newline translation.
            attrs[3] &= ~(termios.ECHO | termios.ECHONL | termios.ECHOCTL)
            attrs[1] &= ~termios.OPOST
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *spawn.size, 0, 0))
            # The session leader opens its terminal again: that makes it the controlling
            # terminal (so C-c reaches the command). Its trap lets this shell outlive a
            # C-c that the command itself survives (a REPL); then it goes to the directory.
            command = self.command
            if len(command.encode()) > _MAX_ARGUMENT:
                # Longer than an argument may be: the shell reads it from a file.
                script_file = spawn.workdir / f"process-{self.number}.sh"
                script_file.write_bytes(command.encode("utf-8", errors="surrogateescape"))
                command = f". {shlex.quote(str(script_file))}"
            script = (
                "exec 0<>/proc/self/fd/0 1>&0 2>&0; trap : INT; "
                'builtin cd -- "$1" || exit 1; shift\n' + command
            )
            argv = [spawn.shell, "-c", script, "bash", self.cwd]
            env = {**spawn.env, MARKER: self._token}
            options = {
                "stdin": slave,
                "stdout": slave,
                "stderr": slave,
                "cwd": spawn.workspace,
                "env": env,
                "start_new_session": True,
                "close_fds": True,
            }
            if spawn.sandbox is None:
                process = subprocess.Popen(with_default_signals(argv), **options)  # type: ignore[call-overload]
            else:
                self._confinement = Confinement(spawn.sandbox, spawn.workdir)
                process = self._confinement.spawn(argv, **options)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        return master, process

    # -- the reader thread -------------------------------------------------------------

    def _reader(self) -> None:
        """Read the terminal into the log until it closes, and see the process end."""
        try:
            pidfd = os.pidfd_open(self.process.pid)
        except (AttributeError, OSError):
            pidfd = -1
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        poller.register(self._stop_read, select.POLLIN)
        if pidfd >= 0:
            poller.register(pidfd, select.POLLIN)
        exited = terminal_closed = False
        exited_at = 0.0
        try:
            # Until the process has ended and nothing holds its terminal any more (a
            # process it left behind may print on after its end).
            while not (exited and terminal_closed):
                timeout: float | None = None  # (a pidfd or the terminal wakes us)
                if exited and not self._done:  # a moment for the terminal to close too
                    timeout = max(exited_at + _LAST_OUTPUT - time.monotonic(), 0.0)
                elif pidfd < 0:
                    timeout = 0.1  # without a pidfd, look at the process now and then
                events = poller.poll(None if timeout is None else timeout * 1000)
                ready = {fd for fd, _ in events}
                if self._stop_read in ready:
                    return
                if not terminal_closed and not self._drain():
                    terminal_closed = True  # every process that had it is gone
                    poller.unregister(self._fd)
                    self._end_stream()
                late = time.monotonic() >= exited_at + _LAST_OUTPUT
                if exited and not self._done and (terminal_closed or late):
                    self._finish()  # the terminal closed, or stays open after the end
                ended = not exited and (pidfd in ready or pidfd < 0)
                if ended and self.process.poll() is not None:
                    exited, exited_at = True, time.monotonic()
                    if pidfd >= 0:
                        poller.unregister(pidfd)
                    if terminal_closed:
                        self._finish()
        finally:
            if not terminal_closed:
                self._end_stream()
            self.process.poll()
            self._finish()
            if pidfd >= 0:
                os.close(pidfd)
            with self.log.changed:  # a writer checks the descriptor under this lock
                _ = self.pid  # (in a sandbox: learn the shell's pid while the terminal is open)
                os.close(self._fd)
                self._fd = -1
            os.close(self._stop_read)

    def _end_stream(self) -> None:
        self.log.write(self._masker.flush())
        self.log.end()

    def _drain(self) -> bool:
        """Read what the terminal holds (at most 1 MiB at once); False when it is closed."""
        for _ in range(16):
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not data:
                return False
            self.log.write(self._masker.feed(data))
        return True

    def _finish(self) -> None:
        with self.log.changed:
            first_end = self.process.returncode is not None and self.ended_at is None
            if first_end:
                self.ended_at = time.monotonic()
            self._done = self.process.returncode is not None
            self.log.changed.notify_all()
        if first_end and self._on_end is not None:
            self._on_end(self)  # outside the lock: it may take its time

    # -- what the model sees -----------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the command still runs."""
        return self.process.poll() is None

    @property
    def exit_code(self) -> int | None:
        """The exit status (negative: the signal that ended it); None while it runs."""
        return self.process.poll()

    @property
    def state(self) -> str:
        """``running``, ``exited`` (it ended by itself) or ``stopped`` (it was stopped)."""
        if self.running:
            return "running"
        return "stopped" if self.stopped else "exited"

    @property
    def runtime(self) -> float:
        """Seconds it has run (until its end)."""
        return (self.ended_at or time.monotonic()) - self.started_at

    @property
    def pid(self) -> int:
        """The process id of the command's shell (as this host sees it)."""
        if self._confinement is None:
            return self.process.pid
        if self._leader is None and self._fd >= 0:
            self._leader = terminal_session(self._fd)
        return self._leader or self.process.pid

    def wait(
        self, timeout: float, pattern: re.Pattern[str] | None = None, settle: bool = False
    ) -> bool:
        """Wait until the process ends (and its output is read), ``pattern`` matches the
        unread output, or ``timeout`` passes; with ``settle``, also until output came
        and paused for :data:`SETTLE`. Returns whether the pattern matched."""
        deadline = time.monotonic() + timeout
        scanned = self.cursor
        seen = self.log.total
        quiet_since = time.monotonic()
        while True:
            with self.log.changed:
                if pattern is None or self.log.total <= scanned:
                    if self._done:
                        return False
                    now = time.monotonic()
                    if self.log.total != seen:
                        seen, quiet_since = self.log.total, now
                    wake = deadline
                    if settle and seen > self.cursor:
                        if now - quiet_since >= SETTLE:
                            return False
                        wake = min(wake, quiet_since + SETTLE)
                    if now >= deadline:
                        return False
                    self.log.changed.wait(wake - now)
                    continue
                data, begin = self.log.text_since(max(scanned - _OVERLAP, self.cursor))
            # Searched without the lock: the reader thread goes on taking output.
            if pattern.search(data.decode("utf-8", errors="replace")):
                return True
            scanned = begin + len(data)
            if time.monotonic() >= deadline:
                return False

    def read(self, limit: int) -> Slice:
        """The output since the last read (bounded by ``limit``); the cursor moves on."""
        found = self.log.read(self.cursor, limit)
        self.cursor = found.end
        return found

    def write(self, data: bytes) -> None:
        """Type bytes to the process's terminal."""
        view = memoryview(data)
        deadline = time.monotonic() + 5.0
        while view:
            try:
                with self.log.changed:
                    if self._fd < 0:
                        raise OSError("the process's terminal is closed (it has ended)")
                    view = view[os.write(self._fd, view) :]
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OSError(
                        "the process does not take input (its terminal is full)"
                    ) from None
                time.sleep(0.01)

    # -- the end -----------------------------------------------------------------------

    def members(self) -> list[int]:
        """The live processes that belong to this one (see the module).

        Once the command's shell has ended (and was reaped), its pid may be another
        process's: then only the processes carrying the marker count.
        """
        found = set(procs.processes_with_env(f"{MARKER}={self._token}".encode()))
        if self.running:
            leader = self.pid
            found.update(procs.session_processes(leader))
            found.add(leader)
        return sorted(found)

    def signal(self, sig: int) -> list[int]:
        """Send ``sig`` to the process group and every member; the members.

        In a sandbox, SIGTERM spares bubblewrap itself (it would end at once, and all
        inside it with SIGKILL): the command gets its grace, as outside one.
        """
        running = self.running
        members = self.members()
        if running:
            procs.kill_group(self.pid, sig)
        targets = members
        if sig != signal.SIGKILL and self._confinement is not None:
            targets = [pid for pid in members if not _is_sandbox(pid)]
        procs.kill_all(targets, sig)
        return members

    def release(self) -> None:
        """After the end: reap the process, stop the reader, free the sandbox."""
        try:
            self.process.wait(timeout=CLOSE_GRACE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._confinement is not None:
            self._confinement.close()
        self._finish()
        if self._stop_write >= 0:
            os.close(self._stop_write)  # the reader ends (and closes its end)
            self._stop_write = -1


def _is_sandbox(pid: int) -> bool:
    """Whether a process is bubblewrap (or the shell that starts it)."""
    argv = procs.command_line(pid) or []
    return bool(argv) and (
        os.path.basename(argv[0]) == "bwrap" or argv[1:4:2] == ["-c", "toolplug-sandbox"]
    )


def stop_all(processes: list[BackgroundProcess], grace: float) -> None:
    """Stop processes at once: SIGTERM, then SIGKILL to what is left after ``grace``."""
    members: list[int] = []
    for process in processes:
        process.stopped = process.stopped or process.running
        members += process.signal(signal.SIGTERM)
    if not procs.wait_gone(members, grace):
        for process in processes:
            members = process.signal(signal.SIGKILL)
            procs.wait_gone(members, CLOSE_GRACE)
    for process in processes:
        process.release()


class ProcessTable:
    """One tool instance's background processes: numbered from 1, at most ``cap`` running."""

    #: Ended processes kept (their output stays readable); the oldest go first.
    KEEP_ENDED = 16

    def __init__(self, cap: int) -> None:
        self.cap = cap
        #: Called once when a process ends (by itself, killed, or stopped), from the
        #: thread that saw it; never for the ends :meth:`close` causes. It must not raise.
        self.on_end: Callable[[BackgroundProcess], None] | None = None
        self._processes: dict[int, BackgroundProcess] = {}
        self._next = 1
        self._lock = threading.Lock()
        self._closed = False

    def start(self, command: str, spawn: Spawn, cwd: str) -> BackgroundProcess | str:
        """Start a command; a refusal (why) when the cap is reached or the table closed."""
        with self._lock:
            if self._closed:
                return "This bash session is closed."
            running = [p for p in self._processes.values() if p.running]
            if len(running) >= self.cap:
                listed = ", ".join(f"{p.number} ({_short(p.command)})" for p in running)
                return (
                    f"{len(running)} background processes already run, the most this "
                    f"session allows (max_background={self.cap}): {listed}. Stop one with "
                    "bash_stop, or run the command in the foreground."
                )
            self._forget_ended()
            process = BackgroundProcess(self._next, command, spawn, cwd, self._ended)
            self._processes[self._next] = process
            self._next += 1
            return process

    def _forget_ended(self) -> None:
        ended = [p for p in self._processes.values() if not p.running]
        for process in ended[: max(len(ended) - self.KEEP_ENDED + 1, 0)]:
            del self._processes[process.number]
            process.release()
            try:
                process.log.save_path.unlink()
            except OSError:
                pass

    def _ended(self, process: BackgroundProcess) -> None:
        # After close the host is ending the session itself and knows its processes
        # go with it: a notice per process would only repeat that (and under MCP, the
        # session that could hear it is going away).
        if not self._closed and self.on_end is not None:
            self.on_end(process)

    def get(self, number: int) -> BackgroundProcess | None:
        """The process with this number, if the table still has it."""
        return self._processes.get(number)

    def all(self) -> list[BackgroundProcess]:
        """Every process the table has, in the order they were started."""
        return list(self._processes.values())

    def newly_ended(self) -> list[BackgroundProcess]:
        """Processes that ended since the model last heard of them (now marked told)."""
        found = [p for p in self._processes.values() if not p.end_reported and not p.running]
        for process in found:
            process.end_reported = True
        return found

    def close(self) -> None:
        """Stop every process (SIGTERM, SIGKILL after :data:`CLOSE_GRACE`)."""
        with self._lock:
            self._closed = True
            processes = list(self._processes.values())
        stop_all(processes, CLOSE_GRACE)


def _short(command: str, limit: int = 60) -> str:
    line = command.strip().splitlines()[0] if command.strip() else ""
    return repr(line if len(line) <= limit else line[: limit - 3] + "...")
