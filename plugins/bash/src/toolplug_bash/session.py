"""A persistent bash over a pseudo-terminal, and the prompt protocol that drives it.

bash runs interactively (job control on, no readline, no rc files) in its own session
with the pty as its controlling terminal, so ``C-c`` reaches the foreground job the way
it does in a terminal and the shell survives it.

Each command is typed as one line, ``eval -- 'COMMAND'; __tp NONCE $?`` (a long,
multi-line or binary command is written to a file and the line sources it instead).
When the command ends, ``__tp`` prints a *sentinel*: the nonce, the exit status and the
working directory, framed by two control bytes. The nonce is fresh for every command
and exists only in bash's own copy of the line it parsed, so nothing the command runs
or prints can know it before the command has ended: output cannot fake a completion.
Reading up to the sentinel is the whole round trip: no polling, no sleeps.

An interrupt (``C-c``, the hard limit) makes bash drop the rest of the line, ``__tp``
included; then ``PROMPT_COMMAND`` prints a *prompt mark* instead, which counts only once
the shell itself is seen back at its prompt (the foreground process group, reading the
terminal). Commands that reprogram the session are repaired or reported: the sentinel
goes to the terminal by its path (``exec >/dev/null`` cannot hide it), ``stty echo`` is
undone before each line, and a shell replaced by ``exec bash`` gets its settings back.
"""

from __future__ import annotations

import _thread
import errno
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
from enum import Enum
from pathlib import Path

from toolplug_bash import procs
from toolplug_bash.errors import ShellError
from toolplug_bash.output import LiveOutput, OutputCapture, SecretMasker
from toolplug_bash.sandbox import Confinement, terminal_session
from toolplug_bash.signals import with_default_signals

#: Bytes typed for the special keys.
KEYS = {"C-c": b"\x03", "C-d": b"\x04", "C-z": b"\x1a"}

_READ_SIZE = 1 << 16
#: Quiet time after which the foreground job is checked for waiting on the terminal.
_INPUT_PROBE_EVERY = 0.25
#: Bytes a command may not hold to be typed (newlines, and what the terminal would
#: take as editing keys); such a command is sourced from a file.
_UNTYPABLE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
#: Longest quoted command typed (the terminal's canonical line limit is 4095 bytes).
_MAX_LINE = 3500
#: What frames a sentinel: the start, and the end.
_MARK = b"\x1eTP"
_END = b"\x1f"
#: Longest sentinel body (nonce, status, a working directory of up to PATH_MAX bytes);
#: an unended start longer than that is output, not a sentinel.
_MAX_BODY = 4200
#: Most bytes of sentinels the between-calls spool keeps from its dropped middle.
_MAX_KEPT = 1 << 16
#: How often the shell is looked at while a prompt mark waits to be confirmed.
_CONFIRM_EVERY = 0.005
#: Most bytes kept of what the terminal prints between calls (the middle is dropped).
_SPOOL_LIMIT = 1 << 20
#: Between calls: how often the terminal is looked at, and how long output may pause
#: before it is only looked at again that often.
_DRAIN_TICK = 0.025
_DRAIN_QUIET = 0.25
#: How long a session may take to start, or to come back after its job was killed.
_START_WAIT = 10.0
#: Bytes kept of what a shell prints before it is set up.
_STARTUP_KEPT = 4096
_KILL_WAIT = 3.0
#: The streams a sentinel's AWAY field may name.
_STREAMS = ((1, b"1"), (2, b"2"))


@dataclass(frozen=True)
class Limits:
    """How long one call may wait, and how much of the output it keeps."""

    timeout: float
    no_output_timeout: float
    max_output: int
    max_saved_output: int


class Reason(Enum):
    """Why a call returned."""

    #: The command ended: the shell is back at its prompt.
    DONE = "done"
    #: The call's timeout came; the command still runs.
    TIMEOUT = "timeout"
    #: No output came for the call's quiet time; the command still runs.
    QUIET = "quiet"
    #: The command waits on the terminal for input.
    INPUT = "input"
    #: The hard limit ended the command.
    KILLED = "killed"
    #: The command replaced the shell with a new bash, which got the session's settings.
    REPAIRED = "repaired"
    #: The shell itself ended.
    EXITED = "exited"

    @property
    def running(self) -> bool:
        """Whether the command is still running after a call that returned for this."""
        return self in (Reason.TIMEOUT, Reason.QUIET, Reason.INPUT)

    @property
    def command_over(self) -> bool:
        """Whether the call saw the command end: the session has no running command."""
        return self in (Reason.DONE, Reason.KILLED, Reason.REPAIRED)


@dataclass
class Outcome:
    """What one call saw: why it returned, the output, and the command's status and
    working directory when it ended."""

    reason: Reason
    capture: OutputCapture
    exit_code: int | None
    cwd: str

    @property
    def running(self) -> bool:
        """Whether the command is still running after this call."""
        return self.reason.running


