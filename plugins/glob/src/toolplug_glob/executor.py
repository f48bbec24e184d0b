"""The glob executor: check the call, list the files, match, sort newest first."""

from __future__ import annotations

import functools
import heapq
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from toolplug import Observation, printable, safe_text

from toolplug_glob.errors import PatternError, Refused, SearchTimeout
from toolplug_glob.hiding import note, unhidden
from toolplug_glob.listing import Deadline, Sink, WalkOptions, WalkReport
from toolplug_glob.patterns import (
    SplitPattern,
    compile_glob,
    name_glob,
    quoted,
    split_pattern,
)
from toolplug_glob.ripgrep import find_ripgrep, walk_rg
from toolplug_glob.types import GlobAction, GlobObservation
from toolplug_glob.walk import parent_levels, start_is_named, walk_python

Walk = Callable[[Path, WalkOptions, Sink], WalkReport]

#: The longest error message, in characters: a message may quote a path or an OS error.
MAX_MESSAGE = 2_000


@dataclass(frozen=True)
class Engine:
    """A way to walk a directory: its name and the function."""

    name: str
    walk: Walk
    #: Whether the walk honours ``WalkOptions.name_glob`` exactly (ripgrep's file types).
    filters_names: bool = False


def choose_engine(name: str = "auto") -> Engine:
    """``ripgrep`` (raises if no ``rg`` is found), ``python``, or ``auto``: the best found."""
    if name not in ("auto", "ripgrep", "python"):
        raise ValueError(f"engine must be 'auto', 'ripgrep' or 'python', not {name!r}")
    rg = find_ripgrep() if name != "python" else None
    if rg is not None:
        return Engine("ripgrep", functools.partial(walk_rg, rg), filters_names=True)
    if name == "ripgrep":
        raise ValueError(
            "engine='ripgrep' needs the rg binary: pip install ripgrep, or apt-get install ripgrep"
        )
    return Engine("python", walk_python)


@dataclass(frozen=True)
class GlobSettings:
    """What a glob tool was created with."""

    workspace: Path
    home: str
    default_limit: int
    include_hidden: bool
    include_ignored: bool
    allow_outside_workspace: bool
    timeout: float
    engine: Engine


