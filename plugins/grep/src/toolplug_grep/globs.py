"""The ``glob`` argument, compiled to a regex, and file types for the portable engine.

Glob syntax: ``*`` and ``?`` stay within a path segment, ``**`` as a whole segment
spans directories, ``[abc]``/``[!abc]`` are classes, ``{a,b}`` alternatives, and a
backslash escapes. A glob without ``/`` matches file names at any depth (``*.py``);
one with ``/`` matches paths below the searched directory (``src/**/*.ts``), as in a
``.gitignore``.
"""

from __future__ import annotations

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
    try:
        regex = re.compile(_translate(body, text), re.DOTALL)
    except re.error as exc:  # a backwards range such as [z-a]
        raise PatternError(f"the glob {text!r} cannot match: {exc.msg}") from None
    last = body.rpartition("/")[2]
    simple = "**" not in last and "\\" not in last and ":" not in last
    return FileGlob(text, regex, on_path, last if simple and _balanced(last) else None)


def type_names(file_type: str) -> re.Pattern[str]:
    """One regex for the file names of a type of :data:`FILE_TYPES`."""
    globs = FILE_TYPES[file_type].split(", ")
    return re.compile("|".join(f"(?:{_translate(glob, glob)})" for glob in globs), re.DOTALL)


def _balanced(name: str) -> bool:
    depth = 0
    for char in name:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth not in (0, 1):
            return False
    return depth == 0


def _translate(glob: str, shown: str) -> str:
    """A regex (without anchors: use fullmatch) for ``glob``; ``shown`` names it in errors."""
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(glob):
        char = glob[i]
        i += 1
        if char == "*":
            stars = 1
            while i < len(glob) and glob[i] == "*":
                i += 1
                stars += 1
            whole = (i - stars == 0 or glob[i - stars - 1] == "/") and (
                i == len(glob) or glob[i] == "/"
            )
            if stars >= 2 and whole and i < len(glob):
                i += 1  # "**/": no directory or any number of them
                out.append("(?:.*/)?")
            elif stars >= 2 and whole:
                out.append(".*")
            else:
                out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", i + 1 if glob[i : i + 1] in ("!", "^", "]") else i)
            if glob[i : i + 2] in ("!]", "^]"):
                end = glob.find("]", i + 2)
            if end < 0:
                raise PatternError(f"'[' in the glob {shown!r} is never closed; escape it as '\\['")
            inner = glob[i:end]
            negate = inner[:1] in ("!", "^")
            inner = inner[1:] if negate else inner
            body = "".join("\\" + c if c in "\\^[]" else c for c in inner)
            out.append(f"[^/{body}]" if negate else f"(?!/)[{body}]")
            i = end + 1
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "," and depth:
            out.append("|")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "\\" and i < len(glob):
            out.append(re.escape(glob[i]))
            i += 1
        else:
            out.append(re.escape(char))
    if depth:
        raise PatternError(f"the glob {shown!r} opens a '{{' that is never closed")
    return "".join(out)
