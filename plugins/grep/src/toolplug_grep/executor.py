"""The grep executor: check the call, run an engine, keep one page, tell the model."""

from __future__ import annotations

import contextlib
import difflib
import functools
import heapq
import os
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toolplug import Observation, printable, safe_text

from toolplug_grep import portable, ripgrep
from toolplug_grep.errors import PatternError, Refused, SearchTimeout
from toolplug_grep.globs import FILE_TYPES, compile_glob
from toolplug_grep.hiding import screen_for
from toolplug_grep.query import (
    BINARY_WINDOW,
    FileGlob,
    Line,
    Problems,
    Query,
    cut_line,
    path_key,
)
from toolplug_grep.types import GrepAction, GrepCount, GrepLine, GrepObservation

#: The longest error message, in characters: a message may quote a path or an OS error.
MAX_MESSAGE = 2_000
#: How much of a pattern a message quotes.
_QUOTED = 120


@dataclass(frozen=True)
class Engine:
    """A way to search: its name, its three answers (see :mod:`~toolplug_grep.query`),
    and the file types it knows (name -> globs)."""

    name: str
    files: Callable[[Query, Problems], Generator[list[str], None, None]]
    counts: Callable[[Query, Problems], Generator[tuple[str, int], None, None]]
    lines: Callable[[Query, Problems], Generator[Line, None, None]]
    types: Callable[[], dict[str, str]]


def choose_engine(name: str = "auto") -> Engine:
    """``ripgrep`` (raises if no ``rg`` is found), ``python``, or ``auto``: the best found."""
    if name not in ("auto", "ripgrep", "python"):
        raise ValueError(f"engine must be 'auto', 'ripgrep' or 'python', not {name!r}")
    rg = ripgrep.find_ripgrep() if name != "python" else None
    if rg is not None:
        return Engine(
            "ripgrep",
            functools.partial(ripgrep.files, rg),
            functools.partial(ripgrep.counts, rg),
            functools.partial(ripgrep.lines, rg),
            functools.partial(ripgrep.type_list, rg),
        )
    if name == "ripgrep":
        raise ValueError(
            "engine='ripgrep' needs the rg binary: pip install ripgrep, or apt-get install ripgrep"
        )
    return Engine("python", portable.files, portable.counts, portable.lines, FILE_TYPES.copy)


@dataclass(frozen=True)
class GrepSettings:
    """What a grep tool was created with."""

    workspace: Path
    default_limit: int
    timeout: float
    engine: Engine


