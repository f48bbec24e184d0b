"""Applying an update's hunks to a file's text: where each hunk goes, or why it cannot.

Lines are found as Codex finds them, in passes of growing tolerance: exactly, then
ignoring trailing whitespace, then ignoring leading and trailing whitespace, then also
reading typographic dashes, quotes and odd spaces as their ASCII forms. A pass is only
tried when the stricter ones found nothing, and a hunk placed by a tolerant pass is
reported in the result, never applied silently. Each hunk is searched after the one
before it; a hunk marked ``*** End of File`` must end the file.

The file keeps its own bytes wherever the patch does not change them: context lines are
kept as the file has them (not as the patch wrote them), added lines take the file's
line ending (that of its first line), and a file that does not end with a newline
still does not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toolplug_file_editor.errors import EditorError
from toolplug_file_editor.patch_parse import Hunk
from toolplug_file_editor.textfile import newline_of

_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000",
            " ",
        ),
    }
)


def _exact(line: str) -> str:
    return line


def _rstrip(line: str) -> str:
    return line.rstrip()


def _strip(line: str) -> str:
    return line.strip()


def _ascii(line: str) -> str:
    return line.strip().translate(_PUNCTUATION)


#: The passes, strictest first, and how a result names each tolerant one.
PASSES: tuple[tuple[Callable[[str], str], str], ...] = (
    (_exact, ""),
    (_rstrip, "ignoring trailing whitespace"),
    (_strip, "ignoring leading and trailing whitespace"),
    (_ascii, "ignoring whitespace and reading typographic dashes, quotes and spaces as ASCII"),
)


@dataclass
class Lines:
    """A file's text as lines without their endings, plus what it takes to rebuild it.

    ``raw`` are the lines as split at ``\\n`` (a CRLF line keeps its ``\\r``); ``keys``
    the same lines without the ``\\r``, which is what hunks are matched against.
    """

    raw: list[str]
    final_newline: bool
    carriage: str
    _keys: dict[int, list[str]]

    @classmethod
    def of(cls, text: str) -> Lines:
        """Split ``text``: a CRLF file's lines all carry their ``\\r`` while edited."""
        carriage = "\r" if newline_of(text) == "\r\n" else ""
        raw = text.split("\n")
        final_newline = raw[-1] == ""
        if final_newline:
            raw.pop()
        elif carriage and raw:
            raw[-1] += "\r"  # removed again by text() when the file ends without one
        return cls(raw, final_newline, carriage, {})

    def keys(self, level: int) -> list[str]:
        """The lines as pass ``level`` compares them (made once, when first needed)."""
        found = self._keys.get(level)
        if found is None:
            plain = [line[:-1] if line.endswith("\r") else line for line in self.raw]
            found = plain if level == 0 else [PASSES[level][0](line) for line in plain]
            self._keys[level] = found
        return found

    def text(self, raw: list[str]) -> str:
        """The file's text for the lines ``raw``, with its final newline kept as it was."""
        if not raw:
            return ""
        joined = "\n".join(raw)
        if self.final_newline:
            return joined + "\n"
        return joined[:-1] if self.carriage and joined.endswith("\r") else joined


@dataclass(frozen=True)
class Applied:
    """An update's result: the new text and notes on hunks placed by a tolerant pass."""

    text: str
    notes: list[str]


def apply_hunks(text: str, hunks: tuple[Hunk, ...], shown: str) -> Applied:
    """Apply ``hunks`` to ``text`` (the file ``shown``); :class:`EditorError` if one fails."""
    lines = Lines.of(text)
    edits: list[tuple[int, int, list[str]]] = []
    notes: list[str] = []
    at = 0
    for number, hunk in enumerate(hunks, 1):
        if hunk.context is not None:
            found = seek(lines, [hunk.context], at, at_end=False)
            if found is None:
                raise EditorError(
                    f"{shown}: hunk {number} (patch line {hunk.line}) was not applied: its "
                    f"`@@ {hunk.context}` line was not found"
                    f"{' after the previous hunk' if at else ''}. Nothing was changed. "
                    "View the file and copy that line exactly."
                )
            at = found[0] + 1
            _note(notes, shown, number, "its @@ line", found[1])
        start, count, level, ops = _place(lines, hunk, at, shown, number)
        _note(notes, shown, number, "it", level)
        edits.append((start, count, _replacement(lines, start, ops)))
        at = start + count
    raw = lines.raw
    for start, count, new in reversed(edits):
        raw[start : start + count] = new
    return Applied(lines.text(raw), notes)


