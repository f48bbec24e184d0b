"""Endings: the literal text a name matching a glob must end with.

A cheap, sound screen. Every name ``*.py[co]`` matches ends with ``.pyc`` or ``.pyo``,
so a file whose path ends with neither cannot match it, and checking
``path.endswith(endings)`` (or looking for an ending in a whole batch of paths at
once) spares most files the full match. ``[""]`` means "any ending": the glob ends
in a wildcard, or in something too wide to spell out.

The syntax read here is what a single name has in both gitignore and this package's
globs: ``*``, ``?``, ``[...]`` classes (negated with ``!`` or ``^``) and backslash
escapes; :func:`glob_name_endings` also expands this package's ``{a,b}``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from pathspec import GitIgnoreSpec

#: A character class is spelt out into single characters up to this size.
_MAX_CLASS = 16
#: At most this many endings per name; past that, the name screens nothing out.
_MAX_ENDINGS = 64
_BRACES = re.compile(r"\{([^{}]*)\}")


def name_endings(name: str) -> list[str]:
    """The endings of every name that ``name`` (one path segment, no braces) matches.

    ``*.log`` gives ``[".log"]``, ``*.py[cod]`` gives ``[".pyc", ".pyd", ".pyo"]``,
    ``*`` and ``*[0-9]`` give ``[""]``.
    """
    endings = [""]
    for token in reversed(_tokens(name) or []):  # unsure how to split it: any ending
        if token in ("*", "?"):
            break
        # a class, or a character (token[-1] of an escape such as "\\*" is the "*")
        choices = _class_choices(token) if token.startswith("[") else [token[-1]]
        if choices is None or len(endings) * len(choices) > _MAX_ENDINGS:
            break
        endings = [choice + ending for choice in choices for ending in endings]
    return endings


def glob_name_endings(name: str) -> list[str]:
    """Like :func:`name_endings`, for a name glob that may hold ``{a,b}`` groups."""
    groups = _BRACES.findall(name)
    if not groups:
        return name_endings(name)
    pieces = _BRACES.split(name)  # literal, group, literal, group, ..., literal
    endings: set[str] = set()
    for count, choice in enumerate(itertools.product(*(g.split(",") for g in groups))):
        if count >= _MAX_ENDINGS:
            return [""]
        spelt = "".join(p if i % 2 == 0 else choice[i // 2] for i, p in enumerate(pieces))
        endings.update(name_endings(spelt))
    return sorted(endings)


def rule_endings(rule: str) -> list[str] | None:
    """What the name of a file that ``rule`` ignores must end with.

    ``*.log`` gives ``[".log"]``, ``*.py[cod]`` gives ``[".pyc", ".pyd", ".pyo"]``, and
    ``*`` gives ``[""]`` (any file). None when the line cannot ignore a file at all: a
    blank line, a comment, a ``!`` re-include (it only ever keeps files), or a rule
    for directories only (``build/``), whose directories ripgrep did not walk. The
    endings are a screen: every file the rule ignores has one of them, but not every
    file with one of them is ignored.
    """
    text = rule.rstrip(" ")
    if text != rule and (len(text) - len(text.rstrip("\\"))) % 2 == 1:
        text += " "  # "foo\\ ": the last space is escaped and part of the name
    if not text or text[0] in "#!" or text.endswith("/"):
        return None
    return name_endings(text.rsplit("/", 1)[-1])


def ignoring_endings(specs: Iterable[GitIgnoreSpec]) -> set[str]:
    """The endings of every name that some ignoring rule of ``specs`` may ignore."""
    endings: set[str] = set()
    for spec in specs:
        for pattern in spec.patterns:
            if getattr(pattern, "include", None):  # an ignoring rule (not "!", "#")
                endings.update(rule_endings(str(getattr(pattern, "pattern", ""))) or ())
    return endings


def compatible_endings(endings: set[str], listed: list[str]) -> tuple[str, ...]:
    """The ``endings`` that a name ending with one of ``listed`` can also end with.

    One name ends with both ``a`` and ``b`` only if one is a suffix of the other, so a
    file listed because it matched ``*.py`` can never end with ``.log``.
    """
    return tuple(sorted(e for e in endings if any(e.endswith(t) or t.endswith(e) for t in listed)))


def _tokens(name: str) -> list[str] | None:
    """A name as characters, ``*``, ``?``, ``[...]`` classes and escapes (a backslash
    and the character it makes literal).

    None when the name holds a class this reading is not sure to split where gitignore
    does (an unclosed ``[``, an escape or a POSIX class inside one).
    """
    tokens: list[str] = []
    pos = 0
    while pos < len(name):
        char = name[pos]
        if char == "\\" and pos + 1 < len(name):
            tokens.append(name[pos : pos + 2])
            pos += 2
        elif char == "[":
            first = pos + 2 if name[pos + 1 : pos + 2] in ("!", "^") else pos + 1
            close = name.find("]", first + 1)  # a "]" first in the class is a member
            if close < 0 or "\\" in name[pos:close] or "[:" in name[pos:close]:
                return None
            tokens.append(name[pos : close + 1])
            pos = close + 1
        else:
            tokens.append(char)
            pos += 1
    return tokens


def _class_choices(token: str) -> list[str] | None:
    """The characters a simple class such as ``[cod]`` matches; None if not simple."""
    body = token[1:-1]
    if body[:1] in ("!", "^") or "-" in body:
        return None  # negated, or ranges: too many characters to spell out
    choices = sorted(set(body))
    return choices if len(choices) <= _MAX_CLASS else None
