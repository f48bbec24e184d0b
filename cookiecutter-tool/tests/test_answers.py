"""The pre-generation hook: wrong answers stop the bake with a message that says why."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import TEMPLATE
from cookiecutter.exceptions import FailedHookException


@pytest.mark.parametrize(
    "tool_name",
    ["My Tool", "2fast", "word-count", "WordCount", "_private", "", "x" * 65, "café", 'a"b'],
)
def test_a_tool_name_that_is_not_an_identifier_is_refused(
    bake: Any, capfd: pytest.CaptureFixture[str], tool_name: str
) -> None:
    result = bake(tool_name=tool_name)

    assert result.exit_code != 0
    assert isinstance(result.exception, FailedHookException)
    assert result.project_path is None
    err = capfd.readouterr().err
    assert f"tool_name {tool_name!r} is not a valid identifier" in err
    assert "lowercase letters, digits and underscores" in err


@pytest.mark.parametrize("tool_name", ["a", "word_count", "ocr2", "x" * 64, "class"])
def test_good_tool_names_bake(bake: Any, tool_name: str) -> None:
    result = bake(tool_name=tool_name)

    assert result.exit_code == 0, result.exception
    assert result.project_path.name == "toolplug-" + tool_name.replace("_", "-")


@pytest.mark.parametrize("description", ["", "   ", "first line\nsecond line"])
def test_the_description_must_be_one_line(
    bake: Any, capfd: pytest.CaptureFixture[str], description: str
) -> None:
    result = bake(description=description)

    assert isinstance(result.exception, FailedHookException)
    assert "description must be one non-empty line" in capfd.readouterr().err


def test_a_bad_distribution_name_is_refused(bake: Any, capfd: pytest.CaptureFixture[str]) -> None:
    result = bake(project_slug="toolplug word count!")

    assert isinstance(result.exception, FailedHookException)
    assert "is not a valid distribution name" in capfd.readouterr().err


def test_a_bad_package_name_is_refused(bake: Any, capfd: pytest.CaptureFixture[str]) -> None:
    result = bake(package_name="toolplug-word-count")

    assert isinstance(result.exception, FailedHookException)
    assert "is not a valid Python package name" in capfd.readouterr().err


@pytest.mark.parametrize("kind", ["async", "stateless", ""])
def test_a_kind_that_is_not_function_or_class_is_refused(
    bake: Any, capfd: pytest.CaptureFixture[str], kind: str
) -> None:
    result = bake(kind=kind)

    assert isinstance(result.exception, FailedHookException)
    assert f"kind {kind!r} must be 'function' or 'class'" in capfd.readouterr().err


@pytest.mark.parametrize("source", ["nowhere", "", "ftp:/x"])
def test_a_toolplug_source_that_is_no_checkout_wheelhouse_or_url_is_refused(
    bake: Any, capfd: pytest.CaptureFixture[str], tmp_path: Path, source: str
) -> None:
    result = bake(toolplug_source=source)

    assert isinstance(result.exception, FailedHookException)
    assert f"toolplug_source {source!r}" in capfd.readouterr().err


def test_a_folder_that_is_neither_checkout_nor_wheelhouse_is_refused(
    bake: Any, capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "toolplug-0.2.1.tar.gz").write_bytes(b"")  # an sdist is no wheel

    result = bake(toolplug_source=str(tmp_path))

    assert isinstance(result.exception, FailedHookException)
    err = capfd.readouterr().err
    assert f"toolplug_source {str(tmp_path)!r}" in err
    assert "a checkout of toolplug (a folder with core/pyproject.toml)" in err


@pytest.mark.parametrize(
    "answer",
    ["tool_name=Word Count", "kind=async", "toolplug_source=./nowhere", "author_email=nobody"],
)
def test_the_command_line_prints_one_line_and_writes_nothing(tmp_path: Path, answer: str) -> None:
    # What a person sees: cookiecutter itself, run in a folder of their own.
    done = subprocess.run(
        [sys.executable, "-m", "cookiecutter", str(TEMPLATE), "--no-input", answer],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    key = answer.partition("=")[0]
    assert line.startswith(f"ERROR: {key} "), line
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.strip() == "Hook script failed (exit status: 1)"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("email", ["", "not an email", "a@b@c"])
def test_the_author_email_must_be_an_address(
    bake: Any, capfd: pytest.CaptureFixture[str], email: str
) -> None:
    result = bake(author_email=email)

    assert isinstance(result.exception, FailedHookException)
    assert f"author_email {email!r} is not an email address" in capfd.readouterr().err