class _Sentinel(Enum):
    """Which of the session's sentinels ended a read (see ``ShellSession._consume``)."""

    #: The command's own sentinel: it ended.
    DONE = "done"
    #: A prompt mark: the line was interrupted; it counts once the shell is at its prompt.
    MARK = "mark"
    #: A repair's setup line ended.
    REPAIRED = "repaired"


#: A call's end: the reason, and the command's exit status when one was read.
_Ended = tuple[Reason, int | None]


@dataclass
class _Wait:
    """One call's wait on the terminal: its limits, and what it has seen so far."""

    #: When the call's timeout comes, and after how long without output it returns.
    deadline: float
    quiet_after: float
    #: When the command's hard limit comes (None: it has none).
    hard: float | None
    last_output: float
    #: When the shell is next looked at (waits for input, replaced, at its prompt).
    next_probe: float
    #: When the hard limit's kill began.
    killing_since: float | None = None
    #: A prompt mark's body, until the shell is seen at its prompt.
    mark: bytes | None = None

    def wake(self) -> float:
        """When the wait must look again, whether output comes or not."""
        wake = min(self.deadline, self.last_output + self.quiet_after, self.next_probe)
        if self.hard is not None and self.hard < wake:
            wake = self.hard
        if self.killing_since is not None and self.killing_since + _KILL_WAIT < wake:
            wake = self.killing_since + _KILL_WAIT
        return wake


class _SentinelScanner:
    """Find sentinels (``\\x1eTP...\\x1f``) in the byte stream, across read boundaries.

    It finds every framed body; which of them are the session's is the session's call.
    """

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, chunk: bytes) -> tuple[bytes, bytes | None, bytes]:
        """Split into (output before a sentinel, its body or None, the rest to feed)."""
        data = self._pending + chunk
        self._pending = b""
        start = data.find(_MARK)
        if start < 0:
            hold = _partial_suffix(data, _MARK)
            if hold:
                self._pending = data[-hold:]
                return data[:-hold], None, b""
            return data, None, b""
        body_start = start + len(_MARK)
        end = data.find(_END, body_start, body_start + _MAX_BODY + 1)
        following = data.find(_MARK[:1], body_start, None if end < 0 else end)
        if following >= 0:
            # Another start before this one's end: this start is output, not a sentinel
            # (else an unended forgery would swallow the real sentinel after it).
            return data[:following], None, data[following:]
        if end < 0:
            if len(data) - body_start > _MAX_BODY:
                # Too long to be a sentinel: it is output; look again after its start.
                return data[:body_start], None, data[body_start:]
            self._pending = data[start:]
            return data[:start], None, b""
        return data[:start], data[body_start:end], data[end + 1 :]

    def flush(self) -> bytes:
        """Bytes held back because they looked like the start of a sentinel."""
        rest, self._pending = self._pending, b""
        return rest


def _partial_suffix(data: bytes, marker: bytes) -> int:
    """Length of the longest end of ``data`` that is a proper prefix of ``marker``."""
    first = data.rfind(marker[:1], max(len(data) - len(marker) + 1, 0))
    while first >= 0:
        if marker.startswith(data[first:]):
            return len(data) - first
        first = data.find(marker[:1], first + 1)
    return 0


class _Spool:
    """What the terminal printed while no call was reading it, kept for the next call.

    Bounded: past ``limit`` bytes the middle is dropped, and a line says how much. The
    session's sentinels in the dropped part (those that start with one of ``markers``)
    are kept, since the next call must still see a command that ended while no call was
    waiting.
    """

    def __init__(self, markers: tuple[bytes, ...], limit: int) -> None:
        self.markers = markers
        self.half = limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.kept = bytearray()
        self.dropped = 0

    def __bool__(self) -> bool:
        return bool(self.head or self.tail)

    def add(self, data: bytes) -> None:
        """Append what was read."""
        if not self.tail and len(self.head) < self.half:
            room = self.half - len(self.head)
            self.head += data[:room]
            data = data[room:]
            if not data:
                return
            # A sentinel must not straddle the head and what may later be dropped.
            start = self.head.rfind(b"\x1e")
            if start >= 0 and self.head.find(b"\x1f", start) < 0:
                data = bytes(self.head[start:]) + data
                del self.head[start:]
        self.tail += data
        if len(self.tail) > 2 * self.half:
            self._trim()

    def _trim(self) -> None:
        cut = len(self.tail) - self.half
        start = self.tail.rfind(b"\x1e", 0, cut)
        if start >= 0 and self.tail.find(b"\x1f", start, cut) < 0:
            cut = start  # never cut through a sentinel
        dropped = bytes(self.tail[:cut])
        del self.tail[:cut]
        found = dropped.find(_MARK)
        while found >= 0:
            end = dropped.find(_END, found)
            if end < 0:  # not a whole sentinel after all (the cut keeps whole ones)
                break
            ours = dropped.startswith(self.markers, found)
            if ours and len(self.kept) + end + 1 - found <= _MAX_KEPT:
                self.kept += dropped[found : end + 1]
                cut -= end + 1 - found
            found = dropped.find(_MARK, end + 1)
        self.dropped += cut

    def take(self) -> bytes:
        """Everything spooled, as one chunk, and empty the spool."""
        if len(self.tail) > self.half:
            self._trim()
        note = b""
        if self.dropped:
            note = f"\n[... {self.dropped} bytes printed between calls left out ...]\n".encode()
        data = bytes(self.head) + note + bytes(self.kept) + bytes(self.tail)
        self.head, self.tail, self.kept, self.dropped = bytearray(), bytearray(), bytearray(), 0
        return data


