"""Ctrl-C for the shell even when the host ignores it.

A program started with SIGINT or SIGQUIT ignored (a background job of a script, ``nohup
... &``) hands that on to every program it starts, and bash cannot undo it: a signal
ignored when a shell starts stays ignored for the shell and its commands. The tool's
``C-c`` (the terminal's interrupt) would then stop nothing. When the host ignores
either signal, the shell is started through ``env --default-signal`` (GNU coreutils
8.31 or later), which puts them back to their default before bash starts; where that
``env`` is missing, the shell starts as before. ``C-z``'s SIGTSTP needs nothing: bash
with job control gives its jobs the job-control signals' defaults itself (a test
checks it with a host that ignores SIGTSTP too).
"""

from __future__ import annotations

import functools
import shutil
import signal
import subprocess
from collections.abc import Sequence

#: The signals a terminal sends for its keys (Ctrl-C, Ctrl-\).
_KEYS = (signal.SIGINT, signal.SIGQUIT)


def with_default_signals(argv: Sequence[str]) -> list[str]:
    """``argv``, started so that Ctrl-C and Ctrl-\\ reach it (see the module)."""
    if all(signal.getsignal(key) is not signal.SIG_IGN for key in _KEYS):
        return list(argv)
    prefix = _env_prefix()
    return [*prefix, *argv] if prefix else list(argv)


@functools.cache
def _env_prefix() -> tuple[str, ...]:
    """``env --default-signal=INT,QUIT --``, if this machine's ``env`` takes it."""
    env = shutil.which("env")
    if env is None:
        return ()
    prefix = (env, "--default-signal=INT,QUIT", "--")
    try:
        done = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ()
    return prefix if done.returncode == 0 else ()
