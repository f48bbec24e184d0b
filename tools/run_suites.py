"""Run test suites one pytest run each, and report every failure at the end.

    python tools/run_suites.py core/tests plugins/bash/tests tests -- -x -k name

Each suite gets its own pytest run (the suites' conftests differ, and grep's and
glob's clash in one run), and every one runs even when an earlier one failed: the
summary lists each with its outcome, and the exit status is non-zero when any failed.
Every line pytest prints comes out as it is printed, after the suite's name, so that
two environments running side by side (``tox run-parallel --parallel-live``) can be
told apart and a long environment shows how far it is. Arguments after ``--`` go to
every pytest run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def label(suite: str) -> str:
    """A short name for a suite's folder: ``plugins/bash/tests`` is ``bash``."""
    path = Path(suite).resolve()
    try:
        parts = path.relative_to(ROOT).parts
    except ValueError:
        return suite
    parts = tuple(p for p in parts if p not in ("plugins", "tests")) or ("tests",)
    return "/".join(parts)


def run_suite(suite: str, pytest_args: list[str], width: int) -> tuple[int, float]:
    """Run one suite, each line of its output after its name; its exit status and time."""
    name = label(suite).ljust(width)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    with subprocess.Popen(
        [sys.executable, "-m", "pytest", suite, *pytest_args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        env=env,
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            print(f"{name} | {line}", end="", flush=True)
    return proc.returncode, time.monotonic() - started


def main(argv: list[str]) -> int:
    """Run the suites named in ``argv`` (pytest's arguments after ``--``); 1 if any failed."""
    split = argv.index("--") if "--" in argv else len(argv)
    suites, pytest_args = argv[:split], argv[split + 1 :]
    if not suites:
        print(__doc__, file=sys.stderr)
        return 2
    width = max(len(label(s)) for s in suites)
    results = []
    for index, suite in enumerate(suites, 1):
        print(f"==> {label(suite)} ({index} of {len(suites)})", flush=True)
        results.append((suite, *run_suite(suite, pytest_args, width)))
    print("==> summary", flush=True)
    for suite, status, seconds in results:
        outcome = "passed" if status == 0 else f"FAILED (pytest exit status {status})"
        print(f"{label(suite).ljust(width)}  {outcome}  {seconds:.0f} s", flush=True)
    failed = [label(suite) for suite, status, _ in results if status != 0]
    if failed:
        print(f"{len(failed)} of {len(results)} suites failed: {', '.join(failed)}", flush=True)
        return 1
    print(f"all {len(results)} suites passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
