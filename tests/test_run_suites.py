"""tools/run_suites.py: the compat envs' runner runs every suite and reports each failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "run_suites.py"


def write_suite(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "test_it.py").write_text(body)
    return folder


def run_suites(*args: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        # The digest folder of the env running these tests is not the nested runs' own:
        # their failures are made on purpose.
        env={
            **{k: v for k, v in os.environ.items() if k != "TOOLPLUG_FAILURE_DIGEST"},
            # The nested suites use no plugin: loading every one installed here (the
            # SDKs', hypothesis, anyio) took seconds per nested pytest.
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            **env,
        },
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


def test_a_failing_suite_leaves_a_digest_of_what_failed(tmp_path: Path) -> None:
    failing = write_suite(
        tmp_path / "failing",
        "import pytest\n\n"
        "def test_sum():\n    total = 1 + 1\n    assert total == 3, 'bad sum'\n\n"
        "@pytest.fixture\ndef broken():\n    raise RuntimeError('no fixture')\n\n"
        "def test_setup(broken):\n    pass\n",
    )
    passing = write_suite(tmp_path / "passing", "def test_yes():\n    pass\n")
    digests = tmp_path / "digests"

    result = run_suites(
        failing,
        passing,
        "--",
        "-p",
        "no:cacheprovider",
        TOOLPLUG_FAILURE_DIGEST=str(digests),
        TOX_ENV_NAME="someenv",
    )

    assert result.returncode == 1, result.stdout + result.stderr
    # one digest, for the failing suite only, named after the env
    (only,) = digests.iterdir()
    assert only.name.startswith("someenv--")
    text = only.read_text()
    lines = text.splitlines()
    assert lines[0] == f"someenv | {failing}: pytest exit status 1"
    # each failed test: its name, its assertion lines, where it failed
    assert "  test_sum" in lines
    assert "AssertionError: bad sum" in text and "assert 2 == 3" in text
    assert "test_it.py:5: AssertionError" in text
    assert "ERROR at setup of test_setup" in text and "RuntimeError: no fixture" in text
    # and pytest's own one-line summary of each
    assert any(line.startswith("FAILED ") and "test_sum" in line for line in lines)
    assert any(line.startswith("ERROR ") and "test_setup" in line for line in lines)
    # short: the passing test's output and the session header are not in it
    assert "test session starts" not in text and len(lines) < 20
