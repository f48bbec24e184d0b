"""The audit log: one JSON line per call, appended by a background thread.

A call only puts its entry on a queue, so a slow or stuck file (a full disk, a network
mount, a FIFO nobody reads) never holds a call up. One writer thread serves each log
file, whatever the number of policies writing to it; it wakes at most every
:data:`BATCH_DELAY` and appends what gathered with one ``write`` to a file opened in
append mode (whole lines only). A log that cannot be written is reported once,
as a warning on the ``toolplug`` logger, and the writer keeps trying with later lines.
What is queued when the interpreter exits is written first (waiting a few seconds at
most).

Values of arguments whose key looks like a secret (``token``, ``password``,
``api_key``, ``authorization``...) are written as ``"***"``, at any depth; long strings
are cut.
"""

from __future__ import annotations

import atexit
import datetime
import json
import logging
import os
import queue
import re
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("toolplug")

#: Keys whose values are not written: matched anywhere in the key, case-insensitively.
SECRET_KEYS = re.compile(
    r"token|passw(or)?d|passphrase|secret|api[-_]?key|apikey|authori[sz]ation|auth[-_]?header"
    r"|credential|private[-_]?key|access[-_]?key|session[-_]?id|cookie|bearer|^pwd$|^auth$",
    re.IGNORECASE,
)
MASK = "***"
#: The longest string value written whole; longer ones are cut with a note.
MAX_STRING = 2000
#: How long interpreter exit waits for a stuck log file.
EXIT_WAIT = 5.0
#: How long the writer lets entries gather before it writes them, in seconds.
BATCH_DELAY = 0.02


def masked(value: Any, depth: int = 0) -> Any:
    """``value`` with secret-looking keys' values masked and long strings cut."""
    if depth > 50:
        return "..."
    if isinstance(value, dict):
        return {
            k: MASK if isinstance(k, str) and SECRET_KEYS.search(k) else masked(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [masked(v, depth + 1) for v in value]
    if isinstance(value, str) and len(value) > MAX_STRING:
        return f"{value[:MAX_STRING]}... ({len(value) - MAX_STRING:,} more characters)"
    return value


def entry(
    *,
    time: float,
    tool: str,
    arguments: Any,
    decision: str,
    rules: list[int],
    duration: float,
    is_error: bool,
    approved: bool | None = None,
    approved_by: str | None = None,
) -> dict[str, Any]:
    """One line of the log (see docs/safety.md for the fields). ``time`` is a Unix time;
    ``arguments`` may be the action itself (dumped here, off the call's thread)."""
    dump = getattr(arguments, "model_dump", None)
    if dump is not None:
        arguments = dump(mode="json")
    stamp = datetime.datetime.fromtimestamp(time, datetime.timezone.utc)
    line: dict[str, Any] = {
        "time": stamp.isoformat(timespec="milliseconds"),
        "tool": tool,
        "arguments": masked(arguments),
        "decision": decision,
        "rule": rules,
        "duration": round(duration, 6),
        "is_error": is_error,
    }
    if approved is not None:
        line["approved"] = approved
        line["approved_by"] = approved_by
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
        self._thread = threading.Thread(
            target=self._run, name=f"toolplug-audit:{path.name}", daemon=True
        )
        self._thread.start()

    def write(self, **fields: Any) -> None:
        """Queue one entry (the arguments of :func:`entry`); returns at once."""
        self._queue.put(fields)

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
                try:
                    data.append(_json_line(entry(**item)).encode("utf-8"))
                except Exception as exc:  # the writer must outlive any one bad entry
                    self._warn(exc)
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
            self._warn(exc)
            return None

    def _warn(self, exc: Exception) -> None:
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


def _json_line(line: dict[str, Any]) -> str:
    """One JSON line, readable where it can be; names that are not UTF-8 (surrogates
    from the file system) are written as \\u escapes, so the file stays valid UTF-8."""
    text = json.dumps(line, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(line, default=str)
    return text + "\n"


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
