"""Check what a ripgrep ``-g`` whitelist let through against the ignore rules.

``rg --files -g '*.py'`` is the fastest listing ripgrep has: files whose name does not
match are dropped before any ignore rule is read. But a whitelisted file skips the
ignore rules entirely, and so does a directory whose own name matches. The fast path
therefore asks ripgrep to list the ignore files of the walked directories too, and this
module re-applies their rules, with the portable engine's gitignore semantics, to the
files that came back. A cheap screen clears most files: only a file whose name ends
the way some ignoring rule's name does (``.log`` for ``*.log``), or that sits under a
directory whose name matched the whitelist, gets the full gitignore check. When no
ignore file has a rule for files and no such directory was walked, nothing can have
slipped through and the check is skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from toolplug_glob.endings import compatible_endings, ignoring_endings
from toolplug_glob.listing import Deadline
from toolplug_glob.walk import IgnoreLevel, is_ignored, parent_levels, read_rules


class IgnoredCheck:
    """Says which listed files the ignore rules exclude after all."""

    def __init__(
        self,
        base: Path,
        ignore_files: list[str],
        name_match: Callable[[str], object],
        *,
        listed_endings: list[str],
        named_directories: re.Pattern[str] | None,
        use_parents: bool = True,
        deadline: Deadline | None = None,
    ) -> None:
        """``ignore_files`` are those ripgrep listed (relative to ``base``);
        ``listed_endings`` are what every listed file ends with (``[".py"]`` for
        ``-g *.py``, see :mod:`~toolplug_glob.endings`); ``named_directories`` finds a
        directory named like the whitelist in a path (see
        :func:`~toolplug_glob.patterns.directory_name_finder`), or is None when no
        listed path had one; ``use_parents`` says whether the ignore files above
        ``base`` apply (as in :attr:`~toolplug_glob.listing.WalkOptions.ignore_parents`);
        ``deadline`` bounds reading the rules and :meth:`keep` (no bound when None).
        """
        self.deadline = deadline
        self.name_match = name_match
        self.named_directories = named_directories
        self.parent_levels = parent_levels(base, deadline) if use_parents else []
        self.levels: dict[str, IgnoreLevel] = {}
        for directory in {"", *(f.rpartition("/")[0] for f in ignore_files)}:
            spec = read_rules(os.path.join(base, directory), deadline=deadline)
            if spec is not None:
                strip = f"{directory}/" if directory else ""
                self.levels[strip] = IgnoreLevel(spec, strip=strip)
        endings = ignoring_endings(level.spec for level in self.all_levels())
        #: A listed file is checked in full only if its path has one of these endings
        #: (those that no listed file can have are dropped: ".log" when listing "*.py").
        self.endings = compatible_endings(endings, listed_endings)
        #: Whether any listed file at all could be one the rules exclude.
        self.can_exclude = named_directories is not None or bool(self.endings)
        # Directory prefix ("" or "a/b/") -> (excluded?, the levels in force there).
        self._by_dir: dict[str, tuple[bool, list[IgnoreLevel]]] = {}

    def all_levels(self) -> list[IgnoreLevel]:
        """Every level: the parents' and the walked directories'."""
        return [*self.parent_levels, *self.levels.values()]

    def keep(self, dated: list[tuple[int, str]]) -> list[tuple[int, str]]:
        """The ``(mtime, path)`` pairs whose path the ignore rules do not exclude."""
        if not self.can_exclude:
            return dated
        endings, finder = self.endings, self.named_directories
        if "" in endings:  # a rule such as "*" may ignore any file: check them all
            clear, suspects = [], dated
        elif finder is None:  # the common case: two passes of str.endswith, in C
            clear = [item for item in dated if not item[1].endswith(endings)]
            suspects = [item for item in dated if item[1].endswith(endings)]
        else:
            clear, suspects = [], []
            for item in dated:
                path = item[1]
                if path.endswith(endings) or finder.search(path):
                    suspects.append(item)
                else:
                    clear.append(item)
        # Each suspect may meet every rule: a slow loop, so the clock is read along it.
        checked = self.deadline.checked(suspects, every=1) if self.deadline else suspects
        return clear + [item for item in checked if not self._excluded(item[1])]

    def _excluded(self, path: str) -> bool:
        directory = path.rpartition("/")[0]
        excluded, levels = self._state(f"{directory}/" if directory else "")
        return excluded or is_ignored(levels, path, False)

    def _state(self, prefix: str) -> tuple[bool, list[IgnoreLevel]]:
        """For the directory ``prefix``: whether it is excluded (ripgrep walked it only
        for its name), and every level in force for its entries.

        Built from the parent's state (cached), so each directory costs one step.
        """
        known = self._by_dir.get(prefix)
        if known is not None:
            return known
        if prefix:
            parent, _, name = prefix[:-1].rpartition("/")
            parent_excluded, parent_levels = self._state(f"{parent}/" if parent else "")
            excluded = parent_excluded or (
                self.named_directories is not None
                and bool(self.name_match(name))
                and is_ignored(parent_levels, prefix[:-1], True)
            )
            own = self.levels.get(prefix)
            levels = [*parent_levels, own] if own is not None else parent_levels
        else:
            excluded = False
            root = self.levels.get("")
            levels = [*self.parent_levels, *([root] if root is not None else [])]
        known = (excluded, levels)
        self._by_dir[prefix] = known
        return known