class GlobExecutor:
    """Runs glob calls for one session. It holds no resources; ``close`` does nothing."""

    def __init__(self, settings: GlobSettings) -> None:
        self.settings = settings

    def close(self) -> None:
        """Nothing to release."""

    def __call__(self, action: GlobAction) -> Observation:
        pattern = quoted(action.pattern)
        try:
            return self._search(action)
        except PatternError as exc:
            message = f"The pattern {pattern} cannot match: {exc}."
        except Refused as exc:
            message = str(exc)
        except SearchTimeout as exc:
            message = (
                f"The search for {pattern} was stopped: {exc}. "
                "Search a smaller directory (path) or a pattern with a directory part."
            )
        except OSError as exc:
            message = f"The search for {pattern} failed: {exc}"
        if len(message) > MAX_MESSAGE:  # a very long path, echoed by the OS or by us
            message = f"{message[:MAX_MESSAGE]}... (cut: {len(message):,} characters in all)"
        # A path in the message may hold a name that is not UTF-8 (shown as \xNN), or
        # control characters a terminal would act on (shown as \x1b, \u202e...).
        return Observation.error(safe_text(message))

    # -- steps ---------------------------------------------------------------------

    def _search(self, action: GlobAction) -> GlobObservation:
        settings = self.settings
        # One clock for the whole call: every phase below reads it.
        deadline = Deadline.after(settings.timeout)
        search_dir = self._search_dir(action.path)
        split = split_pattern(self._expand_home(action.pattern))
        regex = compile_glob(split.glob)
        base = self._base(search_dir, split, action.pattern)
        limit = action.limit or settings.default_limit
        if not base.is_dir():
            return self._nothing(action, search_dir, split, base, WalkReport())
        hidden = settings.include_hidden or split.names_hidden
        name = name_glob(split.glob)
        options = WalkOptions(
            include_hidden=hidden,
            include_ignored=settings.include_ignored,
            follow_links=settings.allow_outside_workspace,
            # A directory asked for by name is searched even where a rule above ignores it.
            ignore_parents=settings.include_ignored
            or not start_is_named(parent_levels(base, deadline)),
            timeout=settings.timeout,
            deadline=deadline,
            name_glob=name,
            name_regex=compile_glob(name) if name else None,
        )
        # When ripgrep already matched "**/NAME" by NAME exactly, skip matching again.
        by_name = settings.engine.filters_names and split.glob == f"**/{options.name_glob}"
        exact = by_name and not any(char in "[{" for char in split.glob)
        dated = _Dated(
            base, None if exact else regex.fullmatch, keep_hidden=hidden, deadline=deadline
        )
        try:
            report = settings.engine.walk(base, options, dated.take)
        finally:
            dated.close()
        if report.keep is not None:
            dated.found = report.keep(dated.found)
        dated.found, hidden_count = unhidden(base, dated.found)  # what a hook (a policy) hid
        deadline.check()
        total = len(dated.found)
        if not total:
            return self._nothing(action, search_dir, split, base, report, note(hidden_count))
        shown = [printable(_display(search_dir, base, path)) for path in dated.newest(limit)]
        # The text shows each name on one line with its controls escaped; the typed
        # field keeps the names as they are.
        text = _report(action.pattern, search_dir, [_line(path) for path in shown], total, report)
        if hidden_count:
            text += f"\n{note(hidden_count)}"
        return GlobObservation.from_text(
            text,
            files=shown,
            total=total,
            truncated=total > len(shown),
            search_dir=printable(str(search_dir)),
        )

    def _expand_home(self, text: str) -> str:
        if "\0" in text:  # no user is named so; the caller refuses the NUL
            return text
        if text == "~" or text.startswith("~/"):
            return self.settings.home + text[1:]
        return os.path.expanduser(text) if text.startswith("~") else text

    def _search_dir(self, path: str | None) -> Path:
        workspace = self.settings.workspace
        if not path:
            return workspace
        if "\0" in path:
            raise Refused(
                f"The path {quoted(path)} holds a NUL character, which no file name can; "
                "remove it, or omit path to search the whole workspace."
            )
        directory = (workspace / self._expand_home(path)).resolve()
        self._check_inside(directory, f"the path {quoted(path)}")
        if not directory.exists():
            raise Refused(
                f"The path {quoted(path)} does not exist (looked for {directory}). "
                "Give an existing directory, or omit path to search the whole workspace."
            )
        if not directory.is_dir():
            raise Refused(
                f"The path {quoted(path)} is a file, not a directory. Give its directory as path, "
                "or omit path to search the whole workspace."
            )
        return directory

    def _base(self, search_dir: Path, split: SplitPattern, pattern: str) -> Path:
        """The directory to walk: the search dir plus the pattern's literal directories."""
        base = (search_dir / split.prefix).resolve() if split.prefix else search_dir
        self._check_inside(base, f"the pattern {quoted(pattern)}")
        return base

    def _check_inside(self, directory: Path, what: str) -> None:
        workspace = self.settings.workspace
        if self.settings.allow_outside_workspace or directory.is_relative_to(workspace):
            return
        raise Refused(
            f"{what[0].upper()}{what[1:]} leads to {directory}, outside the workspace "
            f"{workspace}. Search inside the workspace: use a relative pattern such as "
            "'**/*.py' or a path inside it."
        )

    def _nothing(
        self,
        action: GlobAction,
        search_dir: Path,
        split: SplitPattern,
        base: Path,
        report: WalkReport,
        hidden_note: str | None = None,
    ) -> GlobObservation:
        lines = [f"No files match {quoted(action.pattern)} in {_line(search_dir)}."]
        if hidden_note:
            lines.append(hidden_note)
        if split.prefix and not base.exists():
            lines.append(f"The directory '{_line(base)}' does not exist.")
        elif split.prefix and not base.is_dir():
            lines.append(f"'{_line(base)}' is a file, not a directory.")
        elif "/" not in action.pattern and "**" not in action.pattern:
            lines.append(
                f"{quoted(action.pattern)} matches only the top directory's files; "
                f"use {quoted('**/' + action.pattern)} to search every level."
            )
        skipped = []
        if not self.settings.include_hidden and not split.names_hidden:
            skipped.append("hidden")
        if not self.settings.include_ignored:
            skipped.append("git-ignored")
        notes = [f"{' and '.join(skipped)} files were not searched"] if skipped else []
        if not self.settings.allow_outside_workspace:
            notes.append("symbolic links were not followed")
        if notes:
            note = "; ".join(notes)
            lines.append(f"({note[0].upper()}{note[1:]}.)")
        lines.extend(_problem_lines(report))
        return GlobObservation.from_text("\n".join(lines), search_dir=printable(str(search_dir)))


