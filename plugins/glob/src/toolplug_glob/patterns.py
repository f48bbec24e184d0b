"""Glob patterns: split off the literal directory part, compile the rest with wcmatch.

The syntax is the one of every glob in toolplug (docs/globs.md): the shell's with
``globstar`` and braces, read by wcmatch with :data:`FLAGS`. A pattern matches paths
relative to the directory it is searched in, in full: ``*.py`` means the ``.py`` files
of that directory only, ``**/*.py`` those at any depth.
"""

from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass

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


# -- The glob syntax: this block is the same in toolplug_glob.patterns,
# toolplug_grep.globs and toolplug_policy.paths (plugins import no other plugin);
# tests/test_glob_agreement.py checks that the three copies are equal. --------------

#: The wcmatch flags of every glob in toolplug (glob, grep and the policy's ``path``
#: key use the same set; tests/test_glob_agreement.py checks it): ``**`` spans
#: directories, ``{a,b}`` are alternatives, ``*`` matches a leading dot, and case counts
#: on every platform. Names of ``wcmatch.glob`` flags: wcmatch is imported when the
#: first glob is compiled, not when the plugin loads (its import takes longer than the
#: plugin's own).
FLAGS = ("GLOBSTAR", "BRACE", "DOTGLOB", "CASE")
#: How deep ``{...}`` groups may nest.
MAX_NESTING = 32
#: How many patterns the ``{...}`` groups of one glob may expand to (``{a,b}{c,d}`` is
#: four): each is a regex of its own, and they multiply.
MAX_EXPANSIONS = 10_000


#: wcmatch guards its regexes against ``.`` and ``..`` segments and repeated or trailing
#: ``/``. The paths matched here never have those (ripgrep and ``os.scandir`` list
#: normal paths, the policy matches resolved ones, with at most one ``/`` added), so
#: each guard is replaced by its plain equivalent: matching is then two to four times
#: faster, and what matches is the same (tests/test_glob_agreement.py checks both).
_PLAIN = (
    ("(?:(?!(?:[/]|^)(?:\\.{1,2})(?:$|[/])).)*?", ".*"),
    ("(?!(?:(?<=[/])|(?<=^))(?:\\.{1,2})(?:$|[/]))", ""),
    ("(?!\\.{1,2}(?:$|[/]))", ""),
    ("[/]+", "/"),
    ("[^/]*?", "[^/]*"),
    # a leading "**/" (after the two above): the same choice, written as re matches it
    # faster
    ("^(?s:.*(?:^|/)", "^(?s:(?:.*/)?"),
)


def glob_regexes(glob: str) -> list[str]:
    """The anchored regexes of a well-formed ``glob``, one per pattern its braces expand
    to, for normal paths. Raises :class:`OverflowError` past :data:`MAX_EXPANSIONS`."""
    from wcmatch import glob as wcglob

    flags = functools.reduce(operator.or_, (getattr(wcglob, name) for name in FLAGS))
    try:
        regexes = wcglob.translate(glob, flags=flags, limit=MAX_EXPANSIONS)[0]
    except Exception as exc:  # wcmatch's PatternLimitException, which it does not export
        if type(exc).__name__ != "PatternLimitException":
            raise
        raise OverflowError(f"more than {MAX_EXPANSIONS:,} patterns") from None
    for guarded, plain in _PLAIN:
        regexes = [regex.replace(guarded, plain) for regex in regexes]
    return regexes


def syntax_problem(glob: str) -> str | None:
    """What is wrong with ``glob``, or None when it is well formed.

    wcmatch reads an unclosed ``[`` or ``{`` as a literal character and drops a
    backwards range without a word; whoever wrote one meant something else, so it is
    refused with a message that says what to write instead.
    """
    depth = 0
    i = 0
    while i < len(glob):
        char = glob[i]
        if char == "\\":
            if i + 1 == len(glob):
                return "ends with a lone '\\' (a lone backslash escapes nothing); remove it"
            i += 2
            continue
        if char == "[":
            problem, i = _class_problem(glob, i + 1)
            if problem:
                return problem
            continue
        if char == "{":
            depth += 1
            if depth > MAX_NESTING:
                return (
                    f"nests '{{' groups more than {MAX_NESTING} deep; write fewer nested "
                    "alternatives, or escape a literal brace as '\\{'"
                )
        elif char == "}" and depth:
            depth -= 1
        i += 1
    if depth:
        return (
            "opens a '{' group that is never closed; write alternatives as {a,b}, "
            "or escape a literal brace as '\\{'"
        )
    return None


def _class_problem(glob: str, start: int) -> tuple[str | None, int]:
    """Check the ``[...]`` whose body starts at ``start``: a problem, and where it ends."""
    pos = start + (glob[start : start + 1] in ("!", "^"))
    chars: list[str | None] = []  # the class's characters; None for '-' between two
    while pos < len(glob) and glob[pos] != "/" and (glob[pos] != "]" or not chars):
        if glob.startswith("[:", pos) and (end := glob.find(":]", pos + 2)) > 0:
            chars.append("")  # a POSIX class such as [:alpha:] is no end of a range
            pos = end + 2
            continue
        char = glob[pos]
        if char == "\\" and pos + 1 < len(glob):
            pos += 1
            chars.append(glob[pos])
        else:
            chars.append(None if char == "-" and chars else char)
        pos += 1
    if pos >= len(glob) or glob[pos] != "]":
        return (
            f"has a '[' that is never closed (at position {start - 1}; a class ends "
            "before the next '/'); close it with ']' or escape it as '\\['",
            pos,
        )
    for k in range(1, len(chars) - 1):
        low, high = chars[k - 1], chars[k + 1]
        if chars[k] is None and low and high and low > high:
            return f"has a backwards range [{low}-{high}]; write [{high}-{low}]", pos + 1
    return None, pos + 1


# -- end of the glob syntax block ----------------------------------------------------
