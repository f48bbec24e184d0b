"""The audit log: two JSON lines per call that runs, one per call refused.

Before a call runs, its ``start`` line (the arguments and the decision) is written from
the call's own thread with one ``write`` to the file, opened in append mode: once the
tool runs, the line is with the operating system, so a call that kills its host (or a
host killed during the call) still leaves it. After the call, its ``end`` line (how
long it took, whether it failed) is only queued; so is the one ``refused`` line of a
call the policy refused. A log that is not a regular file (a FIFO) gets every line
through the queue, so that it never holds a call up.

One writer thread serves the queue of each log file, whatever the number of policies
writing to it; it wakes at most every :data:`BATCH_DELAY` and appends what gathered
with one ``write`` (whole lines only). A log that cannot be written is reported once,
as a warning on the ``toolplug`` logger, and the writer keeps trying with later lines.
What is queued when the interpreter exits is written first (waiting a few seconds at
most).

Arguments are masked and cut by :mod:`~toolplug_policy.secrets`. Each entry is one
line for every reader: the line separators JSON leaves raw (U+2028, U+2029, U+0085) are
written as ``\\u`` escapes.
"""

from __future__ import annotations

import atexit
import datetime
import errno
import itertools
import json
import logging
import os
import queue
import stat
import threading
import time
from pathlib import Path
from typing import Any

from toolplug_policy.secrets import MASK, MAX_STRING, masked

__all__ = [
    "BATCH_DELAY",
    "EXIT_WAIT",
    "MASK",
    "MAX_STRING",
    "AuditLog",
    "audit_log",
    "entry",
    "masked",
]

log = logging.getLogger("toolplug")

#: How long interpreter exit waits for a stuck log file.
EXIT_WAIT = 5.0
#: How long the writer lets entries gather before it writes them, in seconds.
BATCH_DELAY = 0.02

_calls = itertools.count(1)


def call_id() -> str:
    """A new id joining a call's ``start`` and ``end`` lines: unique in the file, even
    with several processes writing to it (``<pid>-<n>``)."""
    return f"{os.getpid()}-{next(_calls)}"


def entry(*, time: float, phase: str, **fields: Any) -> dict[str, Any]:
    """One line of the log (see docs/safety.md for the fields). ``time`` is a Unix time;
    ``arguments``, if given, may be the action itself (dumped and masked here)."""
    stamp = datetime.datetime.fromtimestamp(time, datetime.timezone.utc)
    line: dict[str, Any] = {"time": stamp.isoformat(timespec="milliseconds"), "phase": phase}
    for key, value in fields.items():
        if value is None and key in ("approved", "approved_by"):
            continue  # only for an ask
        if key == "arguments":
            dump = getattr(value, "model_dump", None)
            value = masked(dump(mode="json") if dump is not None else value)
        elif key == "duration":
            value = round(value, 6)
        line[key] = value
    return line


