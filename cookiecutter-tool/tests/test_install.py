"""The real thing: bake, install into a fresh venv beside the core, and use it.

For each kind of tool: a new virtual environment gets the core from this repository
and the baked project's test dependencies; then the install step of the project's own
CI workflow (``python -m pip install '.[test]'``) installs the project with pip, and the
workflow's other steps run its tests. The venv's ``toolplug`` must list, enable and call
the tool. One venv per kind, shared by the tests of that kind.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml
from conftest import CORE, TEMPLATE
from venvs import clean_env, make_venv, run

# A different tool name per kind, so the template is seen working beyond its default.
TOOL_NAMES = {"stateless": "word_count", "stateful": "session_tally"}


@dataclass
class Installed:
    """A baked project installed in its own venv, and the CI steps still to run."""

    kind: str
    tool: str
    project: Path
    venv: Path
    remaining_ci_steps: list[str]

    def toolplug(self, *args: str, check: bool = False, **env: str) -> Any:
        """Run the venv's ``toolplug``; keyword arguments are extra environment."""
        return run(
            [self.venv / "bin" / "toolplug", *args],
            cwd=self.project,
            env=clean_env(self.venv, **env),
            check=check,
        )


def copy_core(destination: Path) -> Path:
    """Copy the core's sources out of the repository.

    The repository is a uv workspace; a copy outside it installs the way a release
    would, whatever state the workspace's other members are in.
    """
    ignore = shutil.ignore_patterns("tests", "__pycache__", "*.egg-info", "build", "dist")
    return Path(shutil.copytree(CORE, destination, ignore=ignore))


def ci_commands(project: Path) -> list[str]:
    """The ``run`` commands of the project's GitHub Actions workflow, in order."""
    workflow = project / ".github" / "workflows" / "tests.yml"
    steps = yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"]["test"]["steps"]
    return [step["run"] for step in steps if "run" in step]


def run_ci_step(command: str, project: Path, venv: Path) -> Any:
    """Run one step as GitHub's runner does: bash -e, in the checkout, python on PATH."""
    return run(
        ["bash", "-e", "-c", command],
        cwd=project,
        env=clean_env(venv, CI="true"),
        timeout=600,
    )


@pytest.fixture(scope="module", params=sorted(TOOL_NAMES))
def installed(
    request: pytest.FixtureRequest, cookies_session: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Installed]:
    """Bake one kind and install it with pip, by its CI step, into a fresh venv."""
    kind = str(request.param)
    tool = TOOL_NAMES[kind]
    result = cookies_session.bake(
        template=str(TEMPLATE),
        extra_context={"tool_name": tool, "kind": kind, "description": f"A {kind} test tool."},
    )
    assert result.exit_code == 0, result.exception
    project = Path(result.project_path)
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    test_requirements = meta["project"]["optional-dependencies"]["test"]
    commands = ci_commands(project)
    installs = [c for c in commands if "pip install" in c]
    assert len(installs) == 1, commands

    work = tmp_path_factory.mktemp(f"venv-{kind}")
    try:
        venv = work / "venv"
        make_venv(venv, [copy_core(work / "core"), *test_requirements])
        run_ci_step(installs[0], project, venv)
        remaining = [c for c in commands if c not in installs]
        yield Installed(kind, tool, project, venv, remaining)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_ci_workflow_runs_the_projects_own_tests_and_they_pass(installed: Installed) -> None:
    outputs = [
        run_ci_step(command, installed.project, installed.venv).stdout
        for command in installed.remaining_ci_steps
    ]

    pytest_output = next(
        out for cmd, out in zip(installed.remaining_ci_steps, outputs) if "pytest" in cmd
    )
    summary = pytest_output.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary
    # The last step lists the plugin and calls it with "hello from CI".
    assert installed.tool in outputs[-1]
    assert outputs[-1].strip().endswith("3 words, 13 characters.")


def test_toolplug_plugins_lists_it_with_its_version(installed: Installed) -> None:
    done = installed.toolplug("plugins", "--json", check=True)

    (report,) = [p for p in json.loads(done.stdout) if p["name"] == installed.tool]
    assert report["distribution"] == "toolplug-" + installed.tool.replace("_", "-")
    assert report["version"] == "0.1.0"
    assert report["enabled"] is True


def test_toolplug_plugins_check_loads_its_tool(installed: Installed) -> None:
    done = installed.toolplug("plugins", "--check", "--json", check=True)

    (report,) = [p for p in json.loads(done.stdout) if p["name"] == installed.tool]
    assert report["status"] == "ok", report["error"]
    assert report["tools"] == [installed.tool]


def test_toolplug_call_runs_it(installed: Installed) -> None:
    done = installed.toolplug("call", installed.tool, '{"text": "one two three"}')

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3 words, 13 characters."


def test_toolplug_call_json_has_the_typed_fields(installed: Installed) -> None:
    done = installed.toolplug("call", installed.tool, '{"text": "a b"}', "--json", check=True)

    structured = json.loads(done.stdout)["structuredContent"]
    assert structured["words"] == 2
    assert structured["characters"] == 3
    if installed.kind == "stateful":
        assert structured["total_words"] == 2


def test_toolplug_call_with_bad_arguments_exits_1(installed: Installed) -> None:
    done = installed.toolplug("call", installed.tool, '{"txt": "typo"}')

    assert done.returncode == 1
    assert "text" in done.stdout


def test_params_through_the_command_line(installed: Installed) -> None:
    done = installed.toolplug(
        "call", installed.tool, '{"text": "four words right here"}', "--param", "max_chars=5"
    )

    if installed.kind == "stateful":
        assert done.returncode == 1
        assert "at most 5" in done.stdout
    else:
        assert done.returncode == 2
        assert "takes no params" in done.stderr


def test_enabled_by_name_and_disabled_otherwise(installed: Installed) -> None:
    by_name = installed.toolplug("plugins", "--json", check=True, TOOLPLUG_PLUGINS=installed.tool)
    none = installed.toolplug("plugins", "--json", check=True, TOOLPLUG_PLUGINS="")

    assert {p["name"]: p["enabled"] for p in json.loads(by_name.stdout)} == {installed.tool: True}
    assert {p["name"]: p["enabled"] for p in json.loads(none.stdout)} == {installed.tool: False}
