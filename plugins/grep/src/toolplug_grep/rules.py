"""Ignore rules (``.gitignore``, ``.ignore``, ``.rgignore``, ``.git/info/exclude``) in Python.

The portable engine walks with these rules. The ripgrep engine uses them for the
directories *above* the searched one: ripgrep matches a parent directory's anchored
rule against paths relative to the searched directory (``src/*.txt`` in the root's
``.gitignore`` then drops ``src/src/d.txt`` when ``src`` is searched), so ``rg`` runs
with ``--no-ignore-parent`` and :class:`ParentScreen` applies those rules the way git
reads them.

A searched directory is named explicitly, so it is searched even when a rule above
ignores it (``build/``), as ripgrep does with a path argument: the rules of the
directories above that name the searched directory, or one on the way to it, are left
out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

#: Ignore files read in each directory, lowest precedence first (as in ripgrep).
IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")


@dataclass(frozen=True)
class IgnoreLevel:
    """The ignore rules of one directory, and how to name a path relative to it."""

    spec: GitIgnoreSpec
    #: Prefix of the checked path that lies above this level's directory.
    strip: str = ""
    #: Path from this level's directory down to the searched one (for parent levels).
    prepend: str = ""

    def decides(self, rel: str, is_dir: bool) -> bool | None:
        """True if ignored here, False if re-included with '!', None if not mentioned."""
        key = self.prepend + rel[len(self.strip) :] + ("/" if is_dir else "")
        return self.spec.check_file(key).include


def read_rules(directory: str, names: set[str] | None = None) -> GitIgnoreSpec | None:
    """The ignore rules written in one directory, or None when it has none.

    ``names``, when given, are the directory's entries: files not among them are not tried.
    """
    lines: list[str] = []
    for name in (os.path.join(".git", "info", "exclude"), *IGNORE_FILES):
        if names is not None and name.split(os.sep, 1)[0] not in names:
            continue
        try:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
                lines.extend(f.read().splitlines())
        except OSError:
            continue
    return GitIgnoreSpec.from_lines(lines) if lines else None


def is_ignored(levels: list[IgnoreLevel], rel: str, is_dir: bool) -> bool:
    """Whether the levels (outermost first) exclude ``rel``: the deepest that decides wins."""
    for level in reversed(levels):
        decision = level.decides(rel, is_dir)
        if decision is not None:
            return decision
    return False


def parent_levels(start: Path) -> list[IgnoreLevel]:
    """The rules of every directory above ``start``, outermost first, relative to ``start``.

    Rules that name ``start`` or a directory on the way to it are left out (see above).
    """
    levels: list[IgnoreLevel] = []
    for parent in reversed(start.parents):
        spec = read_rules(str(parent))
        if spec is None:
            continue
        way = start.relative_to(parent).parts
        steps = ["/".join(way[: i + 1]) + "/" for i in range(len(way))]
        kept = [
            p
            for p in spec.patterns
            if p.include is None or not any(p.match_file(step) for step in steps)
        ]
        if any(p.include is not None for p in kept):
            levels.append(IgnoreLevel(GitIgnoreSpec(kept), prepend="/".join(way) + "/"))
    return levels


class ParentScreen:
    """Drops the files that the rules above the searched directory exclude.

    Paths are relative to the searched directory. A file is excluded when one of its
    directories is, or the file itself is, judged with every level in force there:
    the parents' and those of the directories below (a deeper ``!rule`` wins).
    """

    def __init__(self, start: Path, levels: list[IgnoreLevel]) -> None:
        self.start = start
        self.levels = levels
        # Directory prefix ("" or "a/b/") -> (excluded?, the levels in force there).
        self._by_dir: dict[str, tuple[bool, list[IgnoreLevel]]] = {}

    def excluded(self, rel: str) -> bool:
        """Whether the file ``rel`` is excluded."""
        directory = rel.rpartition("/")[0]
        excluded, levels = self._state(f"{directory}/" if directory else "")
        return excluded or is_ignored(levels, rel, False)

    def _state(self, prefix: str) -> tuple[bool, list[IgnoreLevel]]:
        known = self._by_dir.get(prefix)
        if known is not None:
            return known
        if prefix:
            parent, _, _ = prefix[:-1].rpartition("/")
            parent_excluded, levels = self._state(f"{parent}/" if parent else "")
            excluded = parent_excluded or is_ignored(levels, prefix[:-1], True)
        else:
            excluded, levels = False, self.levels
        spec = read_rules(os.path.join(self.start, prefix))
        if spec is not None:
            levels = [*levels, IgnoreLevel(spec, strip=prefix)]
        known = (excluded, levels)
        self._by_dir[prefix] = known
        return known
