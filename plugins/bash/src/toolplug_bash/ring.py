"""A background process's output: a bounded ring in memory, spilled to a file past it.

Every byte has an offset in the stream (0 is the process's first byte). The ring keeps
the last ``ring_size`` bytes; once the stream outgrows the ring, the whole stream from
offset 0 (up to ``save_limit`` bytes) also goes to a file, so a reader that fell
behind the ring still finds its bytes there. Memory stays at ``ring_size`` plus one
read, however much the process prints. Readers wait on the log's condition for new
bytes (:meth:`OutputLog.wait`).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO


@dataclass(frozen=True)
class Slice:
    """What a read of ``[start, end)`` found: its first and last bytes (the whole of a
    short slice is in ``head``), how many bytes between them were left out, and how
    many of those are lost (past the file's limit, no longer in the ring)."""

    head: bytes
    tail: bytes
    left_out: int
    lost: int
    end: int


class OutputLog:
    """One process's output stream (thread-safe: a reader thread writes, calls read)."""

    def __init__(self, ring_size: int, save_path: Path, save_limit: int) -> None:
        self.ring_size = ring_size
        self.save_path = save_path
        self.save_limit = save_limit
        self._ring = bytearray()
        #: The stream offset of the ring's first byte, and of the stream's end.
        self._start = 0
        self.total = 0
        #: Bytes written to the file (it holds the stream's offsets [0, saved)).
        self.saved = 0
        self._file: BinaryIO | None = None
        #: Set when the stream has ended (the terminal closed).
        self.ended = False
        self.changed = threading.Condition()

    @property
    def spilled(self) -> bool:
        """Whether the stream outgrew the ring (the file exists)."""
        return self.saved > 0

    def write(self, data: bytes) -> None:
        """Append bytes to the stream."""
        if not data:
            return
        with self.changed:
            if self._file is None and len(self._ring) + len(data) > self.ring_size:
                # The ring overflows for the first time: from now on the file has it all.
                self._file = open(self.save_path, "wb")  # noqa: SIM115 - closed in end()
                self._save(bytes(self._ring))
            if self._file is not None:
                self._save(data)
            self._ring += data
            self.total += len(data)
            overflow = len(self._ring) - self.ring_size
            if overflow > 0:
                # (A bytearray drops its start without copying the rest.)
                del self._ring[:overflow]
                self._start += overflow
            self.changed.notify_all()

    def _save(self, data: bytes) -> None:
        room = self.save_limit - self.saved
        if room > 0 and self._file is not None:
            self._file.write(data[:room])
            self._file.flush()
            self.saved += min(len(data), room)

    def end(self) -> None:
        """The stream ended: close the file, wake every reader."""
        with self.changed:
            self.ended = True
            if self._file is not None:
                self._file.close()
                self._file = None
            self.changed.notify_all()

    def read(self, start: int, limit: int) -> Slice:
        """The bytes from offset ``start`` to the end: all of them when they are at most
        ``limit``, else the first and last ``limit // 2``."""
        with self.changed:
            end = self.total
            size = end - start
            if size <= limit:
                return Slice(self._bytes(start, end), b"", 0, self._lost(start, end), end)
            half = limit // 2
            head = self._bytes(start, start + half)
            tail = self._bytes(end - (limit - half), end)
            left_out = size - len(head) - len(tail)
            return Slice(head, tail, left_out, self._lost(start, end), end)

    def text_since(self, start: int) -> tuple[bytes, int]:
        """What the ring holds from ``start`` (or from its own start), and that offset."""
        with self.changed:
            begin = max(start, self._start)
            return bytes(self._ring[begin - self._start :]), begin

    def _bytes(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the stream: from the ring, the file, or both."""
        if start >= self._start:
            return bytes(self._ring[start - self._start : end - self._start])
        from_ring = bytes(self._ring[: max(end - self._start, 0)])
        file_end = min(end, self._start, self.saved)
        from_file = b""
        if file_end > start:
            if self._file is not None:
                self._file.flush()
            try:
                fd = os.open(self.save_path, os.O_RDONLY)
            except OSError:
                fd = -1
            if fd >= 0:
                try:
                    from_file = os.pread(fd, file_end - start, start)
                finally:
                    os.close(fd)
        return from_file + from_ring

    def _lost(self, start: int, end: int) -> int:
        """Bytes of [start, end) that are neither in the file nor in the ring."""
        return max(min(end, self._start) - max(start, self.saved), 0)
