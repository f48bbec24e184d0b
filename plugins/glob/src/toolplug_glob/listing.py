"""What both engines share: the options of a walk, where found files go, what went wrong.

An engine walks a directory and hands the relative paths of the files it keeps to a
*sink* in batches, while it walks: the caller matches and dates each batch as it comes,
so that its own work overlaps the walk instead of following it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from toolplug_glob.errors import SearchTimeout

_T = TypeVar("_T")

#: Receives a batch of file paths relative to the walked directory.
Sink = Callable[[list[str]], None]


@dataclass(frozen=True)
class WalkOptions:
    """Which files a walk keeps, and how long it may take."""

    #: List hidden files and walk hidden directories (``.git`` included).
    include_hidden: bool = False
    #: List what ``.gitignore``, ``.ignore``, ``.rgignore`` and ``.git/info/exclude`` exclude.
    include_ignored: bool = False
    #: Follow symbolic links (to files and into directories). Off, links are skipped:
    #: ripgrep cannot tell where a link leads before it follows it.
    follow_links: bool = False
    #: Apply the ignore files of the directories above the walked one. Off when one of
    #: their rules names the walked directory or one on the way to it (see
    #: :func:`~toolplug_glob.walk.start_is_named`).
    ignore_parents: bool = True
    #: Seconds before the walk is stopped.
    timeout: float = 60.0
    #: When the whole call must end; None: ``timeout`` seconds after the walk starts.
    deadline: Deadline | None = None
    #: A glob every wanted file *name* matches (``*.py``), or None. Only a hint: an
    #: engine may use it to send fewer paths, and the caller still matches each path.
    name_glob: str | None = None
    #: ``name_glob`` compiled with this package's glob rules (set along with it).
    name_regex: re.Pattern[str] | None = None

    def clock(self) -> Deadline:
        """The deadline of this walk: the call's, or one starting now."""
        return self.deadline or Deadline.after(self.timeout)


@dataclass
class WalkReport:
    """What could not be read during a walk."""

    #: How many entries could not be read (permissions, broken links, link loops).
    problems: int = 0
    #: A few of those problems, as text.
    examples: list[str] = field(default_factory=list)
    #: When set, filters ``(mtime, path)`` pairs of the paths sent to the sink: it
    #: drops files an engine's shortcut let through that the ignore rules exclude.
    keep: Callable[[list[tuple[int, str]]], list[tuple[int, str]]] | None = None


class Deadline:
    """When a call must end. Every phase that can take long checks it: reading ignore
    files, the walk, re-checking what ripgrep let through, dating the matches."""

    #: How many items a loop handles between two looks at the clock, by default.
    EVERY = 64

    def __init__(self, timeout: float, end: float) -> None:
        self.timeout = timeout
        self.end = end

    @classmethod
    def after(cls, timeout: float) -> Deadline:
        """A deadline ``timeout`` seconds from now."""
        return cls(timeout, time.monotonic() + timeout)

    def remaining(self) -> float:
        """Seconds left (negative once passed)."""
        return self.end - time.monotonic()

    def check(self) -> None:
        """Raise :class:`SearchTimeout` once the deadline has passed."""
        if time.monotonic() > self.end:
            raise SearchTimeout(self.timeout)

    def checked(self, items: Iterable[_T], every: int = EVERY) -> Iterator[_T]:
        """``items``, with a look at the clock every ``every`` of them (reading the clock
        costs a tenth of a microsecond: where one item may take long, look at each)."""
        for count, item in enumerate(items):
            if count % every == 0:
                self.check()
            yield item
