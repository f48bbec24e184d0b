"""A new author's path, followed from docs/writing-a-tool.md itself.

The page's "Make it yours" gives whole files of a baked ``toolplug-slugify`` project,
each a code block whose first line names the file. This test bakes that project as the
page says (from this checkout), pastes the blocks over the baked files, and in a fresh
venv runs the project's own CI steps (install, its tests, ``toolplug plugins --check``
and a call), then calls the tool as step 5 of the page does. A block that no longer
runs when pasted (a missing import, say) fails here.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomllib
from ci_steps import ci_commands, run_ci_step
from conftest import REPO, TEMPLATE
from venvs import clean_env, make_venv, run

PAGE = REPO / "docs" / "writing-a-tool.md"
FUNCTION_SECTION = "### A function tool (kind=function)"
CLASS_SECTION = "### A tool with state or params (kind=class)"
DESCRIPTION = "Turn a title into a URL slug."

# A fenced block: its info string and its text.
BLOCK = re.compile(r"^```([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def section(title: str) -> str:
    """The text of one ``###`` section of the page."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(title)
    ends = [i for i in (text.find("\n### ", start + 1), text.find("\n## ", start + 1)) if i > 0]
    return text[start : min(ends, default=len(text))]


def files_of(title: str) -> dict[str, str]:
    """The blocks of a section whose first line is ``# path``: path -> the whole block."""
    found = {}
    for _info, body in BLOCK.findall(section(title)):
        first = body.splitlines()[0]
        if first.startswith("# ") and re.fullmatch(r"# [\w./]+\.py", first):
            found[first[2:]] = body
    return found


def workflow_call_line(title: str) -> str:
    """The ``toolplug call`` line the page gives for the workflow's last step."""
    for info, body in BLOCK.findall(section(title)):
        if info.startswith("yaml") and ".github/workflows/tests.yml" in body:
            (line,) = [ln for ln in body.splitlines() if "toolplug call" in ln]
            return line.strip()
    raise AssertionError("the page gives no toolplug call line for the workflow")


def bake_slugify(cookies: Any, kind: str) -> Path:
    result = cookies.bake(
        template=str(TEMPLATE),
        extra_context={
            "tool_name": "slugify",
            "kind": kind,
            "description": DESCRIPTION,
            "toolplug_source": str(REPO),
        },
    )
    assert result.exit_code == 0, result.exception
    return Path(result.project_path)


def paste(project: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        target = project / relative
        assert target.exists(), f"the page pastes over {relative}, which the bake did not make"
        target.write_text(text, encoding="utf-8")


def fresh_venv(project: Path, work: Path) -> Path:
    """A venv with the project's test extra (SDKs), and nothing of toolplug."""
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    venv = work / "venv"
    make_venv(venv, meta["project"]["optional-dependencies"]["test"])
    return venv


@pytest.fixture
def work(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    shutil.rmtree(tmp_path / "venv", ignore_errors=True)


def test_the_page_gives_every_file_it_talks_about() -> None:
    assert set(files_of(FUNCTION_SECTION)) == {
        "src/toolplug_slugify/tool.py",
        "tests/test_conformance.py",
        "tests/test_slugify.py",
    }
    assert set(files_of(CLASS_SECTION)) == {
        "src/toolplug_slugify/types.py",
        "src/toolplug_slugify/executor.py",
        "src/toolplug_slugify/tool.py",
    }


def test_a_function_tool_from_the_page_passes_its_ci_and_answers(cookies: Any, work: Path) -> None:
    project = bake_slugify(cookies, "function")
    paste(project, files_of(FUNCTION_SECTION))
    workflow = project / ".github" / "workflows" / "tests.yml"
    text = workflow.read_text(encoding="utf-8")
    text = re.sub(r"toolplug call slugify .*", workflow_call_line(FUNCTION_SECTION), text)
    workflow.write_text(text, encoding="utf-8")
    venv = fresh_venv(project, work)

    outputs = [run_ci_step(command, project, venv).stdout for command in ci_commands(project)]

    pytest_summary = outputs[1].strip().splitlines()[-1]
    assert "passed" in pytest_summary and "skipped" not in pytest_summary, outputs[1]
    assert "failed" not in pytest_summary and "error" not in pytest_summary
    assert outputs[-1].strip().endswith("hello-from-ci")
    # Step 5 of the page, in the same venv.
    env = clean_env(venv)
    called = run(["toolplug", "call", "slugify", '{"title": "Hello, World!"}'], env=env)
    assert called.stdout.strip() == "hello-world"
    refused = run(["toolplug", "call", "slugify", '{"title": 7}'], env=env, check=False)
    assert refused.returncode == 1
    assert "title: Input should be a valid string (got 7)" in refused.stdout


def test_a_class_tool_from_the_page_passes_its_ci_and_answers(cookies: Any, work: Path) -> None:
    project = bake_slugify(cookies, "class")
    paste(project, files_of(CLASS_SECTION))
    # What the page says to set in the conformance test, and a behaviour test of ours.
    conformance = project / "tests" / "test_conformance.py"
    text = conformance.read_text(encoding="utf-8")
    for line in (
        'tool_params = {"separator": "_"}',
        'valid_arguments = {"title": "Hello, World!"}',
        'failing_call = {"title": "!!!"}',
    ):
        assert f"`{line}`" in section(CLASS_SECTION)
        text = re.sub(rf"^    {line.split(' =')[0]} = .*$", f"    {line}", text, flags=re.M)
    conformance.write_text(text, encoding="utf-8")
    (project / "tests" / "test_slugify.py").write_text(
        "from toolplug import Tool, ToolRegistry\n\n\n"
        "def test_the_separator_joins_the_words() -> None:\n"
        '    (tool,) = ToolRegistry.from_plugins(["slugify"]).resolve(\n'
        '        Tool("slugify", {"separator": "_"})\n'
        "    )\n"
        '    observation = tool.call({"title": "Hello, World!"})\n'
        '    assert observation.slug == "hello_world"\n',
        encoding="utf-8",
    )
    workflow = project / ".github" / "workflows" / "tests.yml"
    text = workflow.read_text(encoding="utf-8")
    text = re.sub(r"toolplug call slugify .*", workflow_call_line(FUNCTION_SECTION), text)
    workflow.write_text(text, encoding="utf-8")
    venv = fresh_venv(project, work)

    outputs = [run_ci_step(command, project, venv).stdout for command in ci_commands(project)]

    pytest_summary = outputs[1].strip().splitlines()[-1]
    assert "passed" in pytest_summary and "skipped" not in pytest_summary, outputs[1]
    assert "failed" not in pytest_summary and "error" not in pytest_summary
    assert outputs[-1].strip().endswith("hello-from-ci")
    env = clean_env(venv)
    called = run(
        ["toolplug", "call", "slugify", '{"title": "Hello, World!"}', "--param", "separator=+"],
        env=env,
    )
    assert called.stdout.strip() == "hello+world"
    params = run(["toolplug", "tools", "--params", "--plugins", "slugify"], env=env)
    assert 'separator (string, optional, default "-"): What joins the words' in params.stdout
