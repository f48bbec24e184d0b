"""A stdio server's stderr: passed through to the host's, with its last lines kept.

A server that fails to start usually says why on stderr (a traceback, a missing
setting) and exits; the client only sees its stdout close. :class:`StderrTail` sits
between the two: the server writes into a pipe, a task on the client loop copies what
arrives to the host's ``sys.stderr`` (where the server's messages went before) and
keeps the last lines, so that the start failure can quote them.
"""

from __future__ import annotations

import asyncio
import codecs
import collections
import os
import sys
from typing import Any, TextIO

#: How many of the last lines are kept, and the longest line kept (in characters).
KEPT_LINES = 10
LINE_LIMIT = 300
# How long to wait for the rest of the output once the server has exited (a child it
# left behind may hold the pipe open; then what has arrived is enough).
DRAIN_TIMEOUT = 2.0


class StderrTail:
    """A pipe for one server process's stderr; :attr:`file` is what the process gets.

    Create it on the client loop, hand :attr:`file` to the transport, call
    :meth:`spawned` once the process was started (or failed to start), and
    :meth:`finish` when it has ended.
    """

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        #: The write end, for the server process (a file object with a descriptor).
        self.file: TextIO = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self._lines: collections.deque[str] = collections.deque(maxlen=KEPT_LINES)
        self._partial = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._reader = os.fdopen(read_fd, "rb", buffering=0)
        self._task = asyncio.get_running_loop().create_task(self._copy(), name="mcp-stderr")

    async def _copy(self) -> None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        fd = self._reader.fileno()

        def readable() -> None:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if chunk:
                self._take(self._decoder.decode(chunk))
            elif not done.done():
                done.set_result(None)

        loop.add_reader(fd, readable)
        try:
            await done
        finally:
            loop.remove_reader(fd)
            self._take(self._decoder.decode(b"", final=True))
            if self._partial:
                self._keep(self._partial)
                self._partial = ""
            self._reader.close()

    def _take(self, text: str) -> None:
        if not text:
            return
        _pass_through(text)
        *complete, self._partial = (self._partial + text).split("\n")
        for line in complete:
            self._keep(line)

    def _keep(self, line: str) -> None:
        line = line.rstrip("\r")
        if line.strip():
            self._lines.append(line if len(line) <= LINE_LIMIT else line[:LINE_LIMIT] + "...")

    def spawned(self) -> None:
        """Close this side's copy of the write end (the process has its own), so that
        the copying ends when the process does."""
        if not self.file.closed:
            self.file.close()

    async def finish(self, timeout: float = DRAIN_TIMEOUT) -> list[str]:
        """Wait (bounded) for the output up to the end; the last lines it had."""
        self.spawned()
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        if not done:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=timeout)
        return self.last_lines()

    def last_lines(self) -> list[str]:
        """The last non-empty lines the server wrote (at most :data:`KEPT_LINES`)."""
        return list(self._lines)


def _pass_through(text: str) -> None:
    """Write the server's output where it went before: the host's stderr."""
    target: Any = sys.stderr
    if target is None:
        return
    try:
        target.write(text)
        target.flush()
    except (OSError, ValueError):
        pass  # a closed or broken stderr: the lines are still kept
