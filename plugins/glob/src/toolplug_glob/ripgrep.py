"""The fast engine: ``rg --files`` lists the files, with ripgrep's ignore rules.

ripgrep walks the tree on every core, reads ``.gitignore``, ``.ignore`` and
``.rgignore`` files (nested and in parent directories) and ``.git/info/exclude``,
and skips hidden entries. ``--follow`` follows every symbolic link or none: ripgrep
has no way to follow only the links that stay in a directory, so links are followed
(with loop detection) only when the tool may leave its workspace, and otherwise
neither listed nor entered.

The pattern itself is never handed to ripgrep: ripgrep matches ``-g`` globs against
its current directory, and the tool's glob rules are its own. Only the file-name part
goes in, in one of two ways:

- as a whitelist, ``-g NAME`` (the fast way: files with other names are dropped before
  any ignore rule is read). A whitelisted file skips the ignore and hidden rules, so
  ripgrep also lists the walked directories' ignore files (``-g .gitignore``...), and
  :class:`~toolplug_glob.leaks.IgnoredCheck` re-applies their rules afterwards;
- as a file type, ``--type-add`` (when the name could be an ignore file's), which
  ripgrep applies after its ignore rules. A type lets hidden *files* through.

The caller drops hidden files either way.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import IO

from toolplug_glob.endings import glob_name_endings
from toolplug_glob.errors import SearchTimeout
from toolplug_glob.leaks import IgnoredCheck
from toolplug_glob.listing import Deadline, Sink, WalkOptions, WalkReport
from toolplug_glob.patterns import directory_name_finder
from toolplug_glob.walk import IGNORE_FILES

_KEPT_PROBLEMS = 5
_READ_SIZE = 1 << 18
_MAX_STDERR = 1 << 16
_PIPE_SIZE = 1 << 20


def find_ripgrep() -> str | None:
    """The ``rg`` binary: the one beside this Python (the ``ripgrep`` wheel), or on PATH."""
    name = "rg.exe" if sys.platform == "win32" else "rg"
    for scripts in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(scripts) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


def walker_threads() -> int:
    """How many threads ripgrep may walk with: one per core this process may use.

    The tool reads, matches and dates ripgrep's output while ripgrep walks, so on two
    cores the walk and the dating compete. Leaving the tool a core of its own (one
    walker thread fewer) paid off only on trees with many matches on a quiet machine;
    on a tree with few matches there is nothing to date and one thread walked 1.35-1.45x
    slower than two, and on a busy machine the scheduler shares the CPU out by thread,
    so one walker fell behind everywhere (issue #19's figures in docs/benchmarks.md).
    ripgrep's own cap is 12.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 12))


def uses_whitelist(options: WalkOptions) -> bool:
    """Whether the fast ``-g NAME`` listing fits (the name is no ignore file's)."""
    regex = options.name_regex
    return regex is not None and not any(regex.fullmatch(name) for name in IGNORE_FILES)


def rg_command(rg: str, options: WalkOptions) -> list[str]:
    """The ``rg --files`` command line for these options."""
    command = [
        rg,
        "--files",
        "--null",  # NUL-separated: any byte but NUL can be in a file name
        "--no-config",  # the user's RIPGREP_CONFIG_PATH must not change the answer
        "--no-require-git",  # .gitignore files count outside git repositories too
        "--no-ignore-global",  # the answer depends on the tree, not on ~/.config/git
        f"--threads={walker_threads()}",
    ]
    if options.follow_links:
        command.append("--follow")
    if not options.ignore_parents:
        command.append("--no-ignore-parent")
    if options.include_hidden:
        command.append("--hidden")
    if options.include_ignored:
        command.append("--no-ignore")
    if options.name_glob and uses_whitelist(options):
        command.append(f"--glob={options.name_glob}")
        if not options.include_ignored:
            command += [f"--glob={name}" for name in IGNORE_FILES]
    elif options.name_glob:
        command += [f"--type-add=wanted:{options.name_glob}", "--type=wanted"]
    return command


def walk_rg(rg: str, base: Path, options: WalkOptions, sink: Sink) -> WalkReport:
    """Send every file below ``base`` that ripgrep keeps to ``sink``, as it is found."""
    deadline = options.clock()
    check = options.name_regex is not None and uses_whitelist(options)
    separator = None
    if check and not options.include_ignored:
        assert options.name_glob is not None
        separator = _Separator(
            sink,
            directory_name_finder(options.name_glob),
            glob_name_endings(options.name_glob),
        )
    # No path argument: ripgrep then lists the current directory without a "./" prefix.
    with subprocess.Popen(
        rg_command(rg, options),
        cwd=base,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        _widen(process.stdout)
        try:
            errors = _pump(process, deadline, separator or sink)
        finally:
            if process.poll() is None:
                process.kill()
        process.wait()
    if process.returncode not in (0, 1, 2):
        detail = errors.decode(errors="replace").strip()
        raise OSError(f"ripgrep exited with status {process.returncode}: {detail}")
    # Names in the messages keep their bytes (surrogateescape), shown as every name is.
    problems = [_tidy(line) for line in os.fsdecode(errors).splitlines() if line.strip()]
    report = WalkReport(problems=len(problems), examples=problems[:_KEPT_PROBLEMS])
    if separator is not None:
        assert options.name_regex is not None
        check_ignored = IgnoredCheck(
            base,
            separator.ignore_files,
            options.name_regex.fullmatch,
            listed_endings=separator.endings,
            named_directories=separator.named_directories,
            use_parents=options.ignore_parents,
            deadline=deadline,
        )
        if check_ignored.can_exclude:
            report.keep = check_ignored.keep
    return report


def _widen(pipe: IO[bytes] | None) -> None:
    """Give ripgrep's output pipe room for a megabyte (Linux; elsewhere nothing).

    A pipe holds 64 kB by default, about 2,000 paths: while the tool dates a batch,
    ripgrep fills it and waits. With room for a whole listing of this size ripgrep
    walks on; 3-10% off ``**/*.py`` on 100,000 files. An unprivileged process may ask
    for up to ``/proc/sys/fs/pipe-max-size`` (1 MB by default); a refusal changes
    nothing but the speed.
    """
    if pipe is None or sys.platform == "win32":
        return
    import fcntl  # POSIX only

    if not hasattr(fcntl, "F_SETPIPE_SZ"):  # Linux only
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_SIZE)


class _Separator:
    """A sink that keeps the ignore files aside and passes the other paths on.

    It also notes whether any listed path lies below a directory whose name matches
    the whitelist: ripgrep walks such a directory even where it is ignored.
    """

    def __init__(self, sink: Sink, finder: re.Pattern[str], endings: list[str]) -> None:
        self.sink = sink
        self.finder = finder
        #: What every whitelisted name ends with; a directory named so is followed by "/".
        self.endings = endings
        self._directory_endings = [f"{ending}/" for ending in endings]
        self.ignore_files: list[str] = []
        #: The finder, once a listed path turned out to lie below such a directory.
        self.named_directories: re.Pattern[str] | None = None

    def __call__(self, paths: list[str]) -> None:
        joined = "\0".join(paths)  # one search per batch, not one per path
        if (
            self.named_directories is None
            # a plain substring search first: the regex tries every position
            and any(ending in joined for ending in self._directory_endings)
            and self.finder.search(joined)
        ):
            self.named_directories = self.finder
        if not any(name in joined for name in IGNORE_FILES):
            self.sink(paths)
            return
        keep = [path for path in paths if path.rpartition("/")[2] not in IGNORE_FILES]
        self.ignore_files += [p for p in paths if p.rpartition("/")[2] in IGNORE_FILES]
        self.sink(keep)


def _pump(process: subprocess.Popen[bytes], deadline: Deadline, sink: Sink) -> bytes:
    """Read ripgrep's output as it comes, until both pipes close; return its errors."""
    assert process.stdout is not None and process.stderr is not None
    out_fd, err_fd = process.stdout.fileno(), process.stderr.fileno()
    errors = bytearray()
    pending = b""
    with selectors.DefaultSelector() as selector:
        selector.register(out_fd, selectors.EVENT_READ)
        selector.register(err_fd, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline.remaining()
            if remaining <= 0:
                raise SearchTimeout(deadline.timeout)
            for key, _ in selector.select(remaining):
                data = os.read(key.fd, _READ_SIZE)
                if not data:
                    selector.unregister(key.fd)
                elif key.fd == err_fd:
                    if len(errors) < _MAX_STDERR:
                        errors += data
                else:
                    data = pending + data
                    cut = data.rfind(b"\0")
                    if cut < 0:
                        pending = data
                        continue
                    pending = data[cut + 1 :]
                    sink(os.fsdecode(data[:cut]).split("\0"))
    return bytes(errors)


def _tidy(line: str) -> str:
    """ripgrep's "rg: ./dir: Permission denied (os error 13)" as "dir: Permission denied"."""
    line = line.removeprefix("rg: ").removeprefix("./")
    head, _, tail = line.rpartition(" (os error ")
    return head if head and tail.endswith(")") else line