class GrepExecutor:
    """Runs grep calls for one session. It holds no resources; ``close`` does nothing."""

    def __init__(self, settings: GrepSettings) -> None:
        self.settings = settings

    def close(self) -> None:
        """Nothing to release."""

    def __call__(self, action: GrepAction) -> Observation:
        pattern = quoted(action.pattern)
        try:
            return self._search(action)
        except PatternError as exc:
            message = (
                f"The pattern {pattern} cannot be searched: {exc}. Escape regex characters "
                "with a backslash to match them literally (such as '\\(' or '\\{')."
            )
        except Refused as exc:
            message = str(exc)
        except SearchTimeout as exc:
            message = (
                f"The search for {pattern} was stopped: {exc}. Search a smaller directory "
                "(path), or narrow the files with glob or type."
            )
        except OSError as exc:
            message = f"The search for {pattern} failed: {exc}"
        if len(message) > MAX_MESSAGE:
            message = f"{message[:MAX_MESSAGE]}... (cut: {len(message):,} characters in all)"
        # A path in the message may hold control characters: shown escaped (\x1b...).
        return Observation.error(safe_text(message))

    # -- steps ---------------------------------------------------------------------

    def _search(self, action: GrepAction) -> GrepObservation:
        query, where = self._query(action)
        limit = action.limit or self.settings.default_limit
        if query.target_is_file and _is_binary(query.workspace / query.target):
            name = _line(query.target)
            text = f"{name} is a binary file (it holds a NUL byte); it was not searched."
            return GrepObservation.from_text(
                printable(text),
                mode=action.output_mode,
                total=0,
                search_path=printable(str(query.workspace / query.target)),
            )
        problems = Problems()
        engine = self.settings.engine
        page = _Page(action, limit, where)
        screen = screen_for(query)  # files a hook (a policy) hid from this call
        # Each engine answer is closed on the way out: ripgrep is then stopped and reaped.
        if action.output_mode == "files_with_matches":
            with contextlib.closing(engine.files(query, problems)) as batches:
                page.files(screen.files(batches) if screen else batches, query.workspace)
        elif action.output_mode == "count":
            with contextlib.closing(engine.counts(query, problems)) as pairs:
                page.counts(screen.counts(pairs) if screen else pairs)
        else:
            needed = action.offset + limit + 1  # one more tells that there are more
            with contextlib.closing(
                engine.lines(replace(query, max_lines=needed), problems)
            ) as lines:
                page.lines(screen.lines(lines) if screen else lines, needed)
        page.note = screen.note() if screen else None
        observation = page.observation(problems, self._skipped(action, query))
        observation.search_path = printable(str(query.workspace / query.target))
        return observation

    def _query(self, action: GrepAction) -> tuple[Query, str]:
        """The checked query, and the searched path as the model named it."""
        if action.output_mode != "content" and (action.before or action.after or action.context):
            raise Refused(
                "before, after and context show lines around matches, so they need "
                "output_mode 'content'; set it, or leave them out."
            )
        if "\0" in action.pattern:
            raise PatternError("it holds a NUL character; remove it")
        workspace = self.settings.workspace
        target, is_file = self._target(action.path)
        context = action.context or 0
        return Query(
            workspace=workspace,
            target=target,
            target_is_file=is_file,
            pattern=action.pattern,
            case_insensitive=action.case_insensitive,
            multiline=action.multiline,
            file_type=self._file_type(action.type),
            glob=self._glob(action.glob),
            include_hidden=action.include_hidden,
            no_ignore=action.no_ignore,
            before=action.before if action.before is not None else context,
            after=action.after if action.after is not None else context,
            timeout=self.settings.timeout,
        ), _line(target) if target else "the workspace"

    def _target(self, path: str | None) -> tuple[str, bool]:
        """The searched path relative to the workspace ("" for all), and if it is a file."""
        workspace = self.settings.workspace
        if not path or path in (".", "./"):
            return "", False
        if "\0" in path:
            raise Refused(f"The path {quoted(path)} holds a NUL character, which no name can.")
        resolved = (workspace / Path(path).expanduser()).resolve()
        if not resolved.is_relative_to(workspace):
            raise Refused(
                f"The path {quoted(path)} leads to {resolved}, outside the workspace "
                f"{workspace}. Search inside the workspace: give a relative path such as "
                "'src', or omit path to search all of it."
            )
        if not resolved.exists():
            hint = (
                " path names one file or directory: to pick files by name, use glob."
                if any(char in path for char in "*?[{")
                else ""
            )
            raise Refused(
                f"The path {quoted(path)} does not exist (looked for {resolved}). Give a file "
                f"or directory in the workspace, or omit path to search all of it.{hint}"
            )
        if not (resolved.is_dir() or resolved.is_file()):
            raise Refused(
                f"The path {quoted(path)} is not a regular file or a directory (a FIFO, a "
                "socket or a device), and reading one may never end: grep searches regular "
                "files only. Give a file or directory, or omit path to search all of it."
            )
        rel = resolved.relative_to(workspace).as_posix()
        return ("" if rel == "." else rel), resolved.is_file()

    def _glob(self, text: str | None) -> FileGlob | None:
        if not text:
            return None
        try:
            return compile_glob(text)
        except PatternError as exc:
            raise Refused(f"The glob cannot be used: {exc}.") from None

    def _file_type(self, name: str | None) -> str | None:
        if not name:
            return None
        known = self.settings.engine.types()
        if name in known:
            return name
        close = difflib.get_close_matches(name, list(known), n=6, cutoff=0.5)
        hint = f" Close ones: {', '.join(close)}." if close else ""
        if self.settings.engine.name == "python":
            hint += f" (Without rg, only these are known: {', '.join(sorted(known))}.)"
        raise Refused(
            f"{quoted(name)} is not a known file type.{hint} Use a glob such as '*.ext' "
            "for other files."
        )

    def _skipped(self, action: GrepAction, query: Query) -> str:
        """What was left out of the search, for the note on an empty answer."""
        if query.target_is_file:
            return ""
        left_out = {"hidden": not action.include_hidden, "git-ignored": not action.no_ignore}
        flags = {"hidden": "include_hidden", "git-ignored": "no_ignore"}
        kinds = [kind for kind, out in left_out.items() if out]
        note = "(Binary files and symbolic links are never searched.)"
        if kinds:
            switches = " or ".join(flags[kind] for kind in kinds)
            note = (
                f"({' and '.join(kinds).capitalize()} files were not searched: set {switches} "
                "to search them. Binary files and symbolic links never are.)"
            )
        return note


