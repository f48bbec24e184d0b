"""toolplug-mcp's dependencies, in a fresh venv: what another package's old ``mcp`` does.

The venv gets the core, toolplug-think and toolplug-mcp from this repository (with
``uv``), then a real, small distribution named ``mcp`` at 1.26.0 whose import fails:
what a package pinning ``mcp<2`` installs over the SDK. The mcp plugin must then be
reported broken, saying what to install, while every other tool keeps working.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
UV = shutil.which("uv")

pytestmark = pytest.mark.skipif(UV is None, reason="needs uv to make the venv")


def run(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=600, **kwargs
    )  # type: ignore[call-overload, no-any-return]


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the core, think and mcp, then an old, broken ``mcp`` over the SDK."""
    root = tmp_path_factory.mktemp("install")
    env = root / "env"
    made = run(UV, "venv", "--python", sys.executable, env)
    assert made.returncode == 0, made.stderr
    python = env / "bin" / "python"
    packages = [REPO / "core", REPO / "plugins" / "think", REPO / "plugins" / "mcp"]
    installed = run(UV, "pip", "install", "--python", python, *packages)
    assert installed.returncode == 0, installed.stderr
    old = root / "old-mcp"
    (old / "mcp").mkdir(parents=True)
    (old / "mcp" / "__init__.py").write_text(
        'raise ImportError("this mcp 1.26.0 is not the MCP SDK 2")\n'
    )
    (old / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        '[project]\nname = "mcp"\nversion = "1.26.0"\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["mcp"]\n'
    )
    downgraded = run(UV, "pip", "install", "--python", python, "--no-deps", old)
    assert downgraded.returncode == 0, downgraded.stderr
    return env


def test_the_plugin_declares_the_mcp_it_needs(venv: Path) -> None:
    checked = run(UV, "pip", "check", "--python", venv / "bin" / "python")
    assert checked.returncode != 0
    assert "toolplug-mcp" in checked.stdout + checked.stderr


def test_an_old_mcp_makes_the_mcp_plugin_broken_and_nothing_else(
    venv: Path, tmp_path: Path
) -> None:
    toolplug = venv / "bin" / "toolplug"
    checked = run(toolplug, "plugins", "--check", "--json", cwd=tmp_path)
    assert checked.returncode == 1, checked.stderr
    reports = {r["name"]: r for r in json.loads(checked.stdout)}
    assert reports["mcp"]["status"] == "broken"
    assert "mcp>=2.2,<3" in reports["mcp"]["error"]
    assert "mcp 1.26.0 is installed" in reports["mcp"]["error"]
    assert reports["think"]["status"] == "ok"

    called = run(toolplug, "call", "think", '{"thought": "still fine"}', cwd=tmp_path)
    assert called.returncode == 0, called.stderr

    script = "from toolplug import Toolset\nwith Toolset.load() as t: print(sorted(t))"
    loaded = run(venv / "bin" / "python", "-c", script, cwd=tmp_path)
    assert loaded.returncode == 0, loaded.stderr
    assert "think" in loaded.stdout and "mcp" not in loaded.stdout
