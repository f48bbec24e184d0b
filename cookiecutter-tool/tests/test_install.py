"""The real thing: bake, install by the project's own CI step into a fresh venv, use it.

For each case a new virtual environment gets the baked project's test dependencies
(the provider SDKs, installed with uv to save time) and nothing of toolplug; then the
install step of the project's own CI workflow runs with pip, and gets toolplug from
where the bake was told (``toolplug_source``): this checkout, or a wheelhouse the test
builds from it (``pip wheel`` of the core; its dependencies come from the index). The
workflow's other steps run its tests, and the venv's ``toolplug`` must list, enable and
call the tool. One venv per case, shared by the tests of that case.
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
from ci_steps import ci_commands, run_ci_step
from conftest import CORE, REPO, TEMPLATE
from venvs import clean_env, make_venv, run

# (kind, where toolplug comes from), each with its own tool name, so the template is
# seen working beyond its default.
CASES = {
    ("function", "checkout"): "word_count",
    ("function", "wheelhouse"): "word_tally",
    ("class", "checkout"): "session_tally",
}


@dataclass
class Installed:
    """A baked project installed in its own venv, and the CI steps still to run."""

    kind: str
    source: str
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


def build_wheelhouse(python: Path, folder: Path) -> Path:
    """A wheelhouse with toolplug's wheel, built from this checkout's core by pip."""
    run([python, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", folder, CORE], timeout=600)
    assert list(folder.glob("toolplug-*.whl")), list(folder.iterdir())
    return folder


def toolplug_direct_url(python: Path) -> str | None:
    """Where pip installed toolplug from, when it was a folder (PEP 610), else None."""
    done = run(
        [
            python,
            "-c",
            "import importlib.metadata as m; "
            "print(m.distribution('toolplug').read_text('direct_url.json') or '')",
        ]
    )
    return done.stdout.strip() or None


@pytest.fixture(scope="module", params=sorted(CASES), ids="-".join)
def installed(
    request: pytest.FixtureRequest, cookies_session: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Installed]:
    """Bake one case and install it by its CI step, into a fresh venv."""
    kind, source = request.param
    tool = CASES[kind, source]
    work = tmp_path_factory.mktemp(f"venv-{kind}-{source}")
    try:
        # The test extra of the template's pyproject, read from a bake with no source.
        venv = work / "venv"
        python = make_venv(venv, test_requirements(cookies_session))
        toolplug_source = (
            str(REPO) if source == "checkout" else str(build_wheelhouse(python, work / "wheels"))
        )
        result = cookies_session.bake(
            template=str(TEMPLATE),
            extra_context={
                "tool_name": tool,
                "kind": kind,
                "description": f"A {kind} test tool.",
                "toolplug_source": toolplug_source,
            },
        )
        assert result.exit_code == 0, result.exception
        project = Path(result.project_path)
        commands = ci_commands(project)
        installs = [c for c in commands if "pip install" in c]
        assert len(installs) == 1, commands
        # Nothing of toolplug before the step: the step alone must bring it.
        assert run([python, "-c", "import toolplug"], check=False).returncode != 0
        run_ci_step(installs[0], project, venv)
        remaining = [c for c in commands if c not in installs]
        yield Installed(kind, source, tool, project, venv, remaining)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_requirements(cookies_session: Any) -> list[str]:
    """The test extra the template declares (the SDKs the baked tests use)."""
    result = cookies_session.bake(template=str(TEMPLATE), extra_context={"tool_name": "probe"})
    meta = tomllib.loads((Path(result.project_path) / "pyproject.toml").read_text("utf-8"))
    return list(meta["project"]["optional-dependencies"]["test"])


test_requirements.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def test_toolplug_came_from_the_answer(installed: Installed) -> None:
    python = installed.venv / "bin" / "python"
    direct_url = toolplug_direct_url(python)

    if installed.source == "checkout":
        assert direct_url is not None
        assert json.loads(direct_url)["url"] == CORE.as_uri()
    else:  # a wheel found in the wheelhouse, like one from an index
        assert direct_url is None
        pip_show = run([python, "-m", "pip", "show", "toolplug"]).stdout
        assert "Version: " in pip_show


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
    if installed.kind == "class":
        assert structured["total_words"] == 2


def test_toolplug_call_with_bad_arguments_exits_1(installed: Installed) -> None:
    done = installed.toolplug("call", installed.tool, '{"txt": "typo"}')

    assert done.returncode == 1
    assert "text" in done.stdout


def test_params_through_the_command_line(installed: Installed) -> None:
    done = installed.toolplug(
        "call", installed.tool, '{"text": "four words right here"}', "--param", "max_chars=5"
    )

    if installed.kind == "class":
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


def test_toolplug_tools_params_lists_what_create_takes(installed: Installed) -> None:
    done = installed.toolplug("tools", "--params", "--plugins", installed.tool, check=True)

    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{installed.tool}  [toolplug-")
    if installed.kind == "class":
        assert lines[1:] == [
            "    max_chars (integer, optional, default 100000): Longest text a call takes;"
            " longer ones get an error observation."
        ]
    else:
        assert lines[1:] == ["    (no params)"]
