"""Glob patterns: split off the literal directory part, compile the rest with wcmatch.

The syntax is the one of every glob in toolplug (docs/globs.md): the shell's with
``globstar`` and braces, read by wcmatch with :data:`toolplug.globs.FLAGS`. A pattern matches paths
relative to the directory it is searched in, in full: ``*.py`` means the ``.py`` files
of that directory only, ``**/*.py`` those at any depth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolplug.globs import (  # the one glob syntax (docs/globs.md)
    FLAGS as FLAGS,
    MAX_EXPANSIONS,
    glob_regexes,
    syntax_problem,
)

from toolplug_glob.errors import PatternError

#: Characters that make a path segment a pattern rather than a literal name.
META = frozenset("*?[{\\")
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
    problem = syntax_problem(glob)
    if problem:
        raise PatternError(f"{quoted(glob)} {problem}")
    try:
        return re.compile("|".join(_files_only(_translate(glob))))
    except (re.error, RecursionError, OverflowError) as exc:  # a limit of the regex engine
        raise PatternError(f"{quoted(glob)} is too complex to match ({exc})") from None


def _translate(glob: str) -> list[str]:
    """The anchored regexes of ``glob``, one per pattern its braces expand to."""
    try:
        return glob_regexes(glob)
    except OverflowError:
        raise PatternError(
            f"{quoted(glob)} expands to more than {MAX_EXPANSIONS:,} patterns "
            "({a,b}{c,d} is four); use fewer brace groups or split it over several calls"
        ) from None


def _files_only(regexes: list[str]) -> list[str]:
    """``regexes`` without wcmatch's optional trailing ``/``: listed files have none."""
    return [regex.replace("[/]*?)$", ")$") for regex in regexes]


def directory_name_finder(name: str) -> re.Pattern[str]:
    """A regex that finds a *directory* named like the file-name glob ``name``.

    It is searched in NUL-joined relative paths ("a/b.py\0c/d.py"): a match is a path
    segment, followed by ``/``, that ``name`` matches in full. The lookahead keeps a
    match within one segment of one path, so one search answers for a whole batch.
    """
    bodies = [regex.removeprefix("^").removesuffix("$") for regex in _translate(name)]
    return re.compile(f"(?:^|(?<=[/\0]))(?=[^/\0]*/)(?:{'|'.join(bodies)})/")


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
    # ripgrep reads the same flat groups, but a group without a comma ("{a}", literal
    # here) or a sequence ("{1..3}") its own way: only flat comma groups go.
    if "{" in name and ".." in name:
        return None
    return name if _FLAT_GROUPS.fullmatch(name) else None


#: A name whose ``{...}`` groups are flat and each hold a comma (``*.{ts,tsx}``).
_FLAT_GROUPS = re.compile(r"(?:[^{}]|\{[^{}]*,[^{}]*\})*")
