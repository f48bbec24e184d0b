"""``view``: numbered lines of a file, read as a stream, and directory listings.

A file is read line by line up to the end of the requested range and never loaded
whole, so a range near the start of a huge file costs only those lines. Lines are
numbered as they are read, before anything is cut, so every number shown is right.

A small file (:data:`SMALL_FILE` bytes at most) that the caller has already read whole
is cut into lines in memory instead, a few C-level calls in place of a Python step per
line. That path gives exactly what the stream would, and hands the cases it does not
cover (a line of ``line_limit`` characters or more, a decoding error) back to the stream.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from toolplug import safe_text

from toolplug_file_editor.errors import EditorError
from toolplug_file_editor.textfile import TextFormat, next_fallback

#: Characters read at a time when skipping the rest of an overlong line.
_CHUNK = 1 << 16
#: Bytes read at a time when counting the lines of a file.
_COUNT_CHUNK = 1 << 20
_SUBFOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


#: Files up to this size may be viewed from memory (see the module's docstring).
SMALL_FILE = 1 << 16


def _strip_ending(piece: str) -> str:
    return piece.removesuffix("\n").removesuffix("\r")


def _read_line(stream: IO[str], limit: int) -> tuple[str, int] | None:
    """The next line of ``stream`` without its line ending, at most ``limit`` characters
    kept, and the line's full length."""
    piece = stream.readline(limit)
    if not piece:
        return None
    if piece.endswith("\n"):
        text = _strip_ending(piece)
        return text, len(text)
    length = len(piece)
    while more := stream.readline(_CHUNK):  # skip the rest of an overlong line
        if more.endswith("\n"):
            length += len(_strip_ending(more))
            break
        length += len(more)
    return piece, length


def _open_text(fd: int, fmt: TextFormat) -> IO[str]:
    encoding = fmt.encoding
    if fmt.bom:  # codecs that read and drop the byte order mark themselves
        encoding = "utf-8-sig" if encoding == "utf-8" else encoding[:6]
    # ``newline="\n"``: only "\n" ends a line, as in `grep -n` and the editing commands.
    os.lseek(fd, 0, os.SEEK_SET)
    return open(fd, encoding=encoding, newline="\n", closefd=False)


@dataclass(slots=True)
class Lines:
    """What :func:`read_lines` found: the lines, whether the file ended, the format used."""

    #: The lines shown, numbered from ``first``; each at most ``line_limit`` characters.
    texts: list[str]
    #: The full length of each line; ``None`` when the reader knows no line was cut.
    lengths: list[int] | None
    first: int
    at_end: bool
    fmt: TextFormat
    #: Lines read from the start of the file (all of them when ``at_end``).
    seen: int


#: What a collector returns: the texts, their full lengths, ``at_end`` and ``seen``.
_Found = tuple[list[str], "list[int] | None", bool, int]


def read_lines(
    fd: int,
    fmt: TextFormat,
    first: int,
    last: int | None,
    *,
    line_limit: int,
    budget: int,
    data: bytes | None = None,
) -> Lines:
    """Lines ``first`` to ``last`` (``None``: to the end) of the open file ``fd``.

    Each line keeps at most ``line_limit`` characters, and reading stops once the kept
    text passes ``budget`` characters. ``at_end`` tells whether the end of the file was
    reached. When the guessed encoding fails further into the file, the next fallback
    encoding is tried from the start. ``data``, when given, is the whole file (at most
    :data:`SMALL_FILE` bytes), already read from ``fd``.
    """
    current: TextFormat | None = fmt
    while current is not None:
        try:
            found = None
            if data is not None and current.ascii_compatible:
                found = _collect_memory(data, current, first, last, line_limit, budget)
            if found is None:
                found = _collect(fd, current, first, last, line_limit, budget)
        except UnicodeDecodeError:
            current = next_fallback(current)
            continue
        texts, lengths, at_end, seen = found
        return Lines(texts, lengths, first, at_end, current, seen)
    raise EditorError("The file cannot be decoded as text in any supported encoding.")


def _collect(
    fd: int, fmt: TextFormat, first: int, last: int | None, line_limit: int, budget: int
) -> _Found:
    if fmt.ascii_compatible:
        return _collect_bytes(fd, fmt, first, last, line_limit, budget)
    return _collect_text(fd, fmt, first, last, line_limit, budget)


