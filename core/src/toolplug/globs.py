"""toolplug's one glob syntax (docs/globs.md), for every tool that matches paths.

The glob tool, grep's ``glob`` argument and the policy's ``path`` key read globs the
same way: through `wcmatch <https://facelessuser.github.io/wcmatch/>`_ with one set of
flags (:data:`FLAGS`), within the same limits, after the same syntax check. Each tool
decides what a glob is matched against (a file name, a path from the workspace); this
module decides what a glob means.

wcmatch is not a dependency of the core: a plugin that matches globs installs
``toolplug[globs]``, and wcmatch is imported at the first :func:`glob_regexes`.
"""

from __future__ import annotations

import functools
import operator

__all__ = ["FLAGS", "MAX_EXPANSIONS", "MAX_NESTING", "glob_regexes", "syntax_problem"]


#: The wcmatch flags of every glob in toolplug: ``**`` spans directories, ``{a,b}`` are
#: alternatives, ``*`` matches a leading dot, and case counts on every platform. Names
#: of ``wcmatch.glob`` flags: wcmatch is imported when the first glob is compiled, not
#: when a plugin loads (its import takes longer than most plugins' own).
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
    # wcmatch 11 (the last for Python 3.10) writes that guard with a capturing group
    ("(?:(?!(?:[/]|^)(?:\\.{1,2})($|[/])).)*?", ".*"),
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
        regexes: list[str] = wcglob.translate(glob, flags=flags, limit=MAX_EXPANSIONS)[0]
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
