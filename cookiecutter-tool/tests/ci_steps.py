"""The baked project's GitHub Actions workflow, run step by step on this machine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from venvs import clean_env, run


def ci_commands(project: Path) -> list[str]:
    """The ``run`` commands of the project's GitHub Actions workflow, in order."""
    workflow = project / ".github" / "workflows" / "tests.yml"
    steps = yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"]["test"]["steps"]
    return [step["run"] for step in steps if "run" in step]


def ci_environment(project: Path) -> dict[str, str]:
    """The workflow's ``env``: what GitHub's runner sets for every step."""
    workflow = yaml.safe_load((project / ".github/workflows/tests.yml").read_text("utf-8"))
    return {key: str(value) for key, value in (workflow.get("env") or {}).items()}


def run_ci_step(command: str, project: Path, venv: Path) -> Any:
    """Run one step as GitHub's runner does: bash -e, in the checkout, python on PATH."""
    return run(
        ["bash", "-e", "-c", command],
        cwd=project,
        env=clean_env(venv, CI="true", **ci_environment(project)),
        timeout=600,
    )
