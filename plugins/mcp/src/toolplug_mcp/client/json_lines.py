"""Where each value of a JSON document was written: the line of every object key and
array element, so that a problem found in the parsed data names its line in the file.

The standard library's parser keeps no positions, so the text is scanned a second time
(only when a configuration has a problem): strings, punctuation and bare words are
enough to follow the nesting of an already valid document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

#: One token of a valid JSON text: a string, a punctuation mark, or a number or word.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.S)

Path = tuple[str | int, ...]


def value_lines(text: str) -> dict[Path, int]:
    """The line (from 1) of each value of the valid JSON ``text``, by its path: an
    object member's is the line of its key, an array element's the line it starts on."""
    lines: dict[Path, int] = {}
    # One frame per open container: its path, and its next index (-1: an object).
    stack: list[tuple[Path, int]] = []
    key: str | None = None
    line, counted = 1, 0
    for match in _TOKEN.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        token = match.group()
        if token in ",:":
            continue
        if token in "}]":
            stack.pop()
            continue
        path = _member(stack, key, token, line, lines)
        key = None
        if path is None:  # an object's key: its value follows
            key = json.loads(token)
        elif token in "{[":
            stack.append((path, 0 if token == "[" else -1))
    return lines


def _member(
    stack: list[tuple[Path, int]], key: str | None, token: str, line: int, lines: dict[Path, int]
) -> Path | None:
    """The path of the value starting at ``token`` (recorded at ``line``), or ``None``
    when the token is an object's key."""
    if not stack:
        return ()
    parent, index = stack[-1]
    if index < 0:
        if key is None:
            named = (*parent, json.loads(token))
            lines[named] = line
            return None
        return (*parent, key)
    stack[-1] = (parent, index + 1)
    element = (*parent, index)
    lines[element] = line
    return element


def line_of(lines: dict[Path, int], path: Sequence[str | int]) -> int | None:
    """The line of ``path``, or of its nearest enclosing value that was written."""
    for end in range(len(path), 0, -1):
        found = lines.get(tuple(path[:end]))
        if found is not None:
            return found
    return None
