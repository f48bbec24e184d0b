"""What both engines share: the query, the results they yield, and how lines are cut.

An engine answers one of three questions about a query, as generators, so that the
caller can stop as soon as it has a page (the ripgrep engine then kills ``rg``):

- ``files(query)``: batches of the files with a match, in any order;
- ``counts(query)``: ``(file, count)`` pairs, in any order;
- ``lines(query)``: :class:`Line` entries, by file (in path order) and line.

Paths are relative to the workspace, with ``/`` separators.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# Defined in errors.py; importable from here as before.
from toolplug_grep.errors import PatternError as PatternError, SearchTimeout as SearchTimeout

#: The longest line shown, in characters; the rest is replaced by :data:`CUT_MARK`.
MAX_LINE = 500
CUT_MARK = " [... line cut]"
#: A NUL in a file's first this-many bytes makes it binary: it is not searched.
BINARY_WINDOW = 1 << 16
#: Why a pattern with a newline in it was refused.
NEWLINE_NEEDS_MULTILINE = (
    "a '\\n' can only match with multiline set to true (lines are searched one by one)"
)
#: How many problems (unreadable entries) are kept as examples.
KEPT_PROBLEMS = 5


@dataclass(frozen=True)
class Query:
    """One search, checked and resolved by the executor."""

    workspace: Path
    #: The searched file or directory, relative to the workspace ("" for all of it).
    target: str
    target_is_file: bool
    pattern: str
    case_insensitive: bool = False
    multiline: bool = False
    #: A ripgrep file type (``py``), already checked to exist.
    file_type: str | None = None
    #: The ``glob`` argument, compiled (see :mod:`~toolplug_grep.globs`).
    glob: FileGlob | None = None
    include_hidden: bool = False
    no_ignore: bool = False
    before: int = 0
    after: int = 0
    #: Content mode: lines wanted at most (the engine may stop after them).
    max_lines: int = 0
    timeout: float = 60.0


@dataclass(frozen=True)
class FileGlob:
    """The ``glob`` argument: on file names (no ``/``) or on paths below the target."""

    text: str
    regex: re.Pattern[str]
    on_path: bool
    #: A glob on the file name alone that every match passes (``*.ts`` for
    #: ``src/**/*.ts``), for an engine to drop other files early; None if unsure.
    name_hint: str | None

    def matches(self, path: str, target: str) -> bool:
        """Whether ``path`` (relative to the workspace) passes, searching ``target``."""
        if not self.on_path:
            return self.regex.fullmatch(path.rpartition("/")[2]) is not None
        below = path[len(target) + 1 :] if target else path
        return self.regex.fullmatch(below) is not None


@dataclass(frozen=True)
class Line:
    """A line of content output, as an engine yields it."""

    file: str
    number: int
    text: str
    is_match: bool


@dataclass
class Problems:
    """Entries a search could not read (permissions, vanished files): counted, a few kept."""

    count: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        """Count one problem, and keep its text if there is room."""
        self.count += 1
        if len(self.examples) < KEPT_PROBLEMS:
            self.examples.append(text)


def group_fault(pattern: str) -> int | None:
    """Where a regex's parentheses do not pair up: the index of the first ``)`` that
    closes nothing, else of the innermost ``(`` left open; None when they pair up.

    Escapes and character classes (nested ones too, as ripgrep has them) are skipped.
    ripgrep wraps a pattern as ``(?:PATTERN)`` before parsing it, so its own caret
    for such a fault may point into the wrapping instead of the pattern.
    """
    opened: list[int] = []
    pos, depth = 0, 0  # depth: of [...] classes
    while pos < len(pattern):
        char = pattern[pos]
        if char == "\\":
            pos += 2
            continue
        if depth:
            if pattern.startswith("[:", pos) and ":]" in pattern[pos + 2 :]:
                pos = pattern.index(":]", pos + 2) + 2
                continue
            if char == "[":
                depth += 1
                pos = _class_body(pattern, pos)
                continue
            if char == "]":
                depth -= 1
        elif char == "[":
            depth = 1
            pos = _class_body(pattern, pos)
            continue
        elif char == "(":
            opened.append(pos)
        elif char == ")":
            if not opened:
                return pos
            opened.pop()
        pos += 1
    return opened[-1] if opened else None


def _class_body(pattern: str, start: int) -> int:
    """Past a class's ``[``, its ``^`` and a leading ``]`` (a member, not the end)."""
    pos = start + 1
    if pattern.startswith("^", pos):
        pos += 1
    if pattern.startswith("]", pos):
        pos += 1
    return pos


def cut_line(text: str) -> str:
    """A line as shown: without a trailing ``\\r``, cut to :data:`MAX_LINE` characters."""
    text = text.removesuffix("\r")
    if len(text) <= MAX_LINE:
        return text
    return text[:MAX_LINE] + CUT_MARK


def path_key(path: str) -> list[str]:
    """Sort key of ripgrep's ``--sort=path``: by name at each level (``a/x`` before ``a.b``)."""
    return path.split("/")
