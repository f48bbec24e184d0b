"""The portable engine: ``os.scandir`` and ``pathspec``, for when no ``rg`` is found.

It keeps the same files as the ripgrep engine: ignore files (``.gitignore``,
``.ignore``, ``.rgignore`` and ``.git/info/exclude``) apply in the searched directory,
below it and in its parent directories, with gitignore's precedence (the deeper file
wins, a later line wins within a file, ``!`` re-includes); hidden entries are skipped.
Symbolic links are skipped, as ripgrep does without ``--follow``; when links are
followed, a link back to a directory being walked is reported and not entered.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from pathspec import GitIgnoreSpec

from toolplug_glob.endings import ignoring_endings
from toolplug_glob.listing import Deadline, Sink, WalkOptions, WalkReport

#: Ignore files read in each directory, lowest precedence first (as in ripgrep).
IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
_KEPT_PROBLEMS = 5


@dataclass(frozen=True)
class IgnoreLevel:
    """The ignore rules of one directory, and how to name a path relative to it."""

    spec: GitIgnoreSpec
    #: Prefix of the listed path that lies above this level's directory.
    strip: str = ""
    #: Path from this level's directory down to the searched one (for parent levels).
    prepend: str = ""

    def decides(self, rel: str, is_dir: bool) -> bool | None:
        """True if ignored here, False if re-included with '!', None if not mentioned."""
        key = self.prepend + rel[len(self.strip) :] + ("/" if is_dir else "")
        return self.spec.check_file(key).include


def read_rules(
    directory: str, names: set[str] | None = None, deadline: Deadline | None = None
) -> GitIgnoreSpec | None:
    """The ignore rules written in one directory, or None when it has none.

    ``names``, when given, are the directory's entries: files not among them are not
    tried. Compiling a rule costs a regular expression: a hostile ignore file of many
    thousands of rules takes seconds, so the ``deadline`` is checked as they compile.
    """
    candidates = [os.path.join(".git", "info", "exclude"), *IGNORE_FILES]
    lines: list[str] = []
    for name in candidates:
        if names is not None and name.split(os.sep, 1)[0] not in names:
            continue
        try:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
                lines.extend(f.read().splitlines())
        except OSError:
            continue
    if not lines:
        return None
    return GitIgnoreSpec.from_lines(deadline.checked(lines) if deadline else lines)


def parent_levels(base: Path, deadline: Deadline | None = None) -> list[IgnoreLevel]:
    """The ignore rules of every directory above ``base``, outermost first."""
    levels: list[IgnoreLevel] = []
    for parent in reversed(base.parents):
        spec = read_rules(str(parent), deadline=deadline)
        if spec is not None:
            levels.append(IgnoreLevel(spec, prepend=base.relative_to(parent).as_posix() + "/"))
    return levels


def start_is_named(levels: list[IgnoreLevel]) -> bool:
    """Whether a rule of a parent level names the walked directory or one above it.

    ripgrep never tests the directory it starts in, nor those above it, against the
    parents' rules (``build/`` in ``./.gitignore`` does not stop ``cd build; rg
    --files``), while a gitignore reading says everything below is excluded. Such a
    search was asked for by name: both engines then leave the parents' ignore files
    out, and apply only those found in the walk.
    """
    return any(
        pattern.include is not None and pattern.match_file(level.prepend)
        for level in levels
        for pattern in level.spec.patterns
    )


def is_ignored(levels: list[IgnoreLevel], rel: str, is_dir: bool) -> bool:
    """Whether the levels (outermost first) exclude ``rel``: the deepest that decides wins."""
    for level in reversed(levels):
        decision = level.decides(rel, is_dir)
        if decision is not None:
            return decision
    return False


class _Directory(NamedTuple):
    """A directory the walk has still to read."""

    path: str
    #: Its path relative to the base ("" or "a/b/").
    rel: str
    #: The ignore levels in force there, and the endings of their file rules.
    levels: list[IgnoreLevel]
    endings: tuple[str, ...]
    #: The (device, inode) of it and its ancestors (loop detection).
    ancestors: frozenset[tuple[int, int]]


def walk_python(base: Path, options: WalkOptions, sink: Sink) -> WalkReport:
    """Send every file below ``base`` that the ignore and hidden rules keep to ``sink``.

    Paths are relative to ``base``; each directory's files go in one batch.
    """
    deadline = options.clock()
    use_ignores = not options.include_ignored
    problems: list[str] = []
    root = os.stat(base)
    levels = parent_levels(base, deadline) if use_ignores and options.ignore_parents else []
    endings = tuple(ignoring_endings(level.spec for level in levels))
    stack = [_Directory(str(base), "", levels, endings, frozenset({(root.st_dev, root.st_ino)}))]
    while stack:
        deadline.check()
        here = stack.pop()
        try:
            with os.scandir(here.path) as scan:
                entries = list(scan)
        except OSError as exc:
            problems.append(f"{here.rel.rstrip('/') or '.'}: {exc.strerror or exc}")
            continue
        if use_ignores:
            spec = read_rules(here.path, {e.name for e in entries}, deadline)
            if spec is not None:
                levels = [*here.levels, IgnoreLevel(spec, strip=here.rel)]
                endings = tuple(ignoring_endings(level.spec for level in levels))
                here = here._replace(levels=levels, endings=endings)
        files = _sort_entries(entries, here, options, deadline, stack, problems)
        if files:
            sink(files)
    return WalkReport(problems=len(problems), examples=problems[:_KEPT_PROBLEMS])


def _sort_entries(
    entries: list[os.DirEntry[str]],
    here: _Directory,
    options: WalkOptions,
    deadline: Deadline,
    stack: list[_Directory],
    problems: list[str],
) -> list[str]:
    """The files of one directory that the rules keep; its subdirectories to walk go
    on ``stack``, what could not be read in ``problems``."""
    use_ignores = not options.include_ignored
    rel, levels, endings, ancestors = here.rel, here.levels, here.endings, here.ancestors
    files: list[str] = []
    # Each entry may be checked against every ignore rule: a directory of many
    # entries under many rules is slow, so the clock is read along the way.
    for entry in deadline.checked(entries, every=1):
        if not options.include_hidden and entry.name.startswith("."):
            continue
        child = rel + entry.name
        try:
            if not options.follow_links and entry.is_symlink():
                continue
            if entry.is_dir():
                if use_ignores and is_ignored(levels, child, True):
                    continue
                info = entry.stat()
                key = (info.st_dev, info.st_ino)
                if key in ancestors:
                    problems.append(f"{child}: file system loop (a link to a parent)")
                    continue
                stack.append(
                    _Directory(entry.path, child + "/", levels, endings, ancestors | {key})
                )
            elif entry.is_file():
                # Only a name with a file rule's ending can be ignored by itself (the
                # directories it is in were not ignored, or it would not be here).
                if not (entry.name.endswith(endings) and is_ignored(levels, child, False)):
                    files.append(child)
            elif entry.is_symlink():
                problems.append(f"{child}: broken symbolic link")
        except OSError as exc:
            problems.append(f"{child}: {exc.strerror or exc}")
    return files