class ShellSession:
    """One persistent bash process on a pseudo-terminal.

    Not thread-safe: the executor lets one call in at a time. :meth:`close` may be
    called from any thread and ends the shell and every process it started.
    """

    def __init__(
        self,
        *,
        shell: str,
        cwd: Path,
        env: dict[str, str],
        workdir: Path,
        secrets: SecretMasker,
        hard_timeout: float | None,
        confinement: Confinement | None = None,
        columns: int = 200,
        rows: int = 50,
    ) -> None:
        self.shell = shell
        #: Starts the shell in a sandbox (None: as a plain child of this process).
        self.confinement = confinement
        #: The shell's pid when it is not the spawned process (the sandbox's is).
        self._shell_pid: int | None = None
        self.cwd = str(cwd)
        self.env = env
        self.workdir = workdir
        #: Where multi-line and long commands are written to be sourced.
        self.script_path = str(workdir / "command.sh")
        self.masker = secrets
        self.hard_timeout = hard_timeout
        self.size = (rows, columns)
        self.process: subprocess.Popen[bytes] | None = None
        self.exit_status: int | None = None
        self._fd = -1
        self._pidfd = -1
        self._tty = ""
        #: Marks the session's processes (``TOOLPLUG_BASH_SESSION``, in their environment).
        self._token = b""
        #: Frames the prompt mark; a shell variable, never exported.
        self._prompt_token = b""
        #: The current command's nonce, and the setup line's.
        self._nonce = b""
        self._setup_nonce = b""
        self._argv: list[str] = []
        self._scanner = _SentinelScanner()
        #: Output is dropped until the setup line's sentinel (set again for a repair);
        #: its start is kept, to be shown if the shell dies before it is set up (a
        #: sandbox that cannot start says why there).
        self._starting = False
        self._startup_output = b""
        self._repairing = False
        #: The program that replaced the shell (``exec python3``), when not a bash.
        self.replaced_by: str | None = None
        #: Which of the shell's stdout (1) and stderr (2) were no terminal when its
        #: last command ended (``exec >/dev/null``).
        self.redirected: list[int] = []
        self._leftover = b""
        self._running_since: float | None = None
        self._hard_timer: threading.Timer | None = None
        self._outputs = 0
        self._limit_hit = False
        self._killed_command = False
        self._kill_lock = threading.Lock()
        self._closed = False
        # Held by a call while it reads the terminal; between calls, the drain thread
        # reads it instead, so that a job printing to it never blocks on a full buffer.
        self._reading = threading.Lock()
        self._spool = _Spool((), _SPOOL_LIMIT)
        self._drain_stop = -1
        #: Made once per shell, not per call: one watches the terminal, one also the
        #: shell's pidfd (a call waits on that one).
        self._terminal_poll = select.poll()
        self._wait_poll = select.poll()

    # -- life cycle ------------------------------------------------------------------

    @property
    def started(self) -> bool:
        """Whether the shell process was started (and not yet closed)."""
        return self.process is not None

    @property
    def running(self) -> bool:
        """Whether a command was started and has not come back to the prompt."""
        return self._running_since is not None

    @property
    def pid(self) -> int | None:
        """The shell's process id (also its session and process group id).

        In a sandbox the spawned process is bubblewrap, and the shell is found as the
        session that owns the terminal (None until it has taken it).
        """
        if self.process is None:
            return None
        if self.confinement is None:
            return self.process.pid
        if self._shell_pid is None:
            self._shell_pid = terminal_session(self._fd)
        return self._shell_pid

    def start(self) -> None:
        """Start bash; the setup line is typed ahead, so this does not wait for it."""
        if self._closed:
            raise ShellError("the session is closed")
        self._token = secrets.token_hex(8).encode()
        self._prompt_token = secrets.token_hex(8).encode()
        self._argv = [self.shell, "--norc", "--noprofile", "--noediting", "-i"]
        master, slave = os.openpty()
        try:
            self._tty = os.ttyname(slave)
            attrs = termios.tcgetattr(slave)
            # No echo of what is typed, no newline translation of what is printed.
            attrs[3] &= ~(termios.ECHO | termios.ECHONL | termios.ECHOCTL)
            attrs[1] &= ~termios.OPOST
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *self.size, 0, 0))
            spawn: Callable[..., subprocess.Popen[bytes]] = (
                subprocess.Popen if self.confinement is None else self.confinement.spawn
            )
            self._shell_pid = None
            # In a sandbox, the confinement puts the signals back inside it.
            argv = self._argv if self.confinement else with_default_signals(self._argv)
            self.process = spawn(
                argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=self.cwd,
                env={**self.env, "TOOLPLUG_BASH_SESSION": self._token.decode()},
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self._fd = master
        try:
            self._pidfd = os.pidfd_open(self.process.pid)
        except (AttributeError, OSError):
            self._pidfd = -1
        self._terminal_poll = select.poll()
        self._terminal_poll.register(master, select.POLLIN)
        self._wait_poll = select.poll()
        self._wait_poll.register(master, select.POLLIN)
        if self._pidfd >= 0:
            self._wait_poll.register(self._pidfd, select.POLLIN)
        self._scanner = _SentinelScanner()
        self._spool = _Spool((), _SPOOL_LIMIT)
        self._start_drain()
        self._write(self._setup_line())

    def _start_drain(self) -> None:
        # The thread reads its own copy of the terminal's descriptor and its end of a
        # pipe, and closes both itself: closing ours never pulls a descriptor from
        # under its poll. Closing our end of the pipe tells it to stop.
        stop_read, self._drain_stop = os.pipe()
        terminal = os.dup(self._fd)
        # The low-level start: threading.Thread.start waits for the thread to be
        # scheduled (about 0.1 ms here, a twentieth of a session's start); nothing
        # ever joins this one, and it ends with the session or the interpreter.
        _thread.start_new_thread(self._drain, (terminal, stop_read))

    def _drain(self, terminal: int, stop: int) -> None:
        """Between calls, read what the terminal prints into the spool.

        It does not watch the terminal all the time: then every call's own output would
        wake it too, which costs a call more than the call itself. It looks every
        ``_DRAIN_TICK`` seconds (a writer waits at most that long on a full terminal)
        and, once output flows, watches until it has been quiet for ``_DRAIN_QUIET``.
        """
        fd = self._fd
        flowing = False
        quiet = select.poll()
        quiet.register(stop, select.POLLIN)
        watching = select.poll()
        watching.register(stop, select.POLLIN)
        watching.register(terminal, select.POLLIN)
        try:
            while True:
                poller = watching if flowing else quiet
                try:
                    events = poller.poll((_DRAIN_QUIET if flowing else _DRAIN_TICK) * 1000)
                except OSError:
                    return
                ready = [ready_fd for ready_fd, _ in events]
                if stop in ready:
                    return
                if flowing and not ready:
                    flowing = False  # quiet again
                    continue
                if not self._reading.acquire(blocking=False):
                    flowing = False  # a call is reading the terminal itself
                    continue
                try:
                    if self._closed or self._fd != fd:
                        return
                    read = self._drain_once(terminal)
                finally:
                    self._reading.release()
                if read is None:
                    return
                flowing = read
        finally:
            os.close(terminal)
            os.close(stop)

    def _drain_once(self, terminal: int) -> bool | None:
        """Spool what is readable now (at most 1 MiB); whether there was any, or None
        when the terminal is gone."""
        total = 0
        while total < 16 * _READ_SIZE:
            try:
                data = os.read(terminal, _READ_SIZE)
            except BlockingIOError:
                break
            except OSError:
                return None  # the shell and its jobs are gone
            if not data:
                return None
            self._spool.add(data)
            total += len(data)
        return total > 0

    def _setup_line(self) -> bytes:
        """The line that sets the shell up (also typed again to repair a replaced shell).

        It ends with the sentinel of a nonce of its own: the session is ready then.
        Sentinel bodies are ``NONCE;STATUS;AWAY;CWD``, AWAY naming which of stdout (1)
        and stderr (2) are no terminal (``exec >/dev/null``); the prompt mark's NONCE
        is ``P`` and the session's prompt token.
        """
        self._setup_nonce = secrets.token_hex(8).encode()
        tty = shlex.quote(self._tty)
        # In a sandbox the host's terminal path does not exist (it has its own /dev):
        # the shell opens the terminal it was given, and prints to its own terminal.
        opened = "/proc/self/fd/0" if self.confinement is not None else tty
        if self.confinement is not None:
            tty = "/dev/tty"
        mark = f"\\036TPP{self._prompt_token.decode()};%d;;%s\\037"
        sentinel = "\\036TP%s;%d;%s;%s\\037"
        # After a line that __tp did not end (an interrupt dropped it), the prompt mark.
        prompt = "__tp_s=$?; [[ -n $__tp_done ]] && __tp_done= || __tp_prompt"
        functions = (
            f'__tp_prompt() {{ builtin printf \'{mark}\' "$__tp_s" "$PWD" >{tty}; }}; '
            # The command's end. Its stdout is the terminal, but after `exec >FILE`:
            # then the sentinel goes to the terminal by its path, and says so.
            f"__tp() {{ __tp_done=1; PROMPT_COMMAND={shlex.quote(prompt)}; "
            f'if [[ -t 1 ]]; then builtin printf \'{sentinel}\' "$1" "$2" \'\' "$PWD"; '
            "else local away=1; [[ -t 2 ]] || away+=2; "
            f'builtin printf \'{sentinel}\' "$1" "$2" "$away" "$PWD" >{tty}; fi; '
            'return "$2"; }'
        )
        # bash starts without a controlling terminal (the fast way to spawn it); opening
        # the pty as the session leader makes it one, and then job control can start.
        parts = [
            f"exec 0<>{opened} 1>&0 2>&0",
            "set -m +o history +o emacs +o vi",
            "unset HISTFILE MAILCHECK",
            functions,
            f"PROMPT_COMMAND={shlex.quote(prompt)}",
            "PS1= PS2=",
            f"__tp {self._setup_nonce.decode()} 0",
        ]
        self._starting = True
        self._startup_output = b""
        return ("; ".join(parts) + "\n").encode()

    def _new_nonce(self) -> bytes:
        """A fresh nonce for the next line; the spool keeps its sentinels from now on."""
        self._nonce = os.urandom(8).hex().encode()  # as secrets.token_hex, without its calls
        self._spool.markers = (
            _MARK + self._nonce + b";",
            _MARK + b"P" + self._prompt_token + b";",
        )
        return self._nonce

    def close(self) -> None:
        """End the shell and every process of its session. Safe to call twice."""
        self._closed = True
        self._disarm_hard_limit()
        process = self.process
        if process is not None:
            members = self._members(process.pid)
            procs.kill_all(members)
            procs.kill_group(process.pid)
            procs.wait_gone(members, _KILL_WAIT)
            try:
                process.wait(timeout=_KILL_WAIT)
            except subprocess.TimeoutExpired:
                pass
            self.exit_status = process.returncode
        self._release()

    def _members(self, leader: int) -> list[int]:
        """The session's processes, and those that left it but carry its marker."""
        marker = b"TOOLPLUG_BASH_SESSION=" + self._token
        return sorted({*procs.session_processes(leader), *procs.processes_with_env(marker)})

    def _release(self) -> None:
        for fd in (self._drain_stop, self._fd, self._pidfd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._fd = self._pidfd = self._drain_stop = -1
        self.process = None
        self._shell_pid = None
        self._running_since = None
        if self.confinement is not None:
            self.confinement.close()  # what is left in its cgroup, and the cgroup

    def _ended(self) -> None:
        """The shell exited by itself: end what it left behind, release the terminal."""
        process = self.process
        if process is not None:
            members = self._members(process.pid)
            procs.kill_all(members)
            procs.wait_gone(members, _KILL_WAIT)
            try:
                self.exit_status = process.wait(timeout=_KILL_WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
                self.exit_status = process.wait(timeout=_KILL_WAIT)
        self._disarm_hard_limit()
        self._release()

    # -- commands --------------------------------------------------------------------

    def run(self, command: str, limits: Limits, live: LiveOutput | None = None) -> Outcome:
        """Start a command and collect its output until it ends or a limit comes.

        ``live`` also gets the output as it arrives (see :class:`LiveOutput`).
        """
        if not self.started:
            self.start()
        with self._reading:
            return self._run(command, limits, live)

    def _run(self, command: str, limits: Limits, live: LiveOutput | None) -> Outcome:
        capture = self._new_capture(limits, live)
        self._drain_into(capture)
        self._quiet_echo()
        data = command.encode("utf-8", errors="surrogateescape")
        quoted = b"'" + data.replace(b"'", b"'\\''") + b"'"
        if len(quoted) <= _MAX_LINE and not _UNTYPABLE.search(data):
            line = b"eval -- " + quoted
        else:
            with open(self.script_path, "wb") as script:
                script.write(data + b"\n")
            line = f". {shlex.quote(self.script_path)}".encode()
        self._write(line + b"; __tp " + self._new_nonce() + b" $?\n")
        self._running_since = time.monotonic()
        self._limit_hit = False
        self._killed_command = False
        if self.hard_timeout is not None:  # (without one, no timer was ever armed)
            self._arm_hard_limit()
        return self._collect(capture, limits)

    def send(self, data: bytes, limits: Limits, live: LiveOutput | None = None) -> Outcome:
        """Type bytes to the running command (none: just wait) and collect output."""
        with self._reading:
            capture = self._new_capture(limits, live)
            if data:
                self._write(data)
            return self._collect(capture, limits)

    def _new_capture(self, limits: Limits, live: LiveOutput | None) -> OutputCapture:
        self._outputs += 1
        path = f"{self.workdir}/output-{self._outputs}.log"
        capture = OutputCapture(limits.max_output, path, limits.max_saved_output)
        capture.live = live
        return capture

    def _quiet_echo(self) -> None:
        """Undo ``stty echo`` (and the like) of an earlier command before a line is typed:
        an echoing terminal would print every line back in front of its output."""
        try:
            attrs = termios.tcgetattr(self._fd)
        except termios.error:
            return
        echo = termios.ECHO | termios.ECHONL | termios.ECHOCTL
        if attrs[3] & echo:
            attrs[3] &= ~echo
            termios.tcsetattr(self._fd, termios.TCSANOW, attrs)

    def _write(self, data: bytes) -> None:
        try:
            sent = os.write(self._fd, data)
        except BlockingIOError:
            sent = 0
        if sent == len(data):
            return  # the usual case: the terminal took it all at once
        view = memoryview(data)[sent:]
        deadline = time.monotonic() + _START_WAIT
        while view:
            try:
                sent = os.write(self._fd, view)
            except BlockingIOError:
                # The terminal's input queue is full: the command is not reading.
                if time.monotonic() > deadline:
                    raise ShellError("the terminal does not take input") from None
                writable = select.poll()
                writable.register(self._fd, select.POLLOUT)
                writable.poll(100)
                continue
            view = view[sent:]

    def _drain_into(self, capture: OutputCapture) -> None:
        """Output that arrived between calls (background jobs) starts the next view."""
        pending, self._leftover = self._leftover, b""
        # Usually nothing came: a poll says so more cheaply than a read that fails.
        chunks = self._chunks() if self._output_pending() else []
        if pending:
            chunks.insert(0, pending)
        for chunk in chunks:
            # Nothing runs: a stray sentinel ends nothing; what follows it is output.
            while chunk and self._consume(chunk, capture, idle=True) is not None:
                chunk, self._leftover = self._leftover, b""

    def _read(self) -> bytes:
        """Read what is there without blocking; b'' when nothing is (or the pty closed)."""
        try:
            return os.read(self._fd, _READ_SIZE)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:  # every holder of the terminal is gone
                return b""
            raise

    # -- the wait ----------------------------------------------------------------------

    def _collect(self, capture: OutputCapture, limits: Limits) -> Outcome:
        reason, exit_code = self._pump(capture, limits)
        capture.write(self.masker.flush())
        capture.finish()
        if capture.live is not None:
            capture.live.finish()
        if reason.command_over:
            self._running_since = None
            self._disarm_hard_limit()
        if reason is Reason.EXITED:
            exit_code = self.exit_status
        return Outcome(reason, capture, exit_code, self.cwd)

    def _pump(self, capture: OutputCapture, limits: Limits) -> _Ended:
        """Pass output on to ``capture`` until the command ends or a limit comes."""
        now = time.monotonic()
        wait = _Wait(
            deadline=now + limits.timeout,
            quiet_after=limits.no_output_timeout,
            # Fixed for the whole wait: the command's start changes only when it ends.
            hard=self._hard_deadline(),
            last_output=now,
            next_probe=now + _INPUT_PROBE_EVERY,
        )
        while True:
            now = time.monotonic()
            ended = self._check_limits(wait, now)
            if ended is None and now >= wait.next_probe:
                ended = self._probe(wait, now)
            if ended is not None:
                return ended
            ready = self._poll(wait, now)
            ended = self._take_output(capture, wait, ready)
            if ended is not None:
                return ended

    def _check_limits(self, wait: _Wait, now: float) -> _Ended | None:
        """The call's timeouts; the hard limit starts a kill, which ends the session
        when the command is not gone after ``_KILL_WAIT``."""
        if wait.killing_since is None:
            if wait.hard is not None and now >= wait.hard:
                wait.killing_since = now
                self._limit_hit = True
                self.kill_foreground()
            elif now >= wait.deadline:
                return Reason.TIMEOUT, None
            elif now - wait.last_output >= wait.quiet_after:
                return Reason.QUIET, None
        elif now - wait.killing_since > _KILL_WAIT:
            self.close()
            return Reason.KILLED, None
        return None

    def _probe(self, wait: _Wait, now: float) -> _Ended | None:
        """Look at the shell itself: back at its prompt after a prompt mark, replaced
        by another program (``exec``), or running a command that waits for input."""
        if wait.mark is not None and self._shell_at_prompt():
            return self._ended_by(wait.killing_since), self._parse_prompt(wait.mark)
        if wait.killing_since is None and wait.mark is None and not self._repairing:
            if self._shell_replaced():
                self._repair()
            if self._waits_for_input():
                return Reason.INPUT, None
        wait.next_probe = now + (_CONFIRM_EVERY if wait.mark is not None else _INPUT_PROBE_EVERY)
        return None

    def _waits_for_input(self) -> bool:
        """Whether the command waits on the terminal for input."""
        # A command reading the terminal waits for input; but so does the shell at a
        # prompt. On a busy machine that can be the prompt before the command (the line
        # sent is still unread in the terminal), or the one after it (its mark written,
        # not yet read here).
        return (
            not self._repairing
            and self._waits_on_terminal()
            and not self._output_pending()
            and not self._input_unread()
        )

    def _poll(self, wait: _Wait, now: float) -> list[int]:
        """Wait for output, the shell's end or the next time to look; the descriptors
        that are ready."""
        timeout = max(wait.wake() - now, 0.0) if not self._spool else 0.0
        if self._pidfd < 0:
            timeout = min(timeout, 0.1)  # no pidfd: look at the process now and then
        try:
            events = self._wait_poll.poll(min(timeout, 3600.0) * 1000)
        except OSError as exc:
            raise ShellError(f"waiting on the terminal failed ({exc})") from exc
        if self._closed:
            raise ShellError("the session was closed while the call waited")
        for _, flags in events:
            if flags & select.POLLNVAL:
                raise ShellError("the session was closed while the call waited")
        return [fd for fd, _ in events]

    def _take_output(self, capture: OutputCapture, wait: _Wait, ready: list[int]) -> _Ended | None:
        """Read what the terminal holds, up to a sentinel of the session; see whether
        the shell is gone when there was nothing."""
        chunks = self._chunks()
        for index, chunk in enumerate(chunks):
            found = self._consume(chunk, capture)
            if found is None:
                continue
            kind, body = found
            # What came after the sentinel belongs to the next call.
            self._leftover += b"".join(chunks[index + 1 :])
            if kind is _Sentinel.MARK:
                wait.mark = body  # confirmed once the shell is seen at its prompt
                wait.next_probe = time.monotonic()
                break
            return self._sentinel_ended(kind, body, wait)
        if capture.live is not None:
            capture.live.tick()
        if chunks:
            wait.last_output = time.monotonic()
            if wait.mark is None:
                wait.next_probe = wait.last_output + _INPUT_PROBE_EVERY
        elif self._shell_gone(ready):
            return self._shell_exited(capture)
        return None

    def _sentinel_ended(self, kind: _Sentinel, body: bytes, wait: _Wait) -> _Ended:
        """The end a sentinel other than a prompt mark says."""
        if kind is _Sentinel.REPAIRED:
            self._repairing = False
            self._parse_prompt(body)
            return Reason.REPAIRED, None
        return self._ended_by(wait.killing_since), self._parse_prompt(body)

    def _shell_exited(self, capture: OutputCapture) -> _Ended:
        """The shell ended: pass on the last of its output, and release it."""
        for chunk in self._chunks():
            self._consume(chunk, capture)
        if self._starting:  # it died before it was set up: show why
            capture.write(self.masker.feed(self._startup_output))
        capture.write(self.masker.feed(self._scanner.flush()))
        self._ended()
        return Reason.EXITED, None

    def _ended_by(self, killing_since: float | None) -> Reason:
        return Reason.KILLED if killing_since is not None or self._limit_hit else Reason.DONE

    def _consume(
        self, chunk: bytes, capture: OutputCapture, *, idle: bool = False
    ) -> tuple[_Sentinel, bytes] | None:
        """Pass output on to the capture up to the first sentinel of the session.

        Returns the sentinel's kind and its body; what follows is kept in
        ``_leftover``. Sentinels that are not the session's are output like any other.
        While the shell starts, output up to the setup line's sentinel is dropped.
        ``idle``: no command runs, so a prompt mark is a late interrupt's new prompt,
        and the newline bash printed for that interrupt is not output.
        """
        rest = chunk
        while True:
            before, body, rest = self._scanner.feed(rest)
            if idle and body is not None and body.startswith(b"P" + self._prompt_token + b";"):
                before = before[:-1] if before.endswith(b"\n") else before
            if not self._starting:
                capture.write(self.masker.feed(before))
            elif len(self._startup_output) < _STARTUP_KEPT:
                self._startup_output += before[: _STARTUP_KEPT - len(self._startup_output)]
            if body is None:
                if rest:
                    continue
                return None
            if self._starting:
                if body.startswith(self._setup_nonce + b";"):
                    self._starting = False
                    if self._repairing:
                        self._leftover = rest
                        return _Sentinel.REPAIRED, body
                    self._parse_prompt(body)
                continue
            if body.startswith(self._nonce + b";"):
                self._leftover = rest
                return _Sentinel.DONE, body
            if body.startswith(b"P" + self._prompt_token + b";") and self._prompt_token:
                self._leftover = rest
                return _Sentinel.MARK, body
            capture.write(self.masker.feed(_MARK + body + _END))

    def _chunks(self) -> list[bytes]:
        """What was printed between calls, then everything readable now, in reads of
        64 KiB, at most 1 MiB per turn."""
        chunks = [self._spool.take()] if self._spool else []
        total = 0
        while total < 16 * _READ_SIZE:
            chunk = self._read()
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if len(chunk) < _READ_SIZE:
                break  # a short read emptied the terminal: the next wait will see more
        return chunks

    def _parse_prompt(self, body: bytes) -> int:
        """Take the working directory and the redirections from a sentinel's body
        (``NONCE;STATUS;AWAY;CWD``); return its status (-1: unreadable)."""
        fields = body.split(b";", 3)  # the directory, last, may hold ';' itself
        fields += [b""] * (4 - len(fields))
        _, status, away, cwd = fields
        self.cwd = cwd.decode("utf-8", errors="replace") or self.cwd
        self.redirected = [fd for fd, name in _STREAMS if name in away] if away else []
        return int(status) if status.lstrip(b"-").isdigit() else -1

    def _shell_gone(self, ready: list[int]) -> bool:
        if self._pidfd >= 0 and self._pidfd not in ready:
            return False
        return self.process is None or self.process.poll() is not None

    def _output_pending(self) -> bool:
        """Whether output is waiting to be read (on the terminal, or spooled)."""
        if self._spool:
            return True
        try:
            return bool(self._terminal_poll.poll(0))
        except OSError:
            return False

    def _input_unread(self) -> bool:
        """Whether the terminal holds input its reader has not taken yet.

        Opened for the question and closed at once: a descriptor of the terminal kept
        here would hide the shell's end (the terminal ends when its last one closes).
        """
        try:
            fd = os.open(self._tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return False
        try:
            queued = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
            return bool(struct.unpack("i", queued)[0])
        except OSError:
            return False
        finally:
            os.close(fd)

    def _waits_on_terminal(self) -> bool:
        try:
            group = os.tcgetpgrp(self._fd)
        except OSError:
            return False
        return procs.waiting_on_terminal(group, self._tty)

    def _shell_at_prompt(self) -> bool:
        """Whether the shell itself owns the terminal and waits on it (a prompt)."""
        pid = self.pid
        try:
            group = os.tcgetpgrp(self._fd)
        except OSError:
            return False
        return group == pid and procs.waiting_on_terminal(pid, self._tty)

    def _shell_replaced(self) -> bool:
        """Whether the shell's process now runs another program (``exec ...``)."""
        pid = self.pid
        if pid is None:
            return False
        try:
            group = os.tcgetpgrp(self._fd)
        except OSError:
            return False
        argv = procs.command_line(pid)
        return group == pid and argv is not None and argv != self._argv

    def _repair(self) -> None:
        """A bash that replaced ours (``exec bash``) has none of the session's settings:
        type the setup line to it (it reads it at its first prompt). Another program
        is left alone (when it reads the terminal, the call says it waits for input)."""
        pid = self.pid
        argv = procs.command_line(pid) if pid is not None else None
        if not argv:
            return
        program = os.path.basename(argv[0]).lstrip("-")
        if program != "bash":
            self.replaced_by = program
            return
        self._repairing = True
        self._argv = argv
        self._write(self._setup_line())

    # -- interrupts and the hard limit -------------------------------------------------

    def _hard_deadline(self) -> float | None:
        if self.hard_timeout is None or self._running_since is None:
            return None
        return self._running_since + self.hard_timeout

    def kill_foreground(self, hard_limit_of: float | None = None) -> None:
        """Kill the foreground job's process group (the shell itself survives).

        Done once per command: the hard-limit timer and a waiting call may both get
        here, and a second interrupt would reach the shell at its prompt. The timer
        passes ``hard_limit_of``, the start of the command it was set for: when that
        command has ended (and another may have begun), nothing is killed.
        """
        with self._kill_lock:
            if self._killed_command or self._running_since is None:
                return
            if hard_limit_of is not None:
                if self._running_since != hard_limit_of:
                    return  # a late timer: its command is over
                self._limit_hit = True
            self._killed_command = True
        shell = self.pid
        if shell is None:
            return
        try:
            group = os.tcgetpgrp(self._fd)
        except OSError:
            group = -1
        if group > 0 and group != shell:
            procs.kill_group(group)
        else:
            # The shell runs the command itself (a loop, a builtin): kill what it
            # started, then interrupt it back to its prompt.
            members = [p for p in procs.session_processes(shell) if p != shell]
            procs.kill_all(members)
        # The interrupt also stops the rest of the command line (`a; b`).
        try:
            os.kill(shell, signal.SIGINT)
        except OSError:
            pass

    def _arm_hard_limit(self) -> None:
        """Enforce the hard limit also while no call is waiting on the command."""
        self._disarm_hard_limit()
        if self.hard_timeout is None:
            return
        timer = threading.Timer(
            self.hard_timeout, self._hard_limit_reached, args=(self._running_since,)
        )
        timer.daemon = True
        timer.start()
        self._hard_timer = timer

    def _disarm_hard_limit(self) -> None:
        timer, self._hard_timer = self._hard_timer, None
        if timer is not None:
            timer.cancel()

    def _hard_limit_reached(self, started: float) -> None:
        if not self._closed:
            self.kill_foreground(hard_limit_of=started)
