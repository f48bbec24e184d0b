"""Run test suites one pytest run each, and report every failure at the end.

    python tools/run_suites.py core/tests plugins/bash/tests tests -- -x -k name

Each suite gets its own pytest run (the suites' conftests differ, and grep's and
glob's clash in one run), and every one runs even when an earlier one failed: the
summary lists each with its outcome, and the exit status is non-zero when any failed.
Every line pytest prints comes out as it is printed, after the suite's name, so that
two environments running side by side (``tox run-parallel --parallel-live``) can be
told apart and a long environment shows how far it is. Arguments after ``--`` go to
every pytest run.

Where ``TOOLPLUG_FAILURE_DIGEST`` names a folder (tox.ini sets it), each failing suite
also leaves a short digest there: the failed tests, each with its assertion lines and
where it failed. ``.ci/run`` prints the digests last, so a CI log that keeps only its
end still says what failed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Per failed test in a digest: at most this many ``E`` lines, each cut to LINE_CHARS.
ERROR_LINES = 12
LINE_CHARS = 400
_SECTION = re.compile(r"^={3,} (FAILURES|ERRORS|short test summary info) ={3,}$")
_TEST_HEADER = re.compile(r"^_{3,} (.+?) _{3,}$")
_LOCATION = re.compile(r"^\S+\.py:\d+: \S")


def label(suite: str) -> str:
    """A short name for a suite's folder: ``plugins/bash/tests`` is ``bash``."""
    path = Path(suite).resolve()
    try:
        parts = path.relative_to(ROOT).parts
    except ValueError:
        return suite
    parts = tuple(p for p in parts if p not in ("plugins", "tests")) or ("tests",)
    return "/".join(parts)


def digest(lines: list[str]) -> list[str]:
    """What a failed pytest run's output says went wrong, in a few lines per test.

    From the failures and errors sections, each test's name, its ``E`` lines and the
    last ``file.py:LINE: Error`` line; then the short test summary's lines.
    """
    out: list[str] = []
    section = ""
    errors = 0
    location = ""
    for raw in lines:
        line = raw.rstrip("\n")
        if heading := _SECTION.match(line):
            section = heading.group(1)
        elif section in ("FAILURES", "ERRORS") and (test := _TEST_HEADER.match(line)):
            if location:
                out.append(f"    at {location}")
            out.append(f"  {test.group(1)}")
            errors, location = 0, ""
        elif section in ("FAILURES", "ERRORS") and line.startswith("E "):
            if errors < ERROR_LINES:
                out.append(f"    {line[:LINE_CHARS]}")
            errors += 1
        elif section in ("FAILURES", "ERRORS") and _LOCATION.match(line):
            location = line[:LINE_CHARS]
        elif section == "short test summary info" and line.startswith(("FAILED", "ERROR")):
            if location:
                out.append(f"    at {location}")
                location = ""
            out.append(line[:LINE_CHARS])
    if location:
        out.append(f"    at {location}")
    return out


def write_digest(suite: str, status: int, lines: list[str]) -> None:
    """Leave a failed suite's digest in ``$TOOLPLUG_FAILURE_DIGEST``, if it is set."""
    folder = os.environ.get("TOOLPLUG_FAILURE_DIGEST")
    if not folder:
        return
    env = os.environ.get("TOX_ENV_NAME", "suites")
    target = Path(folder) / f"{env}--{label(suite).replace('/', '-')}.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    body = digest(lines) or [line.rstrip("\n")[:LINE_CHARS] for line in lines[-20:]]
    head = f"{env} | {label(suite)}: pytest exit status {status}"
    target.write_text("\n".join([head, *body]) + "\n", encoding="utf-8")


def run_suite(suite: str, pytest_args: list[str], width: int) -> tuple[int, float]:
    """Run one suite, each line of its output after its name; its exit status and time."""
    name = label(suite).ljust(width)
    lines: list[str] = []
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
            lines.append(line)
            print(f"{name} | {line}", end="", flush=True)
    if proc.returncode != 0:
        write_digest(suite, proc.returncode, lines)
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
