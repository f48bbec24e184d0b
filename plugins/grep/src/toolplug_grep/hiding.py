"""Files a ``tool_call`` hook hid from this search (`toolplug.hidden_paths`, a policy's
``!**/.env``): none of their lines, counts or names reach the model, and a note says how
many there are.

The note must not tell the model anything about what the hidden files hold, or it
could find a secret out pattern by pattern ("1 hidden file matches 'KEY=a'"). So the
count is of the hidden files among those the search reads, whatever they hold, found
by walking the searched directory as the search does (:func:`~toolplug_grep.portable.walk`
follows ripgrep's rules); and every result is screened, whichever engine found it.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolplug import HiddenPaths, hidden_paths

from toolplug_grep.portable import walk
from toolplug_grep.query import Line, Problems, Query


class Screen:
    """Drops what is hidden from an engine's answers, and words the note."""

    def __init__(self, hidden: HiddenPaths, query: Query) -> None:
        self.hidden = hidden
        self.root = str(query.workspace)
        self.count = sum(1 for path in walk(query, Problems()) if not self.keeps(path))

    def keeps(self, path: str) -> bool:
        """Whether a path (relative to the workspace) may be shown."""
        return not self.hidden.hides(f"{self.root}/{path}")

    def files(self, batches: Iterator[list[str]]) -> Iterator[list[str]]:
        """Batches of files with a match, without the hidden ones."""
        for batch in batches:
            kept = [path for path in batch if self.keeps(path)]
            if kept:
                yield kept

    def counts(self, pairs: Iterator[tuple[str, int]]) -> Iterator[tuple[str, int]]:
        """``(file, count)`` pairs, without the hidden files'."""
        return (pair for pair in pairs if self.keeps(pair[0]))

    def lines(self, lines: Iterator[Line]) -> Iterator[Line]:
        """Lines, without the hidden files'."""
        return (line for line in lines if self.keeps(line.file))

    def note(self) -> str | None:
        """The note for the model, when something in the searched files was hidden."""
        if not self.count:
            return None
        files = "1 file" if self.count == 1 else f"{self.count:,} files"
        return (
            f"({files} here {'is' if self.count == 1 else 'are'} hidden by "
            f"{self.hidden.by} and {'was' if self.count == 1 else 'were'} not searched; "
            "ask the user if you need them.)"
        )


def screen_for(query: Query) -> Screen | None:
    """The screen for this search, or ``None`` when no hook hid anything."""
    hidden = hidden_paths()
    return Screen(hidden, query) if hidden is not None else None
