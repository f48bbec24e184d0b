"""toolplug.testing.ToolConformance, run by pytest on real little plugins.

Each test writes a plugin module and a conformance class into pytester's folder and runs
pytest on them, so what is checked is what a plugin author sees: which checks pass, fail
or are skipped, and why. The nested sessions run in this process (a subprocess each
would import the five provider SDKs again).
"""

from __future__ import annotations

import textwrap

import pytest
from toolplug import Observation, tool
from toolplug.testing import validate_observation_exports, validate_tool_exports

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module", autouse=True)
def _provider_sdks_imported() -> None:
    """Import the provider SDKs the checks use, once, before any nested session.

    pytester drops the modules a nested session imported when it ends: imported here
    first, the SDKs stay for every session instead of being imported in each.
    """

    @tool
    def echo(words: str) -> str:
        """Say the words back.

        Args:
            words: What to say.
        """
        return words

    validate_tool_exports(echo)
    validate_observation_exports(Observation.error("warm"))


def run_nested(pytester: pytest.Pytester, **modules: str) -> pytest.RunResult:
    """Write the modules into pytester's folder and run pytest on them, in-process."""
    pytester.makepyfile(**modules)
    pytester.syspathinsert()
    # The nested files use no asyncio: without the plugin it warns of no loop scope.
    return pytester.runpytest_inprocess("-v", "-rs", "-p", "no:cacheprovider", "-p", "no:asyncio")


# A tool that reads a file of the workspace: a valid call needs the file to be there.
READER = '''
from pathlib import Path

from toolplug import Observation, ToolContext, ToolDefinition, hookimpl, tool


class ReaderTool(ToolDefinition):
    @classmethod
    def create(cls, context: ToolContext):
        root = Path(context.workspace)

        @tool
        def reader(path: str) -> str | Observation:
            """Read a text file of the workspace.

            Args:
                path: The file, relative to the workspace.
            """
            target = root / path
            if not target.is_file():
                return {missing}
            return target.read_text()

        return [reader]


@hookimpl
def register_tools(register):
    register(ReaderTool, name="reader")
'''

FINE = 'Observation.error(f"There is no file {path}; list the workspace first.")'
# The bug the template's docs once had: the error branch uses a name never imported.
BUGGY = 'Observationn.error(f"There is no file {path}.")'

CONFORMANCE = """
import reader_plugin
from toolplug.testing import ToolConformance


class TestReader(ToolConformance):
    plugin = reader_plugin
    tool_name = "reader"
    valid_arguments = {{"path": "notes.txt"}}
{extra}
"""

PREPARE = """
    def prepare_workspace(self, workspace):
        (workspace / "notes.txt").write_text("hello")
"""


def run_suite(pytester: pytest.Pytester, missing: str, extra: str) -> pytest.RunResult:
    return run_nested(
        pytester,
        reader_plugin=READER.format(missing=missing),
        test_reader=CONFORMANCE.format(extra=textwrap.indent(extra, "")),
    )


def test_a_prepared_workspace_lets_a_file_tool_pass(pytester: pytest.Pytester) -> None:
    extra = PREPARE + '    failing_call = {"path": "missing.txt"}\n'

    result = run_suite(pytester, FINE, extra)

    # every check runs; only the entry-point one is skipped (none is set)
    result.assert_outcomes(passed=8, skipped=1)
    result.stdout.fnmatch_lines(["*no entry_point is set*"])


def test_without_the_file_the_valid_call_fails_with_the_tools_message(
    pytester: pytest.Pytester,
) -> None:
    result = run_suite(pytester, FINE, '    failing_call = {"path": "missing.txt"}\n')

    result.assert_outcomes(passed=7, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*test_valid_call FAILED*", "*There is no file notes.txt*"])


def test_a_missing_failing_call_is_skipped_with_the_reason(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, FINE, PREPARE)

    result.assert_outcomes(passed=7, skipped=2)
    result.stdout.fnmatch_lines(["*SKIPPED*no failing_call is set*missing file*"])


def test_a_bug_in_the_error_branch_fails_the_suite(pytester: pytest.Pytester) -> None:
    extra = PREPARE + '    failing_call = {"path": "missing.txt"}\n'

    result = run_suite(pytester, BUGGY, extra)

    result.assert_outcomes(passed=7, failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*test_a_failing_call_gives_error_observation FAILED*",
            "*reader raised NameError*Observationn*bug in the tool's code*",
        ]
    )


def test_a_failing_call_that_succeeds_fails_the_suite(pytester: pytest.Pytester) -> None:
    # notes.txt exists, so this "failing" call is accepted: the suite says so
    extra = PREPARE + '    failing_call = {"path": "notes.txt"}\n'

    result = run_suite(pytester, FINE, extra)

    result.assert_outcomes(passed=7, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*{'path': 'notes.txt'} was accepted: hello*"])


def test_the_missing_required_field_is_named_in_the_error(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, FINE, PREPARE)

    result.stdout.fnmatch_lines(["*test_a_missing_required_field_is_named PASSED*"])


# A tool with typed fields whose text says more than they do. {override} may replace
# the core's structured_content with one that leaves the text out.
SHOUT = '''
from pydantic import Field
from toolplug import Observation, hookimpl, tool


class ShoutObservation(Observation):
    """What shout did."""

    length: int = Field(description="How many characters were shouted.")
{override}

@tool
def shout(words: str) -> ShoutObservation:
    """Shout the words back.

    Args:
        words: What to shout.
    """
    return ShoutObservation.from_text(words.upper() + "!", length=len(words))


@hookimpl
def register_tools(register):
    register(shout)
'''

# What structuredContent was before the text went into it: the typed fields only.
FIELDS_ONLY = """
    def structured_content(self):
        return None if self.is_error else {"length": self.length}
"""

SHOUT_CONFORMANCE = """
import shout_plugin
from toolplug.testing import ToolConformance


class TestShout(ToolConformance):
    plugin = shout_plugin
    tool_name = "shout"
    valid_arguments = {"words": "hello"}
"""


def run_shout_suite(pytester: pytest.Pytester, override: str) -> pytest.RunResult:
    return run_nested(
        pytester, shout_plugin=SHOUT.format(override=override), test_shout=SHOUT_CONFORMANCE
    )


def test_typed_fields_carry_the_text_and_pass(pytester: pytest.Pytester) -> None:
    result = run_shout_suite(pytester, "")

    result.stdout.fnmatch_lines(["*test_valid_call PASSED*"])
    result.assert_outcomes(passed=7, skipped=2)


def test_structured_content_without_the_text_fails_the_suite(pytester: pytest.Pytester) -> None:
    result = run_shout_suite(pytester, FIELDS_ONLY)

    result.assert_outcomes(passed=6, failed=1, skipped=2)
    result.stdout.fnmatch_lines(
        ["*test_valid_call FAILED*", "*structuredContent leaves out the text*HELLO!*"]
    )
