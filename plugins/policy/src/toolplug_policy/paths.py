"""Path globs of the ``path`` key, and where a path from a call really points.

A glob is matched against the *resolved* path of a call: joined to the workspace,
``~`` expanded, ``..`` and symbolic links resolved (as the file tools themselves do).
A path inside the workspace is matched as a relative path (``src/app.py``; the
workspace itself is ``.``); a path outside it matches only absolute globs.

The syntax is the one of every glob in toolplug (docs/globs.md), read by wcmatch with
:data:`toolplug.globs.FLAGS`. A glob matches whole paths from the workspace: ``*.md`` is the top
directory's files only, ``**/*.md`` those at any depth. A path is also read as a
directory, so ``src/**`` is ``src`` and everything below it. A glob starting with ``/``
or ``~`` is absolute. A leading ``!`` excludes: a list ``["src/**", "!**/.env"]``
matches what some plain glob matches and no ``!`` glob does.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# (Re-exported: the loading and the tests import it from here.)
from toolplug.globs import (  # the one glob syntax (docs/globs.md)
    FLAGS as FLAGS,
    MAX_EXPANSIONS,
    glob_regexes,
    syntax_problem,
)

from toolplug_policy.errors import GlobError as GlobError


@dataclass(frozen=True)
class Glob:
    """One compiled glob of a ``path`` list."""

    text: str
    negated: bool
    absolute: bool
    regex: re.Pattern[str]

    def matches(self, target: ResolvedPath) -> bool:
        """Whether the glob matches the resolved path (absolute or workspace-relative)."""
        if self.absolute:
            return self.regex.fullmatch(_as_directory(target.absolute)) is not None
        if target.relative is None:
            return False
        return self.regex.fullmatch(_as_directory(target.relative)) is not None


def _as_directory(path: str) -> str:
    """``path`` with a ``/`` after it, the workspace ("") and the root as they are.

    wcmatch lets a glob match a path with trailing slashes as it matches the path, and
    ``src/**`` matches ``src/``: a path is then matched as a file and as a directory.
    """
    return path if path in ("", "/") else path + "/"


@dataclass(frozen=True)
class PathPatterns:
    """A ``path`` list: matches what some plain glob matches and no ``!`` glob does."""

    globs: tuple[Glob, ...]

    def matches(self, target: ResolvedPath) -> bool:
        """Whether the resolved path is one this list names."""
        hit = False
        for glob in self.globs:
            if glob.negated:
                if glob.matches(target):
                    return False
            elif not hit:
                hit = glob.matches(target)
        return hit

    @property
    def texts(self) -> list[str]:
        """The globs as written, for messages."""
        return [glob.text for glob in self.globs]


@dataclass(frozen=True)
class ResolvedPath:
    """Where a call's ``path`` points: the real absolute path, and the path relative to
    the workspace (``""`` for the workspace itself, ``None`` when outside it)."""

    absolute: str
    relative: str | None

    def display(self) -> str:
        """The relative path when inside the workspace, else the absolute one."""
        if self.relative is None:
            return self.absolute
        return self.relative or "."


def resolve(raw: str, workspace: str) -> ResolvedPath:
    """Resolve a call's path as the file tools do: relative to ``workspace`` (a real,
    absolute directory), with ``~`` expanded and ``..`` and links resolved."""
    try:
        real = os.path.realpath(os.path.join(workspace, os.path.expanduser(raw)))
    except (OSError, ValueError):  # a NUL in the path: no file has that name
        return ResolvedPath(raw, None)
    if real == workspace:
        return ResolvedPath(real, "")
    prefix = workspace.rstrip("/") + "/"
    relative = real[len(prefix) :] if real.startswith(prefix) else None
    return ResolvedPath(real, relative)


class Resolver:
    """Resolves many absolute paths under a few directories (the files a tool reads over
    a directory) as :func:`resolve` does, resolving each directory once: only a name
    that is itself a symbolic link is resolved whole."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self._prefix = workspace.rstrip("/") + "/"
        self._directories: dict[str, str] = {}

    def __call__(self, path: str) -> ResolvedPath:
        """Where the absolute ``path`` really points."""
        head, _, name = path.rpartition("/")
        if not path.startswith("/") or name in ("", ".", ".."):
            return resolve(path, self.workspace)
        real_head = self._directories.get(head)
        if real_head is None:
            real_head = self._directories[head] = os.path.realpath(head or "/")
        real = f"{real_head.rstrip('/')}/{name}"
        try:
            if os.path.islink(real):
                return resolve(real, self.workspace)
        except ValueError:  # a NUL in the path: no file has that name
            return ResolvedPath(path, None)
        if real == self.workspace:
            return ResolvedPath(real, "")
        relative = real[len(self._prefix) :] if real.startswith(self._prefix) else None
        return ResolvedPath(real, relative)


def compile_paths(patterns: Sequence[str]) -> PathPatterns:
    """Compile a ``path`` list; raises :class:`GlobError` naming the bad glob."""
    globs = tuple(compile_glob(text) for text in patterns)
    if not any(not glob.negated for glob in globs):
        raise GlobError(
            "a path list needs at least one glob without '!' (the '!' globs only exclude); "
            "add '**' for every path in the workspace"
        )
    return PathPatterns(globs)


def compile_glob(text: str) -> Glob:
    """Compile one glob of a ``path`` list (see the module's docstring)."""
    negated = text.startswith("!")
    body = text[1:] if negated else text
    if not body.strip():
        raise GlobError(f"the glob {text!r} is empty")
    if "\0" in body:
        raise GlobError(f"the glob {text!r} holds a NUL character")
    if body.startswith("~"):
        body = os.path.expanduser(body)
    absolute = body.startswith("/")
    segments = [s for s in body.split("/") if s not in ("", ".")]
    if ".." in segments:
        raise GlobError(
            f"the glob {text!r} holds '..'; paths are matched after '..' is resolved, "
            "so write the directory it leads to"
        )
    if not segments:  # "/" or "."
        return Glob(text, negated, absolute, re.compile("/" if absolute else ""))
    problem = syntax_problem(body)
    if problem:
        raise GlobError(f"the glob {text!r} {problem}")
    body = ("/" if absolute else "") + "/".join(segments)  # no "." or empty segments
    try:
        regexes = glob_regexes(body)
    except OverflowError:
        raise GlobError(
            f"the glob {text!r} expands to more than {MAX_EXPANSIONS:,} patterns "
            "({a,b}{c,d} is four); use fewer brace groups"
        ) from None
    return Glob(text, negated, absolute, re.compile("|".join(regexes)))


def workspace_of(workspace: Path | None) -> str:
    """The real absolute workspace directory (the current one when the tool has none)."""
    return _real(os.fspath(workspace) if workspace is not None else os.getcwd())


@functools.lru_cache(maxsize=64)
def _real(directory: str) -> str:
    # A tool's workspace is fixed when it is created: resolve it once, not per call.
    return os.path.realpath(directory)
