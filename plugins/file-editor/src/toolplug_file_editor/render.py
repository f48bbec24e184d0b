"""What an edit looks like to the model: a numbered snippet and a unified diff."""

from __future__ import annotations

import difflib
import re

from toolplug_file_editor.editing import Splice, line_of

#: Lines of context shown around an edit in the snippet.
SNIPPET_CONTEXT = 4
#: Lines of context in the diff.
DIFF_CONTEXT = 3
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def numbered(lines: list[str], first: int) -> str:
    """Lines as ``cat -n`` prints them, numbered from ``first``."""
    return "\n".join(f"{first + i:6}\t{line}" for i, line in enumerate(lines))


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


def snippet(text: str, start: int, end: int, limit: int) -> str:
    """The numbered lines around ``text[start:end]``, cut to ``limit`` characters."""
    begin, stop = _window(text, start, end, SNIPPET_CONTEXT)
    body = numbered(_split(text[begin:stop]), line_of(text, begin))
    return cut(body, limit, "the snippet")


def unified_diff(old_text: str, new_text: str, splice: Splice, path: str, limit: int) -> str:
    """The unified diff of one splice, computed on the changed lines only (fast on big files)."""
    begin, old_stop = _window(old_text, splice.start, splice.end, DIFF_CONTEXT)
    new_end = splice.start + len(splice.new)
    _, new_stop = _window(new_text, splice.start, new_end, DIFF_CONTEXT)
    # The text before the splice is the same in both, so both windows start together.
    old_lines = _split(old_text[begin:old_stop])
    new_lines = _split(new_text[begin:new_stop])
    shift = line_of(old_text, begin) - 1
    out = []
    for line in difflib.unified_diff(
        old_lines, new_lines, f"a/{path}", f"b/{path}", n=DIFF_CONTEXT, lineterm=""
    ):
        out.append(_HUNK.sub(lambda m: _shifted(m, shift), line) if line.startswith("@@") else line)
    return cut("\n".join(out), limit, "the diff")


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
