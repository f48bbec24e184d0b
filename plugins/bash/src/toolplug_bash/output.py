"""What a command printed: masked as it streams, bounded in memory, rendered for a model.

The stream flows ``SecretMasker`` -> ``OutputCapture`` (-> ``LiveOutput``). The capture
keeps the first ``head`` bytes and a ring of the last ``tail`` bytes; once the output
outgrows both, the whole stream (up to ``save_limit`` bytes) also goes to a file the
model can page through. Memory stays at ``head + tail`` plus one read, however much a
command prints. A :class:`LiveOutput` passes the output of a long command on to the
host while it runs, at most every half second.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from toolplug import safe_text

#: What a masked secret reads as.
MASK = b"********"


class SecretMasker:
    """Replace secret values in a byte stream, also when one spans two chunks."""

    def __init__(self, secrets: Iterable[str]) -> None:
        values = {s.encode() for s in secrets if s}
        # Longest first, so a secret that contains another is masked whole.
        self._secrets = sorted(values, key=len, reverse=True)
        self._keep = max((len(s) for s in self._secrets), default=1) - 1
        self._carry = b""

    def mask(self, data: bytes) -> bytes:
        """Mask every secret in ``data`` (a whole text, no streaming)."""
        for secret in self._secrets:
            data = data.replace(secret, MASK)
        return data

    def feed(self, chunk: bytes) -> bytes:
        """Take the next chunk; return the masked bytes that are safe to pass on."""
        if not self._secrets:
            return chunk
        data = self._carry + chunk
        cut = max(len(data) - self._keep, 0)
        # Hold back a secret that starts before the cut but may end after it.
        for secret in self._secrets:
            start = data.find(secret, max(cut - len(secret) + 1, 0))
            while 0 <= start < cut:
                if start + len(secret) > cut:
                    cut = start
                    break
                start = data.find(secret, start + 1)
        self._carry = data[cut:]
        return self.mask(data[:cut])

    def flush(self) -> bytes:
        """The masked remainder at the end of the stream."""
        rest, self._carry = self._carry, b""
        return self.mask(rest)


class OutputCapture:
    """The head, a tail ring and (past the limit) a file of one command's output."""

    def __init__(self, limit: int, save_path: str | Path, save_limit: int) -> None:
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.save_path = save_path
        self.save_limit = save_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.saved = 0
        self._file: BinaryIO | None = None
        #: Where the output also goes as it arrives, when a host watches it live.
        self.live: LiveOutput | None = None

    def write(self, data: bytes) -> None:
        """Add bytes to the capture."""
        if not data:
            return
        if self.live is not None:
            self.live.write(data)
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        overflow = len(self.tail) - self.tail_limit
        if overflow > 0:
            if self._file is None:
                self._open_file()
            self._save(bytes(self.tail[:overflow]))
            del self.tail[:overflow]

    def _open_file(self) -> None:
        self._file = open(self.save_path, "wb")  # noqa: SIM115 - closed in finish()
        self._save(bytes(self.head))

    def _save(self, data: bytes) -> None:
        room = self.save_limit - self.saved
        if room <= 0 or self._file is None:
            return
        data = data[:room]
        self._file.write(data)
        self.saved += len(data)

    def finish(self) -> None:
        """Write the tail to the saved file (if there is one) and close it."""
        if self._file is None:
            return
        self._save(bytes(self.tail))
        self._file.close()
        self._file = None

    def view(self) -> tuple[bytes, bytes, int]:
        """The head, the tail, and how many bytes between them are left out."""
        return bytes(self.head), bytes(self.tail), self.total - len(self.head) - len(self.tail)


#: Printable ASCII, tab and newline: output of these bytes only (the common case)
#: decodes to itself, with nothing for :func:`render` to remove.
_PLAIN = b"\t\n" + bytes(range(0x20, 0x7F))


class LiveOutput:
    """A long command's output, passed on while it runs: ``send(total_bytes, text)``.

    Nothing is sent for the first ``every`` seconds (a quick command sends nothing),
    then the output that arrived since the last report, at most once per ``every``
    seconds (the reader calls :meth:`tick` as it waits), and the rest when the call
    ends (:meth:`finish`). ``total_bytes`` is how much the command has printed so far,
    so it grows with each report. At most ``keep`` bytes wait between reports; of more,
    the start is dropped and a line says how much.
    """

    def __init__(
        self,
        send: Callable[[int, str], None],
        every: float = 0.5,
        *,
        keep: int = 64 * 1024,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.send = send
        self.every = every
        self.keep = keep
        self.clock = clock
        self.started = clock()
        self.due = self.started + every
        self.pending = bytearray()
        self.dropped = 0
        self.total = 0

    def write(self, data: bytes) -> None:
        """Take output as it arrives (masked already)."""
        self.total += len(data)
        self.pending += data
        excess = len(self.pending) - self.keep
        if excess > 0:
            del self.pending[:excess]
            self.dropped += excess

    def tick(self) -> None:
        """Send what waits, if a report is due."""
        if self.pending and self.clock() >= self.due:
            self._send(final=False)

    def finish(self) -> None:
        """The call ends: send the rest, if the command ran long enough to be reported."""
        if self.pending and self.clock() >= self.started + self.every:
            self._send(final=True)

    def _send(self, *, final: bool) -> None:
        data = bytes(self.pending)
        if not final:
            # Hold back a character cut in two by the read (UTF-8 is at most 4 bytes).
            cut = _utf8_complete(data)
            data, self.pending = data[:cut], bytearray(data[cut:])
        else:
            self.pending = bytearray()
        note = f"[... {self.dropped} bytes not shown live ...]\n" if self.dropped else ""
        self.dropped = 0
        self.due = self.clock() + self.every
        if data or note:
            self.send(self.total - len(self.pending), note + render(data))


def _utf8_complete(data: bytes) -> int:
    """How many bytes of ``data`` end on a whole UTF-8 character."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:  # ASCII: whole (stray continuation bytes after it stay invalid)
            return len(data)
        if byte >= 0xC0:  # a lead byte: is its character whole?
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) if back >= needed else len(data) - back
    return len(data)


def render(data: bytes) -> str:
    """Terminal output as the text a screen shows: decoded, escapes stripped.

    Invalid UTF-8 becomes U+FFFD; then :func:`toolplug.safe_text` (``terminal=True``)
    does what a screen does: a carriage return rewinds the line (so a progress bar
    leaves only its last state), backspaces erase, and colour and other escape
    sequences, and stray control characters, are removed.
    """
    if not data.translate(None, _PLAIN):
        # No escape, carriage return, backspace, control or non-ASCII byte: nothing
        # below would change the text. (Deleting the plain bytes is one quick pass in
        # C; a regular expression's scan takes ten times as long.)
        return data.decode("ascii")
    return safe_text(data.decode("utf-8", errors="replace"), terminal=True)
