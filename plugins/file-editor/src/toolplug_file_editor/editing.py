"""The edits themselves, on text: where a replacement or insertion goes, or why it cannot.

Each planner returns a :class:`Splice`, one stretch of the text and what replaces it;
the executor applies it, writes the file and records the reverse splice for undo.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from toolplug_file_editor.errors import EditorError
from toolplug_file_editor.textfile import line_count

#: How many match positions an error lists at most.
MAX_LISTED = 20
#: The longest `old_str` (characters) for which the whitespace hint is looked for.
HINT_MAX_CHARS = 1 << 20
# A line as `view` shows it: optional spaces, the number, a tab. Spaces and tabs only:
# `\s*` would run over line breaks too, and rescan them from every line start.
_VIEW_PREFIX = re.compile(r"^[ \t]*\d+\t", re.MULTILINE)
_SPACE = re.compile(r"\s+")
#: Characters of the text squeezed at a time by the whitespace hint.
_SQUEEZE_CHUNK = 1 << 16


@dataclass(frozen=True)
class Splice:
    """Replace ``text[start:end]`` by ``new``."""

    start: int
    end: int
    new: str


def line_of(text: str, offset: int) -> int:
    """The 1-based line number of the character at ``offset``."""
    return text.count("\n", 0, offset) + 1


def _with_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _positions(text: str, needle: str, limit: int) -> list[int]:
    found: list[int] = []
    index = text.find(needle)
    while index != -1 and len(found) < limit:
        found.append(index)
        index = text.find(needle, index + len(needle))
    return found


def plan_replace(text: str, old: str, new: str, shown_path: str, newline: str = "\n") -> Splice:
    """Replace the one occurrence of ``old`` by ``new``; errors say how to fix the call.

    ``newline`` is the file's line ending. In a file with CRLF line endings, ``old``
    written with plain ``\\n`` still matches, and the lines of ``new`` get CRLF endings,
    as ``insert`` gives them.
    """
    if old == new:
        raise EditorError("`old_str` and `new_str` are the same, so there is nothing to change.")
    positions = _positions(text, old, MAX_LISTED + 1)
    # Cheap tests first: `"\r\n" in text` scans the whole file.
    if not positions and "\n" in old and "\r" not in old and (newline == "\r\n" or "\r\n" in text):
        old = _with_crlf(old)
        positions = _positions(text, old, MAX_LISTED + 1)
    if "\n" in new and (newline == "\r\n" or "\r\n" in old):
        new = _with_crlf(new)
    if not positions:
        raise EditorError(_not_found_message(text, old, shown_path))
    if len(positions) > 1:
        total = text.count(old)
        lines = ", ".join(str(line_of(text, p)) for p in positions[:MAX_LISTED])
        more = f" (and {total - MAX_LISTED} more)" if total > MAX_LISTED else ""
        raise EditorError(
            f"`old_str` occurs {total} times in {shown_path}, starting at lines {lines}{more}. "
            "It must occur exactly once: add surrounding lines to `old_str` to pick one."
        )
    return Splice(positions[0], positions[0] + len(old), new)


def _not_found_message(text: str, old: str, shown_path: str) -> str:
    message = f"`old_str` was not found in {shown_path}; it must match the file exactly."
    lines = loose_match_lines(text, old, MAX_LISTED)
    if lines:
        listed = ", ".join(str(line) for line in lines)
        return (
            f"{message} Text that differs only in whitespace (spaces, tabs, line breaks "
            f"or indentation) starts at line(s) {listed}. View those lines and copy "
            "their whitespace exactly."
        )
    if _VIEW_PREFIX.search(old):
        return (
            f"{message} `old_str` seems to include the line numbers that `view` prints; "
            "leave them out and copy only the text after the tab."
        )
    return f"{message} View the file and copy the text, including whitespace and indentation."


def loose_match_lines(text: str, old: str, limit: int) -> list[int]:
    """Lines where ``old`` occurs if every run of whitespace may differ (up to ``limit``).

    Linear: both texts are squeezed (each run of whitespace becomes one space) and the
    squeezed ``old`` is searched with ``str.find``; the hint is skipped for an ``old``
    over :data:`HINT_MAX_CHARS` characters.
    """
    if len(old) > HINT_MAX_CHARS:
        return []
    needle = _SPACE.sub(" ", old).strip(" ")
    if not needle:
        return []
    squeezed, chunks = _squeeze(text)
    lines: list[int] = []
    line, counted = 1, 0
    at = squeezed.find(needle)
    while at != -1 and len(lines) < limit:
        offset = _original_offset(text, chunks, at)
        line += text.count("\n", counted, offset)
        counted = offset
        lines.append(line)
        at = squeezed.find(needle, at + len(needle))  # no overlaps, as finditer
    return lines


def _squeeze(text: str) -> tuple[str, list[tuple[int, int, int]]]:
    """``text`` with each whitespace run as one space, squeezed in chunks; returns it and
    the chunks as (squeezed start, original start, original end), to map offsets back."""
    pieces: list[str] = []
    chunks: list[tuple[int, int, int]] = []
    start, squeezed_at = 0, 0
    while start < len(text):
        end = min(start + _SQUEEZE_CHUNK, len(text))
        run = _SPACE.match(text, end)  # never split a run of whitespace between chunks
        if run is not None:
            end = run.end()
        piece = _SPACE.sub(" ", text[start:end])
        chunks.append((squeezed_at, start, end))
        pieces.append(piece)
        squeezed_at += len(piece)
        start = end
    return "".join(pieces), chunks


def _original_offset(text: str, chunks: list[tuple[int, int, int]], at: int) -> int:
    """The offset in ``text`` of the squeezed offset ``at`` (a non-space character)."""
    index = bisect.bisect_right(chunks, at, key=lambda chunk: chunk[0]) - 1
    squeezed, position, end = chunks[index]
    for run in _SPACE.finditer(text, position, end):
        plain = run.start() - position  # the characters before this run
        if squeezed + plain > at:
            break
        squeezed += plain + 1
        position = run.end()
    return position + (at - squeezed)


def plan_insert(text: str, insert_line: int, new: str, newline: str) -> Splice:
    """Insert ``new`` as whole lines after line ``insert_line`` (0 inserts at the top).

    The inserted lines take the file's line ending; inserting after the last line of a
    file that does not end with a newline keeps it that way.
    """
    total = line_count(text)
    if not 0 <= insert_line <= total:
        raise EditorError(
            f"`insert_line` {insert_line} is out of range: the file has {total} line(s), so "
            f"`insert_line` must be between 0 (the top) and {total} (after the last line)."
        )
    if newline == "\r\n":
        new = _with_crlf(new)
    offset = _offset_after_line(text, insert_line)
    if offset == len(text) and text and not text.endswith("\n"):
        piece = newline + (new[: -len(newline)] if new.endswith(newline) else new)
    else:
        piece = new if new.endswith("\n") else new + newline
    return Splice(offset, offset, piece)


def _offset_after_line(text: str, line: int) -> int:
    """Where line ``line + 1`` starts (the end of the text when there is none)."""
    index = -1
    for _ in range(line):
        index = text.find("\n", index + 1)
        if index == -1:
            return len(text)
    return index + 1
