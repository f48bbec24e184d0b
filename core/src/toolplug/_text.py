"""Text toolplug shows: always valid UTF-8, and bounded where it echoes input.

:func:`printable` escapes what UTF-8 cannot encode (it is public as
``toolplug.printable``), and :func:`safe_text` the control characters a terminal would
act on (public as ``toolplug.safe_text``): every tool shows names, file contents and
command output through them. This module imports nothing heavy: the ``toolplug
plugins`` fast path uses it.

Error texts quote what they were given (a name, a path, unknown keys) so that a model or
a person can act on them; a hostile or broken input must not make them huge. Every
echoed value is cut to :data:`VALUE_LIMIT` characters and every echoed list to
:data:`LIST_LIMIT` items, each with a note saying how much was left out.
"""

from __future__ import annotations

import re
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


# Characters a terminal acts on instead of showing, or that reorder what it shows: C0
# controls and DEL, C1 controls (8-bit CSI and OSC among them), and the bidirectional
# embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069: "Trojan Source").
_BIDI = "\u202a-\u202e\u2066-\u2069"
#: In content a tab and a newline are text, and a carriage return that ends a line
#: (CRLF) moves nothing; every other control is escaped.
_IN_CONTENT = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}]|\r(?!\n)")
#: In a name (one line): tab, newline and carriage return too.
_IN_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

# What a terminal program prints, as a screen shows it: CSI (colours, cursor moves),
# OSC (titles, hyperlinks) and other escape sequences are dropped, as are the control
# characters left over (tab and newline are kept).
_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
_SCREEN_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BACKSPACE = re.compile(r"[^\n\x08]\x08")


def _escaped(found: re.Match[str]) -> str:
    char = found.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str, *, one_line: bool = False, terminal: bool = False) -> str:
    """``text`` safe to show a model and to print to a terminal.

    A file name or a file's contents can hold what a terminal acts on instead of
    showing: ESC starts colour, cursor and title sequences (an OSC can rewrite the
    window title or plant a link), ``\\r`` rewinds the line, U+202E reverses what
    follows. Each such character is shown escaped, as ``\\x1b``, ``\\r`` or
    ``\\u202e``: C0 controls and DEL, C1 controls (U+0080-U+009F), and the
    bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069).
    A sequence whose ESC is escaped is plain text. Tab and newline are kept, and a
    ``\\r`` that ends a line (CRLF). With ``one_line`` (a name, which is one line)
    tab, newline and carriage return are escaped too. What UTF-8 cannot encode is
    escaped as :func:`printable` does.

    With ``terminal``, ``text`` is what a program printed to a terminal (the bash
    tool's output), and comes back as a screen would show it: escape sequences are
    dropped, a carriage return rewinds its line (a progress bar leaves its last
    state), a backspace erases, and the other control characters are dropped.

    A shown name is for reading: a typed field of an observation keeps the exact
    name, and a wildcard finds the file again.
    """
    if terminal:
        return _screen(text)
    pattern = _IN_LINE if one_line else _IN_CONTENT
    if text.isascii():
        if text.isprintable() or pattern.search(text) is None:  # the common case
            return text
        return pattern.sub(_escaped, text)
    return pattern.sub(_escaped, printable(text))


#: What JSON leaves raw in a string but a terminal acts on: DEL, C1, bidi controls.
_RAW_IN_JSON = re.compile(f"[\x7f-\x9f{_BIDI}]")


def json_for_terminal(encoded: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) safe to print to a terminal.

    JSON escapes C0 controls itself; DEL, C1 and bidirectional controls it leaves raw
    are written as ``\\uNNNN`` escapes, which decode to the same string: the values
    stay exact. Such characters can only be inside strings (JSON's own syntax is ASCII).
    """
    return _RAW_IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", encoded)


def _screen(text: str) -> str:
    """What a terminal shows of ``text``."""
    text = _SEQUENCES.sub("", text)
    text = text.replace("\r\n", "\n")
    if "\x08" in text:
        while True:
            text, count = _BACKSPACE.subn("", text)
            if not count:
                break
    if "\r" in text:
        text = "\n".join(_last_overwrite(line) for line in text.split("\n"))
    return _SCREEN_CONTROLS.sub("", text)


def _last_overwrite(line: str) -> str:
    """What remains of a line that carriage returns wrote over."""
    shown = ""
    for part in line.split("\r"):
        # A later, shorter write overwrites only the start of the earlier one.
        shown = part + shown[len(part) :]
    return shown
