"""The undo history: a few steps per file, kept in memory as small reverse edits.

An edit replaces one stretch of a file's text, so undoing it needs only that stretch's
old text and where it was, not a copy of the whole file. Each step also remembers a
fingerprint of the file as the edit left it: if the file changed since (another tool,
the user), undo refuses rather than throw those changes away.
"""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolplug_file_editor.textfile import TextFormat


def fingerprint(data: bytes | Sequence[bytes | memoryview]) -> tuple[int, int]:
    """A cheap check that a file still holds ``data`` (or these pieces): size and CRC-32."""
    pieces = [data] if isinstance(data, bytes) else data
    crc = 0
    for piece in pieces:
        crc = zlib.crc32(piece, crc)
    return sum(len(piece) for piece in pieces), crc


@dataclass(frozen=True)
class Step:
    """One edit, as what it takes to revert it.

    For an edit, ``text[start : start + inserted]`` of the edited file is put back to
    ``removed``. For a ``create`` (``created`` is true) the file is removed, and so
    are the folders listed in ``made_dirs`` if they are empty by then.
    """

    fmt: TextFormat
    after: tuple[int, int]
    start: int = 0
    inserted: int = 0
    removed: str = ""
    created: bool = False
    made_dirs: tuple[Path, ...] = ()


@dataclass
class History:
    """Undo steps by file, at most ``depth`` per file (the oldest are dropped)."""

    depth: int = 10
    _steps: dict[Path, deque[Step]] = field(default_factory=dict)

    def push(self, path: Path, step: Step) -> None:
        """Remember an edit of ``path``."""
        self._steps.setdefault(path, deque(maxlen=self.depth)).append(step)

    def last(self, path: Path) -> Step | None:
        """The most recent step for ``path``, left in place."""
        steps = self._steps.get(path)
        return steps[-1] if steps else None

    def drop_last(self, path: Path) -> None:
        """Forget the most recent step for ``path`` (after it was undone)."""
        steps = self._steps.get(path)
        if steps:
            steps.pop()
            if not steps:
                del self._steps[path]

    def steps_of(self, path: Path) -> int:
        """How many steps of ``path`` can be undone."""
        return len(self._steps.get(path, ()))

    def __len__(self) -> int:
        return sum(len(steps) for steps in self._steps.values())

    def clear(self) -> None:
        """Forget everything."""
        self._steps.clear()
