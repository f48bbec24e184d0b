"""The check of the answers (``local_extensions.checked_answers``): wrong answers stop
the bake, before anything is written, with a message that says why."""

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
def test_a_tool_name_that_is_not_an_identifier_is_refused(bake: Any, tool_name: str) -> None:
    result = bake(tool_name=tool_name)

    assert result.exit_code != 0
    assert isinstance(result.exception, FailedHookException)
    assert result.project_path is None
    err = str(result.exception)
    assert f"tool_name {tool_name!r} is not a valid identifier" in err
    assert "lowercase letters, digits and underscores" in err


@pytest.mark.parametrize("tool_name", ["a", "word_count", "ocr2", "x" * 64, "class"])
def test_good_tool_names_bake(bake: Any, tool_name: str) -> None:
    result = bake(tool_name=tool_name)

    assert result.exit_code == 0, result.exception
    assert result.project_path.name == "toolplug-" + tool_name.replace("_", "-")


@pytest.mark.parametrize("description", ["", "   ", "first line\nsecond line"])
def test_the_description_must_be_one_line(bake: Any, description: str) -> None:
    result = bake(description=description)

    assert isinstance(result.exception, FailedHookException)
    assert "description must be one non-empty line" in str(result.exception)


def test_a_bad_distribution_name_is_refused(bake: Any) -> None:
    result = bake(project_slug="toolplug word count!")

    assert isinstance(result.exception, FailedHookException)
    assert "is not a valid distribution name" in str(result.exception)


def test_a_bad_package_name_is_refused(bake: Any) -> None:
    result = bake(package_name="toolplug-word-count")

    assert isinstance(result.exception, FailedHookException)
    assert "is not a valid Python package name" in str(result.exception)


@pytest.mark.parametrize("kind", ["async", "stateless", ""])
def test_a_kind_that_is_not_function_or_class_is_refused(bake: Any, kind: str) -> None:
    result = bake(kind=kind)

    assert isinstance(result.exception, FailedHookException)
    assert f"kind {kind!r} must be 'function' or 'class'" in str(result.exception)


@pytest.mark.parametrize("source", ["nowhere", "", "ftp:/x"])
def test_a_toolplug_source_that_is_no_checkout_wheelhouse_or_url_is_refused(
    bake: Any, tmp_path: Path, source: str
) -> None:
    result = bake(toolplug_source=source)

    assert isinstance(result.exception, FailedHookException)
    assert f"toolplug_source {source!r}" in str(result.exception)


def test_a_folder_that_is_neither_checkout_nor_wheelhouse_is_refused(
    bake: Any, tmp_path: Path
) -> None:
    (tmp_path / "toolplug-0.2.1.tar.gz").write_bytes(b"")  # an sdist is no wheel

    result = bake(toolplug_source=str(tmp_path))

    assert isinstance(result.exception, FailedHookException)
    err = str(result.exception)
    assert f"toolplug_source {str(tmp_path)!r}" in err
    assert "a checkout of toolplug (a folder with core/pyproject.toml)" in err


@pytest.mark.parametrize(
    "answer",
    [
        "tool_name=9 bad-name!",
        "tool_name=Word Count",
        "kind=async",
        "toolplug_source=./nowhere",
        "author_email=nobody",
    ],
)
def test_the_command_line_prints_one_line_and_writes_nothing(tmp_path: Path, answer: str) -> None:
    # What a person sees: cookiecutter itself, run in a folder of their own. The answers
    # are checked while cookiecutter renders them, before any hook: no "Hook script
    # failed" line follows the template's own.
    done = subprocess.run(
        [sys.executable, "-m", "cookiecutter", str(TEMPLATE), "--no-input", answer],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 1
    (line,) = (done.stdout + done.stderr).splitlines()
    key = answer.partition("=")[0]
    assert line.startswith(f"ERROR: {key} "), line
    assert "Traceback" not in line and "Hook script failed" not in line
    assert list(tmp_path.iterdir()) == []


def test_every_wrong_answer_is_said_at_once(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cookiecutter",
            str(TEMPLATE),
            "--no-input",
            "kind=async",
            "author_email=nobody",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 1
    lines = (done.stdout + done.stderr).splitlines()
    assert [line.split()[1] for line in lines] == ["kind", "author_email"], lines
    assert list(tmp_path.iterdir()) == []


def test_a_wrong_answer_is_a_failed_hook_to_a_program(bake: Any) -> None:
    """A program calling cookiecutter() gets the exception a failing hook raises."""
    result = bake(tool_name="9 bad-name!")

    assert isinstance(result.exception, FailedHookException)
    assert result.project_path is None
    assert str(result.exception).startswith("ERROR: tool_name '9 bad-name!' ")


@pytest.mark.parametrize("email", ["", "not an email", "a@b@c"])
def test_the_author_email_must_be_an_address(bake: Any, email: str) -> None:
    result = bake(author_email=email)

    assert isinstance(result.exception, FailedHookException)
    assert f"author_email {email!r} is not an email address" in str(result.exception)
