"""Check what a ripgrep ``-g`` whitelist let through against the ignore rules.

``rg --files -g '*.py'`` is the fastest listing ripgrep has: files whose name does not
match are dropped before any ignore rule is read. But a whitelisted file skips the
ignore rules entirely, and so does a directory whose own name matches. The fast path
therefore asks ripgrep to list the ignore files of the walked directories too, and this
module re-applies their rules, with the portable engine's gitignore semantics, to the
files that came back. A cheap screen (one regex per ignore file) clears most files; only
files that some rule mentions, or that sit under a directory whose name matched the
whitelist, get the full gitignore check. When no ignore file has a rule for files and
no such directory was walked, nothing can have leaked and the check is skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from toolplug_glob.walk import IgnoreLevel, is_ignored, parent_levels, read_rules


def _screen(level: IgnoreLevel) -> re.Pattern[str] | None:
    """One regex for every path a *file* rule of the level mentions.

    Rules written for directories only (``build/``) are left out: a file is never a
    directory, and the directories they exclude were pruned by ripgrep (those whose
    name matched the whitelist are checked separately). Returns None when the level
    has no file rule at all.
    """
    parts = []
    for pattern in level.spec.patterns:
        regex = getattr(pattern, "regex", None)
        if getattr(pattern, "include", None) is None or regex is None:
            continue  # a blank line or a comment
        text = getattr(pattern, "pattern", None)
        if isinstance(text, str) and text.rstrip().endswith("/"):
            continue
        # pathspec names a group in every pattern; names must be unique in one regex
        parts.append(regex.pattern.replace("(?P<ps_d>", "(?:"))
    if not parts:
        return None
    try:
        return re.compile("|".join(f"(?:{part})" for part in parts))
    except re.error:
        return re.compile("")  # cannot screen: every path gets the full check


class IgnoredCheck:
    """Says whether a listed file is one the ignore rules exclude after all."""

    def __init__(
        self,
        base: Path,
        ignore_files: list[str],
        name_match: Callable[[str], object],
        *,
        named_directories: bool = True,
    ) -> None:
        self.name_match = name_match
        #: Whether some listed path lies below a directory whose name matches the
        #: whitelist (ripgrep walks those even where they are ignored).
        self.named_directories = named_directories
        self.parent_levels = parent_levels(base)
        self.levels: dict[str, IgnoreLevel] = {}
        for directory in {"", *(f.rpartition("/")[0] for f in ignore_files)}:
            spec = read_rules(os.path.join(base, directory))
            if spec is not None:
                strip = f"{directory}/" if directory else ""
                self.levels[strip] = IgnoreLevel(spec, strip=strip)
        self.screens = {id(level): _screen(level) for level in self.all_levels()}
        #: Whether any file at all could have leaked through the whitelist.
        self.can_exclude = named_directories or any(self.screens.values())
        # Directory prefix -> excluded?, the levels in force there, those with file rules.
        self._by_dir: dict[str, tuple[bool, list[IgnoreLevel], list[IgnoreLevel]]] = {}

    def all_levels(self) -> list[IgnoreLevel]:
        """Every level: the parents' and the walked directories'."""
        return [*self.parent_levels, *self.levels.values()]

    def _directory(self, prefix: str) -> tuple[bool, list[IgnoreLevel]]:
        """Whether a directory is excluded (walked only for its name), and its file levels."""
        excluded, _, with_file_rules = self._state(prefix)
        return excluded, with_file_rules

    def _state(self, prefix: str) -> tuple[bool, list[IgnoreLevel], list[IgnoreLevel]]:
        """For the directory ``prefix`` ("" or "a/b/"): excluded?, every level in force
        for its entries, and those of them that have file rules.

        Built from the parent's state (cached), so each directory costs one step.
        """
        known = self._by_dir.get(prefix)
        if known is not None:
            return known
        if prefix:
            parent, _, name = prefix[:-1].rpartition("/")
            parent_excluded, parent_levels, _ = self._state(f"{parent}/" if parent else "")
            excluded = parent_excluded or (
                self.named_directories
                and bool(self.name_match(name))
                and is_ignored(parent_levels, prefix[:-1], True)
            )
            own = self.levels.get(prefix)
            levels = [*parent_levels, own] if own is not None else parent_levels
        else:
            excluded = False
            root = self.levels.get("")
            levels = [*self.parent_levels, *([root] if root is not None else [])]
        with_file_rules = levels if any(self.screens[id(lv)] for lv in levels) else []
        known = (excluded, levels, with_file_rules)
        self._by_dir[prefix] = known
        return known

    def keep(self, dated: list[tuple[int, str]]) -> list[tuple[int, str]]:
        """The ``(mtime, path)`` pairs whose path the ignore rules do not exclude."""
        if not self.can_exclude:
            return dated
        verdicts: dict[str, tuple[bool, list[IgnoreLevel]]] = {}
        kept = []
        for item in dated:
            directory = item[1].rpartition("/")[0]
            verdict = verdicts.get(directory)
            if verdict is None:
                verdict = self._directory(f"{directory}/" if directory else "")
                verdicts[directory] = verdict
            excluded, levels = verdict
            if excluded:
                continue
            if levels and self._file_excluded(item[1], levels):
                continue
            kept.append(item)
        return kept

    def _file_excluded(self, path: str, levels: list[IgnoreLevel]) -> bool:
        for level in levels:
            screen = self.screens[id(level)]
            if screen is not None and screen.match(level.prepend + path[len(level.strip) :]):
                return is_ignored(levels, path, False)
        return False
