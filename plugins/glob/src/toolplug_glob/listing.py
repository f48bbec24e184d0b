"""What both engines share: the options of a walk, where found files go, what went wrong.

An engine walks a directory and hands the relative paths of the files it keeps to a
*sink* in batches, while it walks: the caller matches and dates each batch as it comes,
so that its own work overlaps the walk instead of following it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

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
    #: A glob every wanted file *name* matches (``*.py``), or None. Only a hint: an
    #: engine may use it to send fewer paths, and the caller still matches each path.
    name_glob: str | None = None
    #: ``name_glob`` compiled with this package's glob rules (set along with it).
    name_regex: re.Pattern[str] | None = None


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


class SearchTimeout(TimeoutError):
    """The walk took longer than its timeout and was stopped."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"the search took longer than {timeout:g} seconds and was stopped")
        self.timeout = timeout
