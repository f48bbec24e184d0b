"""What both engines share: the options of a listing and its result."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ListingOptions:
    """Which files a listing keeps, and how long it may take."""

    #: List hidden files and walk hidden directories (``.git`` included).
    include_hidden: bool = False
    #: List what ``.gitignore``, ``.ignore``, ``.rgignore`` and ``.git/info/exclude`` exclude.
    include_ignored: bool = False
    #: Seconds before the walk is stopped.
    timeout: float = 60.0


@dataclass
class Listing:
    """Files found below a directory (relative to it), and what could not be read."""

    files: list[str]
    #: How many entries could not be read (permissions, broken links, link loops).
    problems: int = 0
    #: A few of those problems, as text.
    examples: list[str] = field(default_factory=list)


class SearchTimeout(TimeoutError):
    """The walk took longer than its timeout and was stopped."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"the search took longer than {timeout:g} seconds and was stopped")
        self.timeout = timeout
