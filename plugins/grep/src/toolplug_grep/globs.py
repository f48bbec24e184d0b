"""The ``glob`` argument, compiled with wcmatch, and file types for the portable engine.

The syntax is the one of every glob in toolplug (docs/globs.md), read by wcmatch with
:data:`toolplug.globs.FLAGS`. A glob without ``/`` matches file names at any depth (``*.py``); one
with ``/`` matches paths below the searched directory (``src/**/*.ts``), as in a
``.gitignore``.
"""

from __future__ import annotations

import re

from toolplug.globs import (  # the one glob syntax (docs/globs.md)
    FLAGS as FLAGS,
    MAX_EXPANSIONS,
    glob_regexes,
    syntax_problem,
)

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
