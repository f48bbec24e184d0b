"""tools/run_suites.py: the compat envs' runner runs every suite and reports each failure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "run_suites.py"


def write_suite(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "test_it.py").write_text(body)
    return folder


def run_suites(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_failing_suite_does_not_stop_the_ones_after_it(tmp_path: Path) -> None:
    first = write_suite(tmp_path / "first", "def test_no():\n    assert 1 == 2\n")
    second = write_suite(tmp_path / "second", "def test_yes():\n    pass\n")
    third = write_suite(tmp_path / "third", "def test_no():\n    assert 'a' == 'b'\n")

    result = run_suites(first, second, third, "--", "-p", "no:cacheprovider")

    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    # each suite ran, its lines after its name, and the summary names both failures
    assert "second" in out and "1 passed" in out
    assert out.count("1 failed") == 2
    summary = out.split("==> summary")[1]
    assert "second" in summary and "passed" in summary
    assert "2 of 3 suites failed" in summary
    assert str(first) in summary and str(third) in summary


def test_every_suite_passing_passes_and_arguments_reach_pytest(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "only", "def test_a():\n    pass\n\ndef test_b():\n    pass\n")

    result = run_suites(suite, "--", "-p", "no:cacheprovider", "-k", "test_a")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed, 1 deselected" in result.stdout
    assert "all 1 suites passed" in result.stdout
    assert all(
        line.startswith(("==> ", f"{suite} | ", f"{suite}  ", "all "))
        for line in result.stdout.splitlines()
    ), result.stdout


def test_no_suite_is_a_usage_error() -> None:
    result = run_suites()
    assert result.returncode == 2 and "run_suites.py" in result.stderr
