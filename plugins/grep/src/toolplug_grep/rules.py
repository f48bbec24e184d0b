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

Paths here are relative to the searched directory. Each :class:`Level` knows how to
turn one into a path relative to its own directory, for ``pathspec`` to match.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

#: Ignore files read in each directory, lowest precedence first (as in ripgrep).
IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
_SOURCES = (os.path.join(".git", "info", "exclude"), *IGNORE_FILES)


@dataclass(frozen=True)
class Level:
    """The rules written in one directory.

    A searched path becomes a path from this directory by dropping ``drop`` leading
    characters (the directories above it, for a level below the searched directory)
    and putting ``above`` in front (the way down to the searched directory, for a level
    above it).
    """

    spec: GitIgnoreSpec
    drop: int = 0
    above: str = ""

    def verdict(self, rel: str, is_dir: bool) -> bool | None:
        """True: ignored here; False: re-included by a ``!`` rule; None: not mentioned."""
        local = f"{self.above}{rel[self.drop :]}{'/' if is_dir else ''}"
        return self.spec.check_file(local).include


def load_spec(
    directory: str | os.PathLike[str], present: set[str] | None = None
) -> GitIgnoreSpec | None:
    """Every rule written in ``directory``'s ignore files, or None when there is none.

    ``present`` (the directory's entry names, when the caller has them) saves opening
    files that are not there.
    """
    rules: list[str] = []
    for source in _SOURCES:
        if present is not None and source.partition(os.sep)[0] not in present:
            continue
        try:
            rules += Path(directory, source).read_text("utf-8", errors="replace").splitlines()
        except OSError:
            pass
    return GitIgnoreSpec.from_lines(rules) if rules else None


def excluded_by(levels: list[Level], rel: str, is_dir: bool) -> bool:
    """Whether ``levels`` (outermost first) exclude ``rel``: the innermost verdict counts."""
    for level in reversed(levels):
        verdict = level.verdict(rel, is_dir)
        if verdict is not None:
            return verdict
    return False


def parent_levels(start: Path) -> list[Level]:
    """The levels of every directory above ``start``, outermost first.

    Rules that name ``start`` or a directory on the way to it are left out (see above).
    """
    found: list[Level] = []
    for parent in reversed(start.parents):
        spec = load_spec(parent)
        if spec is None:
            continue
        way = start.relative_to(parent).as_posix()
        # "a/b" -> "a/", "a/b/": the directories from ``parent`` down to ``start``.
        steps = [way[: i + 1] for i, char in enumerate(way) if char == "/"] + [f"{way}/"]
        kept = [
            rule
            for rule in spec.patterns
            if rule.include is None or not any(rule.match_file(step) for step in steps)
        ]
        if any(rule.include is not None for rule in kept):
            found.append(Level(GitIgnoreSpec(kept), above=f"{way}/"))
    return found


class ParentScreen:
    """Drops the files that the rules above the searched directory exclude.

    A file is out when a directory on its way is, or when it is itself, judged by every
    level in force there: the parents' and those of the directories below, read as
    they are met (so that a deeper ``!rule`` still wins).
    """

    def __init__(self, start: Path, levels: list[Level]) -> None:
        self.start = start
        #: Directory ("" or "a/b/") -> whether it is excluded, and its levels.
        self._known: dict[str, tuple[bool, list[Level]]] = {"": (False, self._with_own("", levels))}

    def excluded(self, rel: str) -> bool:
        """Whether the file ``rel`` is excluded."""
        out, levels = self._directory(rel[: rel.rfind("/") + 1])
        return out or excluded_by(levels, rel, False)

    def _directory(self, prefix: str) -> tuple[bool, list[Level]]:
        if prefix not in self._known:
            parent = prefix[: prefix.rstrip("/").rfind("/") + 1]
            out, levels = self._directory(parent)
            out = out or excluded_by(levels, prefix.rstrip("/"), True)
            self._known[prefix] = (out, self._with_own(prefix, levels))
        return self._known[prefix]

    def _with_own(self, prefix: str, levels: list[Level]) -> list[Level]:
        spec = load_spec(self.start / prefix)
        return levels if spec is None else [*levels, Level(spec, drop=len(prefix))]
