"""The portable engine: ``os.scandir``, the ignore rules of :mod:`~toolplug_grep.rules`
and Python's ``re``, for when no ``rg`` is found. Slower, same results.

The walk keeps what ripgrep keeps: ignore files apply in the searched directory, below
it and above it; hidden entries are skipped unless asked for; symbolic links are
neither followed nor searched; what is not a regular file (a FIFO, a socket, a
device) is skipped, as ripgrep skips it, since reading one can block for ever; a file
with a NUL byte in its first 64 KiB is binary and skipped (ripgrep stops at the first
NUL: text after one is not searched either). Files come in ripgrep's ``--sort=path``
order. Patterns use Python's regex syntax, which agrees with ripgrep's on the common
constructs.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
import time
from collections.abc import Generator, Iterator

from toolplug_grep.errors import PatternError, SearchTimeout
from toolplug_grep.globs import type_names
from toolplug_grep.query import (
    BINARY_WINDOW,
    NEWLINE_NEEDS_MULTILINE,
    Line,
    Problems,
    Query,
)
from toolplug_grep.rules import Level, excluded_by, load_spec, parent_levels


def compile_pattern(query: Query) -> re.Pattern[str]:
    """The query's pattern for Python's ``re``, or a :class:`PatternError` saying where."""
    if not query.multiline and ("\n" in query.pattern or "\\n" in query.pattern):
        raise PatternError(NEWLINE_NEEDS_MULTILINE)
    flags = re.MULTILINE | (re.IGNORECASE if query.case_insensitive else 0)
    try:
        return re.compile(query.pattern, flags)
    except re.error as exc:
        where = f" at character {exc.pos + 1}" if exc.pos is not None else ""
        raise PatternError(f"{exc.msg}{where}") from None
    except (RecursionError, OverflowError) as exc:
        raise PatternError(f"it is too complex ({exc})") from None


def files(query: Query, problems: Problems) -> Generator[list[str], None, None]:
    """Batches (of one) of the files with a match."""
    regex = compile_pattern(query)
    for path, text in _texts(query, problems):
        if regex.search(text) is not None:
            yield [path]


def counts(query: Query, problems: Problems) -> Generator[tuple[str, int], None, None]:
    """``(file, count)``: matching lines, or matches in multiline mode."""
    regex = compile_pattern(query)
    for path, text in _texts(query, problems):
        if query.multiline:
            count = sum(1 for _ in regex.finditer(text))
        else:
            count = sum(1 for line in text.split("\n") if regex.search(line) is not None)
        if count:
            yield path, count


def lines(query: Query, problems: Problems) -> Generator[Line, None, None]:
    """Matching lines with their context, by file and line."""
    regex = compile_pattern(query)
    for path, text in _texts(query, problems):
        rows = text.split("\n")
        if text.endswith("\n"):
            rows.pop()
        matched = _matched_rows(regex, text, rows, query.multiline)
        if not matched:
            continue
        shown: dict[int, bool] = {}
        for row in sorted(matched):
            for near in range(max(0, row - query.before), min(len(rows), row + query.after + 1)):
                shown.setdefault(near, False)
            shown[row] = True
        for row in sorted(shown):
            yield Line(path, row + 1, rows[row], shown[row])


def _matched_rows(regex: re.Pattern[str], text: str, rows: list[str], multiline: bool) -> set[int]:
    if not multiline:
        return {i for i, row in enumerate(rows) if regex.search(row) is not None}
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row) + 1)
    matched: set[int] = set()
    for found in regex.finditer(text):
        first = _row_of(starts, found.start())
        last = _row_of(starts, max(found.start(), found.end() - 1))
        matched.update(range(first, min(last, len(rows) - 1) + 1))
    return matched


def _row_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1


def _texts(query: Query, problems: Problems) -> Iterator[tuple[str, str]]:
    """Every file to search with its text, in path order; binary files are skipped."""
    deadline = time.monotonic() + query.timeout
    for path in walk(query, problems):
        if time.monotonic() > deadline:
            raise SearchTimeout(query.timeout)
        try:
            data = _read_regular(query.workspace / path)
        except OSError as exc:
            problems.add(f"{path}: {exc.strerror or exc}")
            continue
        if data is None:  # a FIFO or a device put in place of a file since the walk
            continue
        nul = data.find(b"\0")
        if 0 <= nul < BINARY_WINDOW:
            continue
        if nul >= 0:  # ripgrep stops at a NUL: keep the lines before it
            data = data[: data.rfind(b"\n", 0, nul) + 1]
        yield path, data.decode("utf-8", errors="replace")


def _read_regular(path: os.PathLike[str]) -> bytes | None:
    """The bytes of ``path``, or None when it is not a regular file.

    Opened without blocking and checked on the open descriptor: opening a FIFO for
    reading waits for a writer, and reading a device may never end.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    with open(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return f.read()


def walk(query: Query, problems: Problems) -> Iterator[str]:
    """The files to search, relative to the workspace, in ripgrep's path order."""
    if query.target_is_file:
        yield query.target
        return
    start = query.workspace / query.target if query.target else query.workspace
    use_rules = not query.no_ignore
    levels = parent_levels(start) if use_rules else []
    prefix = f"{query.target}/" if query.target else ""
    names = type_names(query.file_type) if query.file_type else None
    for rel in _walk_dir(str(start), "", levels, query, problems):
        name = rel.rpartition("/")[2]
        if names is not None and names.fullmatch(name) is None:
            continue
        path = prefix + rel
        if query.glob is not None and not query.glob.matches(path, query.target):
            continue
        yield path


def _walk_dir(
    directory: str, rel: str, levels: list[Level], query: Query, problems: Problems
) -> Iterator[str]:
    try:
        with os.scandir(directory) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError as exc:
        problems.add(f"{rel.rstrip('/') or '.'}: {exc.strerror or exc}")
        return
    if not query.no_ignore:
        spec = load_spec(directory, {entry.name for entry in entries})
        if spec is not None:
            levels = [*levels, Level(spec, drop=len(rel))]
    for entry in entries:
        if not query.include_hidden and entry.name.startswith("."):
            continue
        child = rel + entry.name
        try:
            if entry.is_symlink():
                continue
            is_dir = entry.is_dir()
            if not is_dir and not entry.is_file():  # a FIFO, a socket, a device
                continue
        except OSError as exc:
            problems.add(f"{child}: {exc.strerror or exc}")
            continue
        if levels and excluded_by(levels, child, is_dir):
            continue
        if is_dir:
            yield from _walk_dir(entry.path, child + "/", levels, query, problems)
        else:
            yield child
