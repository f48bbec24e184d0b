"""Fresh virtual environments for baked projects: made with uv when it is installed
(seconds), else with ``python -m venv`` and pip (slower, same result)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

INSTALL_TIMEOUT = 600
RUN_TIMEOUT = 180


def find_uv() -> str | None:
    """The uv binary: the one the ``uv`` package ships, or one on PATH."""
    try:
        from uv import find_uv_bin
    except ImportError:
        return shutil.which("uv")
    try:
        return str(find_uv_bin())
    except FileNotFoundError:
        return shutil.which("uv")


def clean_env(venv: Path, **extra: str) -> dict[str, str]:
    """The environment a user of the venv has: its bin first, no toolplug selection."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("TOOLPLUG_PLUGINS", "VIRTUAL_ENV", "PYTHONPATH")
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def run(
    command: Sequence[str | Path],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = RUN_TIMEOUT,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run a command, bounded; with ``check``, fail with its output on a non-zero exit."""
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and done.returncode != 0:
        raise AssertionError(
            f"{' '.join(map(str, command))} exited {done.returncode}\n"
            f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
        )
    return done


def make_venv(venv: Path, requirements: Sequence[str | Path]) -> Path:
    """Create ``venv`` (with pip in it) and install ``requirements``; returns its python."""
    python = venv / "bin" / "python"
    uv = find_uv()
    if uv:
        run([uv, "venv", "--quiet", "--seed", "--python", sys.executable, venv])
        # Compiled now, once: the tests import the provider SDKs in several processes.
        run(
            [
                uv,
                "pip",
                "install",
                "--quiet",
                "--compile-bytecode",
                "--python",
                python,
                *requirements,
            ],
            timeout=INSTALL_TIMEOUT,
        )
    else:
        run([sys.executable, "-m", "venv", venv])
        run([python, "-m", "pip", "install", "--quiet", *requirements], timeout=INSTALL_TIMEOUT)
    return python