def _note(notes: list[str], shown: str, number: int, what: str, level: int) -> None:
    if level:
        notes.append(f"{shown}: hunk {number} matched only {PASSES[level][1]}; check {what}.")


def _place(
    lines: Lines, hunk: Hunk, at: int, shown: str, number: int
) -> tuple[int, int, int, tuple[tuple[str, str], ...]]:
    """Where the hunk's old lines are: (start, count, pass, the ops to apply there)."""
    ops = hunk.lines
    old = hunk.old
    if not old:  # only added lines: after the @@ line, else at the end of the file
        start = len(lines.raw) if hunk.context is None or hunk.at_end else at
        return start, 0, 0, ops
    found = seek(lines, old, at, at_end=hunk.at_end)
    while found is None and old and old[-1] == "" and ops[-1] == (" ", ""):
        # A trailing empty context line stands for the file's last newline (Codex).
        ops, old = ops[:-1], old[:-1]
        found = seek(lines, old, at, at_end=hunk.at_end)
    if found is None:
        raise EditorError(_mismatch(lines, hunk, at, shown, number))
    return found[0], len(old), found[1], ops


def seek(lines: Lines, pattern: list[str], start: int, *, at_end: bool) -> tuple[int, int] | None:
    """The first index at or after ``start`` where ``pattern`` occurs, and the pass that
    found it; with ``at_end``, only a match that ends the file counts."""
    size = len(pattern)
    last = len(lines.raw) - size
    if last < start:
        return None
    for level, (key, _) in enumerate(PASSES):
        wanted = [key(line) for line in pattern]
        keys = lines.keys(level)
        if at_end:
            if last >= 0 and keys[last:] == wanted:
                return last, level
            continue
        found = _find(keys, wanted, start, last)
        if found is not None:
            return found, level
    return None


def _find(keys: list[str], wanted: list[str], start: int, last: int) -> int | None:
    """The first ``i`` in ``start..last`` with ``keys[i:i+len(wanted)] == wanted``."""
    head, size = wanted[0], len(wanted)
    index = start
    while index <= last:
        try:
            index = keys.index(head, index, last + 1)
        except ValueError:
            return None
        if keys[index : index + size] == wanted:
            return index
        index += 1
    return None


def _replacement(lines: Lines, start: int, ops: tuple[tuple[str, str], ...]) -> list[str]:
    """The new lines for a hunk placed at ``start``: context lines as the file has them."""
    new: list[str] = []
    at = start
    for kind, text in ops:
        if kind == " ":
            new.append(lines.raw[at])
            at += 1
        elif kind == "-":
            at += 1
        else:
            new.append(text + lines.carriage)
    return new


def _mismatch(lines: Lines, hunk: Hunk, at: int, shown: str, number: int) -> str:
    """Why a hunk does not apply: the first of its lines that differs where it fits best."""
    old = hunk.old
    keys = lines.keys(len(PASSES) - 1)
    wanted = [_ascii(line) for line in old]
    best, best_len = -1, 0
    last = len(keys) - len(old) if hunk.at_end else len(keys) - 1
    starts = [last] if hunk.at_end else range(at, max(last + 1, at))
    for start in starts:
        if start < 0:
            continue
        run = 0
        while run < len(old) and start + run < len(keys) and keys[start + run] == wanted[run]:
            run += 1
        if run > best_len:
            best, best_len = start, run
    where = (
        f"{shown}: hunk {number} (patch line {hunk.line}) was not applied, and nothing was changed."
    )
    if best_len == 0:
        where_end = " at the end of the file" if hunk.at_end else ""
        scope = " after the previous hunk" if at and not hunk.at_end else ""
        return (
            f"{where} Its first line {_quoted(old[0])} was not found{where_end}{scope}. "
            "View the file and copy the lines the hunk expects exactly."
        )
    line_no = best + best_len + 1
    expected = old[best_len]
    if best + best_len < len(lines.raw):
        actual = lines.keys(0)[best + best_len]
        differs = f"the file's line {line_no} is {_quoted(actual)}"
    else:
        differs = "the file ends there"
    return (
        f"{where} Its lines match the file from line {best + 1}, but hunk line "
        f"{best_len + 1} expects {_quoted(expected)} where {differs}. "
        "Fix the hunk to match the file, then send the patch again."
    )


def _quoted(text: str, limit: int = 120) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")