def _collect_memory(
    data: bytes, fmt: TextFormat, first: int, last: int | None, line_limit: int, budget: int
) -> _Found | None:
    """:func:`_collect_bytes` for a whole file in memory, or ``None`` where it may differ.

    The result is the stream's, line for line: the lines before the range are counted,
    not decoded; a line ends at a newline and loses one carriage return before it,
    except a last line without a newline, which is kept as it is. Where the stream
    would take another way, ``None`` sends the caller to the stream: a line of
    ``line_limit`` characters or more (one the stream may cut, or read in parts), or
    text from the range on that does not decode (the stream decodes less of it when
    the range or the budget ends first).
    """
    body = data[len(fmt.bom) :] if fmt.bom else data
    number = first - 1
    if number:
        parts = body.split(b"\n", number)
        if len(parts) <= number:  # the file ends before the range
            return [], None, True, len(parts) - 1 + (1 if parts[-1] else 0)
        body = parts[-1]
    try:
        text = body.decode(fmt.encoding)
    except UnicodeDecodeError:
        return None
    end = len(text)  # where the range's text ends
    if last is None:
        texts = text.split("\n")
        rest = texts.pop()  # after the last newline: a line without one, or nothing
        at_end = True
    else:
        texts = text.split("\n", last - number)
        rest = texts.pop()
        at_end = True
        if len(texts) == last - number:  # the range is whole; ``rest`` follows it
            at_end, rest, end = not rest, "", end - len(rest)
    if rest:
        texts.append(rest)
    # A line under line_limit characters has under 4 * line_limit bytes in these
    # encodings: the stream reads it in one piece (see _collect_bytes) and keeps it whole.
    if not _all_shorter(text, end, line_limit) and max(map(len, texts)) >= line_limit:
        return None
    if "\r" in text:
        texts = [line.removesuffix("\r") for line in texts[:-1]] + [
            texts[-1] if rest else texts[-1].removesuffix("\r")
        ]
    if len(text) + 8 * len(texts) > budget:  # maybe over it
        used = 0
        for index, line in enumerate(texts):
            used += len(line) + 8  # the number column and the newline, as in the stream
            if used > budget and index:
                return texts[:index], None, False, number + index + 1
    return texts, None, at_end, number + len(texts)


def _all_shorter(text: str, end: int, limit: int) -> bool:
    """Whether a quick look shows every line of ``text[:end]`` shorter than ``limit``.

    When each stretch of ``limit // 2`` characters holds a newline, no line can reach
    ``limit``: one that long would hold a whole stretch. ``False`` means: count them.
    """
    step = limit // 2
    find = text.find
    for start in range(0, end, step):  # noqa: SIM110 (a loop costs a third less than all())
        if find("\n", start, min(start + step, end)) < 0:
            return False
    return True


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
) -> _Found:
    """:func:`_collect` for encodings where a newline is the byte ``\\n``: lines before
    the range are skipped without being decoded."""
    texts: list[str] = []
    lengths: list[int] = []
    used = 0
    encoding = fmt.encoding
    byte_limit = line_limit * 4  # at most 4 bytes a character in these encodings
    with open(fd, "rb", closefd=False) as handle:
        handle.seek(len(fmt.bom))
        number = _skip_lines(handle, first - 1)
        if number < first - 1:
            return texts, lengths, True, number
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
                return texts, lengths, True, number
            number += 1
            used += len(text) + 8  # the number column and the newline
            if used > budget and texts:
                return texts, lengths, False, number
            texts.append(text)
            lengths.append(length)
        return texts, lengths, handle.read(1) == b"", number


def _collect_text(
    fd: int, fmt: TextFormat, first: int, last: int | None, line_limit: int, budget: int
) -> _Found:
    """:func:`_collect` for UTF-16 and UTF-32: read through a text stream."""
    texts: list[str] = []
    lengths: list[int] = []
    used = 0
    number = 0
    with _open_text(fd, fmt) as stream:
        while last is None or number < last:
            line = _read_line(stream, line_limit)
            if line is None:
                return texts, lengths, True, number
            number += 1
            if number < first:
                continue
            text, length = line
            used += len(text) + 8  # the number column and the newline
            if used > budget and texts:
                return texts, lengths, False, number
            texts.append(text)
            lengths.append(length)
        return texts, lengths, stream.read(1) == "", number


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

    Names are shown one per line, with bytes that are not UTF-8 and control
    characters escaped (:func:`toolplug.safe_text`).
    """
    shown = safe_text(shown, one_line=True)
    entries: list[str] = []
    size = 0
    skipped = 0
    for relative, is_dir in _walk(dir_fd, depth=2):
        entry = f"{shown.rstrip('/')}/{safe_text(relative, one_line=True)}{'/' if is_dir else ''}"
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