class _Page:
    """Collects one page of results for a call, and writes the observation."""

    def __init__(self, action: GrepAction, limit: int, where: str) -> None:
        self.action = action
        self.limit = limit
        self.where = where
        self.total: int | None = 0
        self.files_shown: list[str] = []
        self.counts_shown: list[GrepCount] = []
        self.lines_shown: list[GrepLine] = []
        self.matches = 0  # count mode: the sum of the counts
        #: What was hidden from the call, if anything (see :mod:`~toolplug_grep.hiding`).
        self.note: str | None = None

    def files(self, batches: Iterator[list[str]], workspace: Path) -> None:
        """Every file with a match, dated; keep the page's, newest first then by path."""
        want = self.action.offset + self.limit
        dated: list[tuple[int, list[str], str]] = []
        total = 0
        for batch in batches:
            for path in batch:
                try:
                    mtime = os.stat(workspace / path).st_mtime_ns
                except OSError:  # removed since it was searched
                    continue
                dated.append((-mtime, path_key(path), path))
                total += 1
            if len(dated) > 2 * want + 4096:  # bound the memory on huge answers
                dated = heapq.nsmallest(want, dated)
        newest = heapq.nsmallest(want, dated)
        self.total = total
        self.files_shown = [printable(path) for _, _, path in newest[self.action.offset :]]

    def counts(self, pairs: Iterator[tuple[str, int]]) -> None:
        """Every file's count; keep the page's, by path."""
        want = self.action.offset + self.limit
        kept: list[tuple[list[str], str, int]] = []
        total = 0
        for path, count in pairs:
            kept.append((path_key(path), path, count))
            total += 1
            self.matches += count
            if len(kept) > 2 * want + 4096:
                kept = heapq.nsmallest(want, kept)
        self.total = total
        self.counts_shown = [
            GrepCount(file=printable(path), count=count)
            for _, path, count in heapq.nsmallest(want, kept)[self.action.offset :]
        ]

    def lines(self, lines: Iterator[Line], needed: int) -> None:
        """Read lines until the page and one more are in (the caller stops the engine)."""
        seen = 0
        for line in lines:
            seen += 1
            if seen > self.action.offset and len(self.lines_shown) < self.limit:
                self.lines_shown.append(
                    GrepLine(
                        file=printable(line.file),
                        line=line.number,
                        text=printable(cut_line(line.text)),
                        is_match=line.is_match,
                    )
                )
            if seen >= needed:
                break
        self.total = None if seen >= needed else seen

    def observation(self, problems: Problems, skipped: str) -> GrepObservation:
        """The page as the model reads it, with its typed fields."""
        action = self.action
        shown = len(self.files_shown) + len(self.counts_shown) + len(self.lines_shown)
        end = action.offset + shown
        more = self.total is None or self.total > end
        lines = self._body()
        if not shown:
            lines = [self._nothing(skipped)]
        if more:
            left = "More" if self.total is None else f"{self.total - end:,} more"
            lines.append(
                f"({left} not shown; use offset={end} for the next page, or narrow the search.)"
            )
        if self.note:
            lines.append(self.note)
        if problems.count:
            noun = "entry" if problems.count == 1 else "entries"
            verb = "was" if problems.count == 1 else "were"
            lines.append(
                f"({problems.count:,} {noun} could not be read and {verb} skipped, such as:"
            )
            lines.extend(f"  {_line(example)}" for example in problems.examples)
            lines[-1] += ")"
        fields: dict[str, Any] = {
            "mode": action.output_mode,
            "files": self.files_shown,
            "counts": self.counts_shown,
            "lines": self.lines_shown,
            "total": self.total,
            "next_offset": end if more else None,
        }
        return GrepObservation.from_text(printable("\n".join(lines)), **fields)

    def _body(self) -> list[str]:
        action, pattern = self.action, quoted(self.action.pattern)
        first = action.offset + 1
        if self.files_shown:
            total = self.total or 0
            noun = "file matches" if total == 1 else "files match"
            span = (
                ""
                if len(self.files_shown) == total
                else f"; files {first}-{first + len(self.files_shown) - 1}"
            )
            return [
                f"{total:,} {noun} {pattern} in {self.where}, newest first{span}:",
                *map(_line, self.files_shown),
            ]
        if self.counts_shown:
            total = self.total or 0
            noun = "match" if action.multiline else "matching line"
            plural = "" if self.matches == 1 else "es" if action.multiline else "s"
            head = f"{self.matches:,} {noun}{plural}"
            return [
                f"{head} for {pattern} in {total:,} {'file' if total == 1 else 'files'} "
                f"in {self.where}, by path:",
                *(f"{_line(item.file)}:{item.count}" for item in self.counts_shown),
            ]
        if not self.lines_shown:
            return []
        context = bool(action.before or action.after or action.context)
        how = "path:line:text, and context lines as path-line-text" if context else "path:line:text"
        out = [f"Lines matching {pattern} in {self.where}, as {how}:"]
        previous: GrepLine | None = None
        for line in self.lines_shown:
            if (
                context
                and previous is not None
                and (previous.file != line.file or previous.line + 1 != line.line)
            ):
                out.append("--")
            mark = ":" if line.is_match else "-"
            # The typed fields keep the name and the line as they are; the text shows
            # them with what a terminal would act on escaped (ESC, U+202E...).
            out.append(f"{_line(line.file)}{mark}{line.line}{mark}{safe_text(line.text)}")
            previous = line
        return out

    def _nothing(self, skipped: str) -> str:
        action = self.action
        if action.offset and self.total:
            return (
                f"No results from offset {action.offset}: there are {self.total:,}. "
                "Use a smaller offset."
            )
        text = f"No matches for {quoted(action.pattern)} in {self.where}."
        filters = [
            f"glob {quoted(action.glob)}" if action.glob else "",
            f"type {action.type!r}" if action.type else "",
        ]
        named = " and ".join(f for f in filters if f)
        if named:
            text += f" Only files passing {named} were searched."
        return f"{text} {skipped}".rstrip()


def _line(name: str) -> str:
    """A name or path as the text shows it: one line, no control character raw."""
    return safe_text(name, one_line=True)


def quoted(text: str) -> str:
    """``text`` in quotes for a message (as written, unless it needs escapes), bounded."""
    cut = text[:_QUOTED]
    shown = f"'{cut}'" if cut.isprintable() and "'" not in cut else repr(cut)
    return shown if len(text) <= _QUOTED else f"{shown}... ({len(text):,} characters)"


def _is_binary(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return b"\0" in f.read(BINARY_WINDOW)
    except OSError:
        return False
