"""What an edit looks like to the model: a numbered snippet and a unified diff.

Both are built from the old text and the splice alone, on the few lines around the
change, so showing an edit costs the same in a 10-line file and a 100,000-line one.
"""

from __future__ import annotations

import difflib
import re

from toolplug import safe_text

from toolplug_file_editor.editing import Splice

#: Lines of context shown around an edit in the snippet.
SNIPPET_CONTEXT = 4
#: Lines of context in the diff.
DIFF_CONTEXT = 3
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


#: Line numbers below this have their column made once and kept (about 60 bytes each).
_KEPT_COLUMNS = 1 << 12


class _Columns:
    """The number columns of rows, ``"\\n     7\\t"``: formatting a number costs more
    than the rest of a row, and the same small numbers come back call after call."""

    def __init__(self) -> None:
        self._kept: list[str] = []

    def __call__(self, first: int, count: int) -> list[str]:
        end = first + count
        if first < 0 or end > _KEPT_COLUMNS:
            return [f"\n{number:6}\t" for number in range(first, end)]
        kept = self._kept
        if len(kept) < end:
            grown = min(max(end, 2 * len(kept), 256), _KEPT_COLUMNS)
            # A new list, never one grown in place: another thread may be reading the old.
            kept = kept + [f"\n{number:6}\t" for number in range(len(kept), grown)]
            self._kept = kept
        return kept[first:end]


_columns = _Columns()


def numbered(lines: list[str], first: int) -> str:
    """Lines as ``cat -n`` prints them, numbered from ``first``.

    What a terminal would act on in a line (ESC, a lone carriage return, U+202E...) is
    shown escaped (:func:`toolplug.safe_text`); tabs are kept.
    """
    if not lines:
        return ""
    rows = [""] * (2 * len(lines))
    rows[0::2] = _columns(first, len(lines))
    rows[1::2] = lines
    rows[0] = rows[0][1:]  # no newline before the first row
    # One scan of the whole text: the rows' own newlines and tabs are kept.
    return safe_text("".join(rows))


def _window(text: str, start: int, end: int, context: int) -> tuple[int, int]:
    """The stretch of whole lines around ``text[start:end]``, ``context`` lines each side.

    Returns the offset where its first line starts and where its last line ends (at
    that line's newline, or the end of the text).
    """
    begin = text.rfind("\n", 0, start) + 1
    for _ in range(context):
        if begin == 0:
            break
        begin = text.rfind("\n", 0, begin - 1) + 1
    last = end - 1 if end > start else start
    stop = text.find("\n", last)
    if stop == -1:
        return begin, len(text)
    for _ in range(context):
        following = text.find("\n", stop + 1)
        if following == -1:
            if stop + 1 < len(text):  # a last line without a newline
                stop = len(text)
            break
        stop = following
    return begin, stop


def _split(chunk: str) -> list[str]:
    """Lines of a chunk of whole lines, without their line endings."""
    if chunk.endswith("\n"):
        chunk = chunk[:-1]
    return [line.removesuffix("\r") for line in chunk.split("\n")] if chunk else []


class Change:
    """One splice of a text, shown as a snippet of the result and as a diff."""

    def __init__(self, text: str, splice: Splice, start_line: int) -> None:
        """``start_line`` is the line number of ``splice.start`` in ``text``."""
        self.text = text
        self.splice = splice
        self.start_line = start_line

    def _around(self, context: int) -> tuple[int, str, str]:
        """The first line number, and the old and new lines around the change."""
        text, splice = self.text, self.splice
        begin, stop = _window(text, splice.start, splice.end, context)
        first = self.start_line - text.count("\n", begin, splice.start)
        old = text[begin:stop]
        new = text[begin : splice.start] + splice.new + text[splice.end : stop]
        return first, old, new

    def snippet(self, limit: int) -> str:
        """The numbered lines of the new text around the change."""
        first, _, new = self._around(SNIPPET_CONTEXT)
        return cut(numbered(_split(new), first), limit, "the snippet")

    def diff(self, path: str, limit: int) -> str:
        """The unified diff of the change, with the file's line numbers."""
        first, old, new = self._around(DIFF_CONTEXT)
        shift = first - 1
        lines = []
        for line in difflib.unified_diff(
            _split(old), _split(new), f"a/{path}", f"b/{path}", n=DIFF_CONTEXT, lineterm=""
        ):
            if line.startswith("@@"):
                line = _HUNK.sub(lambda m: _shifted(m, shift), line)
            lines.append(line)
        return cut("\n".join(lines), limit, "the diff")


def _shifted(match: re.Match[str], shift: int) -> str:
    old_start, old_len, new_start, new_len = match.groups()
    return (
        f"@@ -{int(old_start) + shift}{old_len or ''} +{int(new_start) + shift}{new_len or ''} @@"
    )


def cut(text: str, limit: int, what: str) -> str:
    """``text`` cut to about ``limit`` characters with a note saying so."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {what} was cut after {limit} characters]"