class AuditLog:
    """Appends entries to one file from a background thread; see the module docstring.

    Get one with :func:`audit_log` so that one file has one writer.
    """

    _STOP = object()

    def __init__(self, path: Path) -> None:
        self.path = path
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._warned = False
        #: The handle ``write_now`` writes with (``None`` until opened), and whether the
        #: file is not a regular one, whose lines all go through the queue.
        self._direct: int | None = None
        self._queued_only = False
        self._direct_lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._run, name=f"toolplug-audit:{path.name}", daemon=True
        )
        self._thread.start()

    def write(self, **fields: Any) -> None:
        """Queue one entry (the arguments of :func:`entry`); returns at once."""
        self._queue.put(fields)

    def write_now(self, **fields: Any) -> None:
        """Write one entry before returning, with one ``write`` to the file, when it is a
        regular file that can be opened; else queue it as :meth:`write` does."""
        data = _json_line(entry(**fields)).encode("utf-8")
        with self._direct_lock:
            if not self._queued_only:
                try:
                    if self._direct is None:
                        self._direct = _open_regular(self.path)
                    if self._direct is not None:
                        os.write(self._direct, data)
                        return
                    self._queued_only = True
                except OSError:
                    self._close_direct()
        self._queue.put(data)

    def _close_direct(self) -> None:
        """Forget the direct handle (after a failure, the next line tries again)."""
        handle, self._direct = self._direct, None
        if handle is not None:
            try:
                os.close(handle)
            except OSError:
                pass

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything queued so far is written (or failed); ``False`` on timeout."""
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def _run(self) -> None:
        handle = None
        stopping = False
        while not stopping:
            batch = [self._queue.get()]
            # Wake at most every BATCH_DELAY: a burst of calls costs one wake-up and one
            # write, not one each (each wake-up takes the GIL from the calls).
            time.sleep(BATCH_DELAY)
            while True:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            data: list[bytes] = []
            for item in batch:
                if item is self._STOP:
                    stopping = True
                    break
                if isinstance(item, threading.Event):
                    handle = self._append(handle, data)
                    data = []
                    item.set()
                    continue
                if isinstance(item, bytes):  # a line write_now could not write itself
                    data.append(item)
                    continue
                try:
                    data.append(_json_line(entry(**item)).encode("utf-8"))
                except Exception as exc:  # the writer must outlive any one bad entry
                    self.warn(exc)
            handle = self._append(handle, data)
        _close(handle)

    def _append(self, handle: Any, data: list[bytes]) -> Any:
        """Append the lines with one write; the handle to use next (``None`` after a failure)."""
        if not data:
            return handle
        try:
            if handle is None:
                handle = open(self.path, "ab", buffering=0)  # noqa: SIM115
            handle.write(b"".join(data))  # unbuffered: one write per batch
            return handle
        except Exception as exc:
            _close(handle)
            self.warn(exc)
            return None

    def warn(self, exc: Exception) -> None:
        """Report that the log cannot be written (once per log)."""
        if not self._warned:
            self._warned = True
            log.warning(
                "toolplug policy: the audit log %s cannot be written (%s); calls go "
                "on, and their entries are lost until it can",
                self.path,
                exc,
            )

    def close(self, timeout: float | None = EXIT_WAIT) -> None:
        """Write what is queued, then stop the thread (waiting ``timeout`` at most)."""
        self._queue.put(self._STOP)
        self._thread.join(timeout)
        with self._direct_lock:
            self._close_direct()


#: Characters that JSON leaves raw in a string but that some readers take for a line
#: break (Python's ``str.splitlines``, JavaScript before ES2019).
_LINE_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


def _json_line(line: dict[str, Any]) -> str:
    """One JSON line, readable where it can be; names that are not UTF-8 (surrogates
    from the file system) are written as \\u escapes, so the file stays valid UTF-8."""
    text = json.dumps(line, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(line, default=str) + "\n"  # all ASCII: no raw line breaks
    for char, escaped in _LINE_BREAKS.items():
        if char in text:  # only inside strings, where the escape means the same
            text = text.replace(char, escaped)
    return text + "\n"


def _open_regular(path: Path) -> int | None:
    """A handle appending to ``path`` if it is (or is created as) a regular file, else
    ``None``. Opened without waiting, so a FIFO with no reader is no hold-up."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO with no reader
            return None
        raise
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        return None
    return handle


def _close(handle: Any) -> None:
    if handle is not None:
        try:
            handle.close()
        except OSError:
            pass


_logs: dict[str, AuditLog] = {}
_logs_lock = threading.Lock()


def audit_log(path: Path) -> AuditLog:
    """The one writer for this file (created on first use)."""
    key = os.path.realpath(path)
    with _logs_lock:
        found = _logs.get(key)
        if found is None or not found._thread.is_alive():
            found = _logs[key] = AuditLog(path)
        return found


@atexit.register
def _flush_at_exit() -> None:
    with _logs_lock:
        logs = list(_logs.values())
        _logs.clear()
    for writer in logs:
        writer.close(EXIT_WAIT)
