"""Text toolplug shows: always valid UTF-8, and bounded where it echoes input.

:func:`printable` escapes what UTF-8 cannot encode (it is public as
``toolplug.printable``). This module imports nothing heavy: the ``toolplug plugins``
fast path uses it.

Error texts quote what they were given (a name, a path, unknown keys) so that a model or
a person can act on them; a hostile or broken input must not make them huge. Every
echoed value is cut to :data:`VALUE_LIMIT` characters and every echoed list to
:data:`LIST_LIMIT` items, each with a note saying how much was left out.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The most characters of one echoed value (a tool name, a path, a key).
VALUE_LIMIT = 200
#: The most items of an echoed list (tool names, bad fields, repairs).
LIST_LIMIT = 20
#: The most characters of an exception's message in an error observation.
MESSAGE_LIMIT = 2000


def cut(text: str, limit: int = VALUE_LIMIT) -> str:
    """``text`` when it is at most ``limit`` characters; else its start and a note."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters not shown)"


def cut_list(items: Sequence[str], limit: int = LIST_LIMIT, *, sep: str = ", ") -> str:
    """At most ``limit`` of ``items`` (each cut), joined by ``sep``; a note for the rest."""
    shown = sep.join(cut(item) for item in items[:limit])
    if len(items) > limit:
        shown += f"{sep}... ({len(items) - limit:,} more not shown)"
    return shown


def printable(text: str) -> str:
    """``text`` as valid UTF-8, with what cannot be encoded shown escaped.

    A file name that is not UTF-8 reaches Python as lone surrogates (``os.fsdecode``'s
    ``surrogateescape``), and a model can send a lone ``\\ud800``: neither encodes as
    UTF-8, so JSON, MCP and terminals refuse it. Each byte of such a name is shown as
    ``\\xNN`` (``caf\\xe9.txt``), any other lone surrogate as ``\\udNNN``; every tool
    shows names this one way. Valid text comes back as it is.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text
    out = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that surrogateescape kept
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)
