"""``view``: numbered lines of a file, read as a stream, and directory listings.

A file is read line by line up to the end of the requested range and never loaded
whole, so a range near the start of a huge file costs only those lines. Lines are
numbered as they are read, before anything is cut, so every number shown is right.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from toolplug import printable

from toolplug_file_editor.errors import EditorError
from toolplug_file_editor.textfile import TextFormat, next_fallback

#: Characters read at a time when skipping the rest of an overlong line.
_CHUNK = 1 << 16
#: Bytes read at a time when counting the lines of a file.
_COUNT_CHUNK = 1 << 20
_SUBFOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@dataclass(slots=True)
class Line:
    """One line as shown: its number, its text (maybe cut) and its full length."""

    number: int
    text: str
    length: int

    @property
    def cut(self) -> bool:
        """Whether the text is only the start of the line."""
        return len(self.text) < self.length


def _strip_ending(piece: str) -> str:
    return piece.removesuffix("\n").removesuffix("\r")


def _read_line(stream: IO[str], limit: int) -> Line | None:
    """The next line of ``stream`` without its line ending, at most ``limit`` characters kept."""
    piece = stream.readline(limit)
    if not piece:
        return None
    if piece.endswith("\n"):
        text = _strip_ending(piece)
        return Line(0, text, len(text))
    length = len(piece)
    while more := stream.readline(_CHUNK):  # skip the rest of an overlong line
        if more.endswith("\n"):
            length += len(_strip_ending(more))
            break
        length += len(more)
    return Line(0, piece, length)


def _open_text(fd: int, fmt: TextFormat) -> IO[str]:
    encoding = fmt.encoding
    if fmt.bom:  # codecs that read and drop the byte order mark themselves
        encoding = "utf-8-sig" if encoding == "utf-8" else encoding[:6]
    # ``newline="\n"``: only "\n" ends a line, as in `grep -n` and the editing commands.
    os.lseek(fd, 0, os.SEEK_SET)
    return open(fd, encoding=encoding, newline="\n", closefd=False)


@dataclass
class Lines:
    """What :func:`read_lines` found: the lines, whether the file ended, the format used."""

    lines: list[Line]
    at_end: bool
    fmt: TextFormat
    #: Lines read from the start of the file (all of them when ``at_end``).
    seen: int


def read_lines(
    fd: int, fmt: TextFormat, first: int, last: int | None, *, line_limit: int, budget: int
) -> Lines:
    """Lines ``first`` to ``last`` (``None``: to the end) of the open file ``fd``.

    Each line keeps at most ``line_limit`` characters, and reading stops once the kept
    text passes ``budget`` characters. ``at_end`` tells whether the end of the file was
    reached. When the guessed encoding fails further into the file, the next fallback
    encoding is tried from the start.
    """
    current: TextFormat | None = fmt
    while current is not None:
        try:
            lines, at_end, seen = _collect(fd, current, first, last, line_limit, budget)
        except UnicodeDecodeError:
            current = next_fallback(current)
            continue
        return Lines(lines, at_end, current, seen)
    raise EditorError("The file cannot be decoded as text in any supported encoding.")


def _collect(
    fd: int, fmt: TextFormat, first: int, last: int | None, line_limit: int, budget: int
) -> tuple[list[Line], bool, int]:
    if fmt.ascii_compatible:
        return _collect_bytes(fd, fmt, first, last, line_limit, budget)
    return _collect_text(fd, fmt, first, last, line_limit, budget)


def _skip_lines(handle: IO[bytes], count: int) -> int:
    """Move past ``count`` lines, counting newlines in blocks; returns the lines skipped.

    A last line without a newline counts as a line when the end comes first.
    """
    skipped = 0
    size = 1 << 14  # small first blocks for ranges near the top, then bigger ones
    tail = b"\n"
    while skipped < count:
        position = handle.tell()
        block = handle.read(size)
        size = min(size * 2, _COUNT_CHUNK)
        if not block:
            return skipped + (tail != b"\n")
        tail = block[-1:]
        found = block.count(b"\n")
        if skipped + found < count:
            skipped += found
            continue
        # Split off the lines still to skip in one call; what is left starts the next line.
        rest = block.split(b"\n", count - skipped)[-1]
        handle.seek(position + len(block) - len(rest))
        skipped = count
    return skipped


def _finish_line(handle: IO[bytes], raw: bytes, encoding: str, limit: int) -> tuple[str, int]:
    """Decode a line read without its newline (overlong, or the last line of the file).

    Returns its first ``limit`` characters and its full length; the rest of an overlong
    line is read in blocks and counted, not kept.
    """
    decoder = codecs.getincrementaldecoder(encoding)()
    text = decoder.decode(raw)
    length = len(text)
    while more := handle.readline(_CHUNK):  # skip the rest of an overlong line
        ended = more.endswith(b"\n")
        length += len(decoder.decode(more[:-1] if ended else more))
        if ended:
            break
    length += len(decoder.decode(b"", final=True))
    return text[:limit], length


def _collect_bytes(
    fd: int, fmt: TextFormat, first: int, last: int | None, line_limit: int, budget: int
) -> tuple[list[Line], bool, int]:
    """:func:`_collect` for encodings where a newline is the byte ``\\n``: lines before
    the range are skipped without being decoded."""
    lines: list[Line] = []
    used = 0
    encoding = fmt.encoding
    byte_limit = line_limit * 4  # at most 4 bytes a character in these encodings
    with open(fd, "rb", closefd=False) as handle:
        handle.seek(len(fmt.bom))
        number = _skip_lines(handle, first - 1)
        if number < first - 1:
            return lines, True, number
        readline = handle.readline
        while last is None or number < last:
            raw = readline(byte_limit)
            if raw.endswith(b"\n"):  # the common case, kept short
                text = raw[:-1].decode(encoding).removesuffix("\r")
                length = len(text)
                if length > line_limit:
                    text = text[:line_limit]
            elif raw:
                text, length = _finish_line(handle, raw, encoding, line_limit)
            else:
                return lines, True, number
            number += 1
            used += len(text) + 8  # the number column and the newline
            if used > budget and lines:
                return lines, False, number
            lines.append(Line(number, text, length))
        return lines, handle.read(1) == b"", number


def _collect_text(
    fd: int, fmt: TextFormat, first: int, last: int | None, line_limit: int, budget: int
) -> tuple[list[Line], bool, int]:
    """:func:`_collect` for UTF-16 and UTF-32: read through a text stream."""
    lines: list[Line] = []
    used = 0
    number = 0
    with _open_text(fd, fmt) as stream:
        while last is None or number < last:
            line = _read_line(stream, line_limit)
            if line is None:
                return lines, True, number
            number += 1
            if number < first:
                continue
            used += len(line.text) + 8  # the number column and the newline
            if used > budget and lines:
                return lines, False, number
            line.number = number
            lines.append(line)
        return lines, stream.read(1) == "", number


def count_lines(fd: int) -> int:
    """The number of lines of an open file in an ASCII-compatible encoding, read in blocks."""
    total = 0
    tail = b""
    with open(fd, "rb", closefd=False) as handle:
        handle.seek(0)
        while block := handle.read(_COUNT_CHUNK):
            total += block.count(b"\n")
            tail = block[-1:]
    return total + (1 if tail and tail != b"\n" else 0)


def list_directory(dir_fd: int, shown: str, limit: int) -> str:
    """Files and folders two levels deep in the open folder ``dir_fd``, hidden ones left out.

    Names that are not UTF-8 are shown escaped (:func:`toolplug.printable`).
    """
    entries: list[str] = []
    size = 0
    skipped = 0
    for relative, is_dir in _walk(dir_fd, depth=2):
        entry = f"{shown.rstrip('/')}/{printable(relative)}{'/' if is_dir else ''}"
        if size + len(entry) + 1 > limit:
            skipped += 1
            continue
        entries.append(entry)
        size += len(entry) + 1
    header = (
        f"Files and folders up to 2 levels deep in {shown}, hidden items left out:\n"
        f"{shown.rstrip('/')}/"
    )
    body = "\n".join([header, *entries])
    if not entries and not skipped:
        body += "\n(empty)"
    if skipped:
        body += f"\n[... {skipped} more entries not shown. View a subfolder to see its entries.]"
    return body


def _walk(dir_fd: int, depth: int) -> Iterator[tuple[str, bool]]:
    """(relative path, is a folder) of visible entries, sorted; links are not followed,
    and subfolders are opened relative to their parent, never by path."""
    try:
        with os.scandir(dir_fd) as scan:
            items = [(e.name, e.is_dir(follow_symlinks=False)) for e in scan]
    except OSError:
        return
    items = sorted(item for item in items if not item[0].startswith("."))
    for name, is_dir in items:
        yield name, is_dir
        if is_dir and depth > 1:
            try:
                child = os.open(name, _SUBFOLDER, dir_fd=dir_fd)
            except OSError:
                continue
            try:
                for relative, child_is_dir in _walk(child, depth - 1):
                    yield f"{name}/{relative}", child_is_dir
            finally:
                os.close(child)
