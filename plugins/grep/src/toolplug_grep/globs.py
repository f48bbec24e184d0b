"""The ``glob`` argument, compiled with wcmatch, and file types for the portable engine.

The syntax is the one of every glob in toolplug (docs/globs.md), read by wcmatch with
:data:`FLAGS`. A glob without ``/`` matches file names at any depth (``*.py``); one
with ``/`` matches paths below the searched directory (``src/**/*.ts``), as in a
``.gitignore``.
"""

from __future__ import annotations

import functools
import operator
import re

from toolplug_grep.query import FileGlob, PatternError

#: File types of the portable engine: ripgrep 14's definitions of the common ones (a
#: test checks them against ``rg --type-list``). The ripgrep engine knows them all.
FILE_TYPES: dict[str, str] = {
    "c": "*.[chH], *.[chH].in, *.cats",
    "cpp": "*.[ChH], *.[ChH].in, *.[ch]pp, *.[ch]pp.in, *.[ch]xx, *.[ch]xx.in, *.cc, *.cc.in, "
    "*.hh, *.hh.in, *.inl",
    "css": "*.css, *.scss",
    "go": "*.go",
    "html": "*.ejs, *.htm, *.html",
    "java": "*.java, *.jsp, *.jspx, *.properties",
    "js": "*.cjs, *.js, *.jsx, *.mjs, *.vue",
    "json": "*.json, *.sarif, composer.lock",
    "md": "*.markdown, *.md, *.mdown, *.mdwn, *.mdx, *.mkd, *.mkdn",
    "py": "*.py, *.pyi",
    "rust": "*.rs",
    "sh": "*.bash, *.bashrc, *.csh, *.cshrc, *.ksh, *.kshrc, *.sh, *.tcsh, *.zsh, .bash_login, "
    ".bash_logout, .bash_profile, .bashrc, .cshrc, .kshrc, .login, .logout, .profile, .tcshrc, "
    ".zlogin, .zlogout, .zprofile, .zshenv, .zshrc, bash_login, bash_logout, bash_profile, "
    "bashrc, profile, zlogin, zlogout, zprofile, zshenv, zshrc",
    "toml": "*.toml, Cargo.lock",
    "ts": "*.cts, *.mts, *.ts, *.tsx",
    "txt": "*.txt",
    "yaml": "*.yaml, *.yml",
}


def compile_glob(text: str) -> FileGlob:
    """The ``glob`` argument as a :class:`~toolplug_grep.query.FileGlob`."""
    if "\0" in text:
        raise PatternError(f"the glob {text!r} holds a NUL character; remove it")
    written = text.removeprefix("./")  # "./src/*.py" means "src/*.py"
    on_path = "/" in written.strip("/") or written.startswith("/")
    body = written.lstrip("/") if on_path else written
    if not body or body.endswith("/"):
        raise PatternError(
            f"the glob {text!r} names no files; give one such as '*.py' or 'src/**/*.ts'"
        )
    # No path here ends with "/": wcmatch's optional trailing "/" goes.
    regex = re.compile("|".join(r.replace("[/]*?)$", ")$") for r in _translate(body, text)))
    last = body.rpartition("/")[2]
    simple = "**" not in last and "\\" not in last and ":" not in last
    # ripgrep reads the same flat groups, but a group without a comma ("{a}", literal
    # here) or a sequence ("{1..3}") its own way: only flat comma groups go.
    if "{" in last and ".." in last:
        simple = False
    hint = last if simple and _FLAT_GROUPS.fullmatch(last) else None
    return FileGlob(text, regex, on_path, hint)


def type_names(file_type: str) -> re.Pattern[str]:
    """One regex for the file names of a type of :data:`FILE_TYPES`."""
    globs = FILE_TYPES[file_type].split(", ")
    return re.compile("|".join(regex for glob in globs for regex in _translate(glob, glob)))


#: A name whose ``{...}`` groups are flat and each hold a comma (``*.{ts,tsx}``).
_FLAT_GROUPS = re.compile(r"(?:[^{}]|\{[^{}]*,[^{}]*\})*")


def _translate(glob: str, shown: str) -> list[str]:
    """The anchored regexes of ``glob``, one per pattern its braces expand to; ``shown``
    names it in errors."""
    problem = syntax_problem(glob)
    if problem:
        raise PatternError(f"the glob {shown!r} {problem}")
    try:
        return glob_regexes(glob)
    except OverflowError:
        raise PatternError(
            f"the glob {shown!r} expands to more than {MAX_EXPANSIONS:,} patterns "
            "({a,b}{c,d} is four); use fewer brace groups"
        ) from None


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