class _Dated:
    """The sink of a walk: keeps the matching paths with their modification times."""

    def __init__(
        self,
        base: Path,
        match: Callable[[str], object] | None,
        *,
        keep_hidden: bool,
        deadline: Deadline,
    ) -> None:
        self.deadline = deadline
        self.base_fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
        self.match = match
        self.keep_hidden = keep_hidden
        self.found: list[tuple[int, str]] = []

    def take(self, paths: list[str]) -> None:
        """Match a batch of paths and date the matches (stat only those)."""
        self.deadline.check()  # a batch is at most one read of ripgrep's output
        match = self.match
        if match is not None:
            paths = [path for path in paths if match(path)]
        if not self.keep_hidden:
            # A file type in ripgrep lets hidden files through; hidden directories are
            # never entered, so only a name can start with a dot here. One search of the
            # whole batch first: most batches hold no hidden name at all.
            joined = "\0".join(paths)
            if joined.startswith(".") or "/." in joined or "\0." in joined:
                paths = [path for path in paths if not (path[0] == "." or "/." in path)]
        stat, base = os.stat, self.base_fd
        try:  # the fast path: one comprehension (stat is most of the tool's own time)
            # Relative to an open directory: the kernel walks fewer path components.
            self.found += [(-stat(path, dir_fd=base).st_mtime_ns, path) for path in paths]
        except OSError:  # a file went away since it was listed: date one by one
            for path in paths:
                try:
                    self.found.append((-stat(path, dir_fd=base).st_mtime_ns, path))
                except OSError:
                    continue

    def close(self) -> None:
        """Release the directory handle."""
        os.close(self.base_fd)

    def newest(self, limit: int) -> list[str]:
        """The ``limit`` most recently modified matches, newest first, then by path."""
        return [path for _, path in heapq.nsmallest(limit, self.found)]


def _line(name: str | Path) -> str:
    """A name or path as the text shows it: one line, no control character raw."""
    return safe_text(str(name), one_line=True)


def _display(search_dir: Path, base: Path, path: str) -> str:
    """A listed path as the model sees it: relative to the search dir when inside it."""
    if base == search_dir:
        return path
    if base.is_relative_to(search_dir):
        return f"{base.relative_to(search_dir).as_posix()}/{path}"
    return f"{base.as_posix()}/{path}"


def _report(
    pattern: str, search_dir: Path, shown: list[str], total: int, report: WalkReport
) -> str:
    noun = "file matches" if total == 1 else "files match"
    head = f"{total:,} {noun} {quoted(pattern)} in {_line(search_dir)}, newest first"
    lines = [f"{head}:" if len(shown) == total else f"{head}; the newest {len(shown):,}:"]
    lines.extend(shown)
    if total > len(shown):
        lines.append(
            f"({total - len(shown):,} more not shown. Narrow the search with a more specific "
            "pattern or a path, or ask for a larger limit.)"
        )
    lines.extend(_problem_lines(report))
    return "\n".join(lines)


def _problem_lines(report: WalkReport) -> list[str]:
    if not report.problems:
        return []
    noun = "entry" if report.problems == 1 else "entries"
    lines = [f"({report.problems:,} {noun} could not be read and were skipped, such as:"]
    lines.extend(f"  {_line(example)}" for example in report.examples)
    lines[-1] += ")"
    return lines
