"""`toolplug call bash` of a long command shows its output while it runs, when stderr is
a terminal (issue #29); stdout, what scripts read, keeps the one final result."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("toolplug_bash")

TOOLPLUG = str(Path(sys.executable).parent / "toolplug")


def test_a_long_commands_output_shows_on_a_terminal_while_it_runs(tmp_path: Path) -> None:
    master, slave = os.openpty()
    call = subprocess.Popen(
        [TOOLPLUG, "call", "bash", '{"command": "echo first-line; sleep 30; echo never"}'],
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=tmp_path,
        env={**os.environ, "TOOLPLUG_PLUGINS": "bash"},
    )
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 25  # generous: the command itself runs for 30 s
        while b"first-line" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 1)[0]:
                try:
                    seen += os.read(master, 4096)
                except OSError:
                    break
        # Seen on the terminal while the command still runs (it sleeps for 30 s).
        assert b"first-line" in seen, seen
        assert call.poll() is None
    finally:
        call.kill()
        call.wait(timeout=30)
        os.close(master)


def test_without_a_terminal_the_output_comes_once_at_the_end(tmp_path: Path) -> None:
    done = subprocess.run(
        [TOOLPLUG, "call", "bash", '{"command": "echo a; sleep 1; echo b"}'],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "TOOLPLUG_PLUGINS": "bash"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("a\nb\n") and "[Exit code 0." in done.stdout
    assert "a\n" not in done.stderr
