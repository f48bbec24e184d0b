"""Glob patterns: split off the literal directory part, compile the rest to a regex.

The glob syntax is the shell's with ``globstar``: ``*`` and ``?`` never cross a ``/``,
``**`` as a whole path segment matches any number of directories (none included),
``[abc]``, ``[a-z]`` and ``[!abc]`` are character classes, ``{a,b}`` are alternatives
(they may nest and may hold ``/``; a ``}`` that closes nothing is literal), and a
backslash makes the next character literal.
A pattern matches paths relative to the directory it is searched in, in full: ``*.py``
means the ``.py`` files of that directory only, ``**/*.py`` those at any depth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolplug_glob.errors import PatternError

#: Characters that make a path segment a pattern rather than a literal name.
META = frozenset("*?[{\\")
#: How deep ``{...}`` groups may nest (the regex engine recurses once per level).
MAX_NESTING = 32
#: The longest pattern, in characters. Compiling and matching grow with the size: a
#: megabyte of ``{a,b,...}`` took a minute, and is past what the OS lets ripgrep's
#: command line hold. Ten thousand is hundreds of names in one brace group.
MAX_PATTERN = 10_000
#: How much of a pattern an error message quotes.
_QUOTED = 120


def quoted(text: str) -> str:
    """``text`` quoted for a message, cut to a bounded length with a note."""
    if len(text) <= _QUOTED:
        return repr(text)
    return f"{text[:_QUOTED]!r}... ({len(text):,} characters)"


@dataclass(frozen=True)
class SplitPattern:
    """A pattern cut in two: the literal directories in front, the glob after them."""

    #: The literal leading directories (``src/app`` in ``src/app/**/*.py``), or "".
    prefix: str
    #: What is matched against paths below the prefix (``**/*.py``).
    glob: str
    #: Whether the glob names a hidden file or directory literally (``**/.env``).
    names_hidden: bool


def split_pattern(pattern: str) -> SplitPattern:
    """Separate the literal leading directories of a relative or absolute pattern.

    The prefix keeps a leading ``/`` (absolute patterns) and may contain ``..``; the
    caller resolves it. ``.`` segments and repeated slashes are dropped.
    """
    if not pattern.strip():
        raise PatternError("the pattern is empty; give one such as '**/*.py'")
    if len(pattern) > MAX_PATTERN:
        raise PatternError(
            f"it is {len(pattern):,} characters long, and a pattern may have at most "
            f"{MAX_PATTERN:,}; use wildcards ('**/test_*.py') or split it over several calls"
        )
    if "\0" in pattern:
        raise PatternError("it holds a NUL character, which no file name can; remove it")
    if pattern.endswith("/"):
        raise PatternError(
            f"the pattern {quoted(pattern)} ends with '/', and this tool lists files only; "
            f"use {quoted(pattern + '**')} to list the files inside"
        )
    absolute = pattern.startswith("/")
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    if not segments:
        raise PatternError(f"the pattern {quoted(pattern)} names a directory, not files")
    literal = 0
    # The last segment is always part of the glob, so that a literal pattern such as
    # "src/main.py" still has a file name to match.
    while literal < len(segments) - 1 and not META.intersection(segments[literal]):
        literal += 1
    glob_segments = segments[literal:]
    if ".." in glob_segments:
        raise PatternError(
            f"'..' after a wildcard is not supported in {quoted(pattern)}; "
            "put the directory in front of the wildcards, or use the path argument"
        )
    prefix = "/".join(segments[:literal])
    if absolute:
        prefix = "/" + prefix
    names_hidden = any(s.startswith(".") and s not in (".", "..") for s in glob_segments)
    return SplitPattern(prefix=prefix, glob="/".join(glob_segments), names_hidden=names_hidden)


def compile_glob(glob: str) -> re.Pattern[str]:
    """Compile a glob (relative, no leading ``/``) to a regex matching whole paths."""
    try:
        return re.compile(_Translator(glob).translate(), re.DOTALL)
    except (re.error, RecursionError, OverflowError) as exc:  # a limit of the regex engine
        raise PatternError(f"{quoted(glob)} is too complex to match ({exc})") from None


def directory_name_finder(name: str) -> re.Pattern[str]:
    """A regex that finds a *directory* named like the file-name glob ``name``.

    It is searched in NUL-joined relative paths ("a/b.py\0c/d.py"): a match is a path
    segment, followed by ``/``, that ``name`` matches in full. Segments never span a
    ``/`` or a NUL, so one search over a whole batch answers for every path in it.
    """
    body = _Translator(name, separators="/\0").translate()
    return re.compile(f"(?:^|(?<=[/\0]))(?:{body})/", re.DOTALL)


class _Translator:
    """A one-pass translation of glob syntax to a regular expression."""

    def __init__(self, glob: str, separators: str = "/") -> None:
        self.glob = glob
        self.pos = 0
        self.depth = 0  # open {...} groups
        #: Characters no ``*``, ``?`` or class may match (regex-escaped, for a class).
        self.stop = separators

    def translate(self) -> str:
        out: list[str] = []
        glob = self.glob
        while self.pos < len(glob):
            char = glob[self.pos]
            if char == "*":
                out.append(self._star())
                continue
            self.pos += 1
            if char == "?":
                out.append(f"[^{self.stop}]")
            elif char == "[":
                out.append(self._char_class())
            elif char == "{":
                self.depth += 1
                if self.depth > MAX_NESTING:
                    raise PatternError(
                        f"{quoted(glob)} nests '{{' groups more than {MAX_NESTING} deep; "
                        "write fewer nested alternatives, or escape a literal brace as '\\{'"
                    )
                out.append("(?:")
            elif char == "," and self.depth:
                out.append("|")
            elif char == "}" and self.depth:
                self.depth -= 1
                out.append(")")
            elif char == "\\":
                if self.pos >= len(glob):
                    raise PatternError(f"{quoted(glob)} ends with a lone backslash")
                out.append(re.escape(glob[self.pos]))
                self.pos += 1
            else:
                out.append(re.escape(char))
        if self.depth:
            raise PatternError(
                f"{quoted(glob)} opens a '{{' group that is never closed; "
                "write alternatives as {a,b}, or escape a literal brace as '\\{'"
            )
        return "".join(out)

    def _star(self) -> str:
        """``*`` within a segment, or ``**`` as a whole segment (any depth)."""
        glob, start = self.glob, self.pos
        end = start
        while end < len(glob) and glob[end] == "*":
            end += 1
        self.pos = end
        if end - start < 2:
            return f"[^{self.stop}]*"
        before = glob[start - 1] if start else "/"
        after = glob[end] if end < len(glob) else ""
        boundary_before = before in "/{," if start else True
        if not boundary_before or after not in ("", "/", ",", "}"):
            return f"[^{self.stop}]*"  # "a**b" is just a star
        if after == "/":
            self.pos += 1
            # "**/**/" is "**/": one group, not many that backtrack against each other.
            while glob.startswith("**/", self.pos):
                self.pos += 3
            return "(?:.*/)?"  # zero or more directories
        return ".*"  # the rest of the path, at any depth

    def _char_class(self) -> str:
        """``[...]`` after its ``[``: a class that never matches ``/``."""
        glob, start = self.glob, self.pos
        pos = start
        negate = pos < len(glob) and glob[pos] in "!^"
        if negate:
            pos += 1
        items: list[str] = []
        first = True
        while pos < len(glob) and (glob[pos] != "]" or first):
            char = glob[pos]
            if char == "\\" and pos + 1 < len(glob):
                pos += 1
                char = glob[pos]
            if pos + 2 < len(glob) and glob[pos + 1] == "-" and glob[pos + 2] != "]":
                low, high = char, glob[pos + 2]
                if low > high:
                    raise PatternError(
                        f"the range [{low}-{high}] in {quoted(glob)} is backwards; "
                        f"write [{high}-{low}]"
                    )
                items.append(f"{re.escape(low)}-{re.escape(high)}")
                pos += 3
            else:
                items.append(re.escape(char))
                pos += 1
            first = False
        if pos >= len(glob):
            raise PatternError(
                f"'[' at position {start} of {quoted(glob)} is never closed; "
                "close the class with ']' or escape it as '\\['"
            )
        self.pos = pos + 1
        body = "".join(items)
        return f"[^{self.stop}{body}]" if negate else f"(?![{self.stop}])[{body}]"


def name_glob(glob: str) -> str | None:
    """The glob every matching file *name* matches (``*.py`` for ``src/**/*.py``).

    It lets an engine send only plausible files; None when the last segment is not
    simple enough to hand to another glob implementation unchanged (escapes, nested
    or cross-directory ``{}``), or when it would let every file through anyway.
    """
    name = glob.rsplit("/", 1)[-1]
    if name in ("*", "**") or "**" in name or "\\" in name or ":" in name:
        return None
    if "[" in name and ("{" in name or "}" in name):
        return None
    depth = 0
    for char in name:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0 or depth > 1:
            return None
    return name if depth == 0 else None
