"""The process table: who belongs to a shell session, who waits on the terminal, and kills.

Linux exposes all of this in ``/proc``; elsewhere the helpers fall back to process
groups (``killpg``), which covers everything but processes that left the group.
"""

from __future__ import annotations

import os
import platform
import signal
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

_PROC = "/proc"

#: The ``read`` system call's number, as ``/proc/<pid>/syscall`` reports it.
_READ_SYSCALL = {"x86_64": 0, "aarch64": 63, "riscv64": 63, "arm64": 63}.get(platform.machine())


@dataclass(frozen=True)
class ProcInfo:
    """The fields of ``/proc/<pid>/stat`` that the shell session needs."""

    pid: int
    ppid: int
    pgrp: int
    session: int
    state: str


def read_stat(pid: int) -> ProcInfo | None:
    """Parse ``/proc/<pid>/stat``; ``None`` when the process is gone (or no /proc)."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may itself hold spaces or parentheses.
    fields = raw[raw.rfind(b")") + 2 :].split()
    return ProcInfo(pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0].decode())


def command_line(pid: int) -> list[str] | None:
    """A process's arguments (``/proc/<pid>/cmdline``); ``None`` when it cannot be read."""
    try:
        with open(f"{_PROC}/{pid}/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return [os.fsdecode(arg) for arg in raw.split(b"\0")[:-1]]


class SharedScan(Generic[T]):
    """A scan of ``/proc`` that callers in many threads at once share.

    Closing hundreds of shells at once (a server's shutdown) would read the whole
    process table once per shell, hundreds of thousands of files. Here a caller joins
    the next scan that starts after it asked (never one already under way, which may
    have missed a process it must see), so callers arriving together cost one scan.
    """

    def __init__(self, scan: Callable[[], T]) -> None:
        self._scan = scan
        self._lock = threading.Lock()
        self._running: Future[T] | None = None  # the scan under way
        self._queued: Future[T] | None = None  # the scan to start once it ends

    def __call__(self) -> T:
        before = joined = None
        with self._lock:
            if self._queued is not None:
                joined = self._queued  # a scan that has not started yet
            elif self._running is not None:
                before = self._running
                mine = self._queued = Future()
            else:
                mine = self._running = Future()
        if joined is not None:
            return joined.result()
        if before is not None:  # lead the next scan, once the one under way ends
            before.exception()  # (waits; its failure is its own callers')
            with self._lock:
                self._running, self._queued = mine, None
        try:
            result = self._scan()
        except BaseException as exc:
            mine.set_exception(exc)
            raise
        else:
            mine.set_result(result)
            return result
        finally:
            with self._lock:
                if self._running is mine:
                    self._running = None


def _pids() -> list[int]:
    try:
        return [int(n) for n in os.listdir(_PROC) if n.isdigit()]
    except OSError:
        return []


def _read_table() -> tuple[ProcInfo, ...]:
    infos = (read_stat(pid) for pid in _pids())
    return tuple(info for info in infos if info is not None)


def _read_environs() -> tuple[tuple[int, frozenset[bytes]], ...]:
    found = []
    for pid in _pids():
        try:
            with open(f"{_PROC}/{pid}/environ", "rb") as f:
                found.append((pid, frozenset(f.read().split(b"\0"))))
        except OSError:
            continue
    return tuple(found)


_table = SharedScan(_read_table)
_environs = SharedScan(_read_environs)


def all_processes() -> list[ProcInfo]:
    """Every process we can see (empty without ``/proc``)."""
    return list(_table())


def session_processes(leader: int) -> list[int]:
    """The live processes of a shell's session: its members and all their descendants.

    Descendants are followed through parent links too, so a child that started a new
    session of its own (``setsid``) while its parent still lives is found as well.
    """
    table = all_processes()
    found = {p.pid for p in table if p.session == leader or p.pid == leader}
    children: dict[int, list[int]] = {}
    for p in table:
        children.setdefault(p.ppid, []).append(p.pid)
    stack = list(found)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return sorted(found)


def kill_all(pids: Iterable[int], sig: int = signal.SIGKILL) -> None:
    """Send a signal to each pid, ignoring the ones already gone."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def kill_group(pgrp: int, sig: int = signal.SIGKILL) -> bool:
    """Signal a process group; False when it no longer exists."""
    try:
        os.killpg(pgrp, sig)
    except OSError:
        return False
    return True


def waiting_on_terminal(pgrp: int, tty_path: str) -> bool:
    """Whether a process of the group is blocked reading the terminal ``tty_path``.

    A process that waits on stdin sits in a ``read`` system call on the terminal:
    ``/proc/<pid>/syscall`` names the call and its file descriptor, and the descriptor's
    link names the terminal. Returns False when that cannot be seen.
    """
    if _READ_SYSCALL is None:
        return False
    for proc in all_processes():
        if proc.pgrp != pgrp or proc.state not in ("S", "D"):
            continue
        try:
            with open(f"{_PROC}/{proc.pid}/syscall") as f:
                call = f.read().split()
        except OSError:
            continue
        if len(call) < 2 or not call[0].isdigit() or int(call[0]) != _READ_SYSCALL:
            continue
        try:
            target = os.readlink(f"{_PROC}/{proc.pid}/fd/{int(call[1], 16)}")
        except (OSError, ValueError):
            continue
        if target == tty_path:
            return True
    return False


def wait_gone(pids: Iterable[int], timeout: float) -> bool:
    """Wait (bounded) until none of the pids is alive (zombies count as gone)."""
    import time

    pending = list(pids)
    deadline = time.monotonic() + timeout
    while True:
        pending = [p for p in pending if _alive(p)]
        if not pending or time.monotonic() >= deadline:
            return not pending
        time.sleep(0.005)


def _alive(pid: int) -> bool:
    info = read_stat(pid)
    return info is not None and info.state not in ("Z", "X")


def processes_with_env(entry: bytes) -> list[int]:
    """Processes whose environment holds ``entry`` (``NAME=value``).

    This finds what left the session and its parent behind (``setsid``, daemons that
    fork twice): they still carry the environment the session gave them.
    """
    return [pid for pid, environ in _environs() if entry in environ]
