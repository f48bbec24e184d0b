"""The pre-generation hook: wrong answers stop the bake with a message that says why."""

from __future__ import annotations

from typing import Any

import pytest
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


def test_a_kind_outside_the_choices_is_refused_by_name(bake: Any) -> None:
    result = bake(kind="async")

    assert result.exit_code != 0
    assert "stateless" in str(result.exception)
    assert "stateful" in str(result.exception)


@pytest.mark.parametrize("email", ["", "not an email", "a@b@c"])
def test_the_author_email_must_be_an_address(
    bake: Any, capfd: pytest.CaptureFixture[str], email: str
) -> None:
    result = bake(author_email=email)

    assert isinstance(result.exception, FailedHookException)
    assert f"author_email {email!r} is not an email address" in capfd.readouterr().err
