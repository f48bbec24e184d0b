"""Fixtures for the cross-package tests: wheels built from this repository, fresh venvs."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"


def build_wheel(project: Path, out: Path) -> Path:
    """Build a wheel with pip (no isolation tricks: the same build a user's pip does)."""
    before = set(out.glob("*.whl"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "-w",
            str(out),
            str(project),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = set(out.glob("*.whl")) - before
    return wheel


class Venv:
    """A fresh virtual environment and helpers to run things in it."""

    def __init__(self, path: Path) -> None:
        venv.EnvBuilder(with_pip=True).create(path)
        self.path = path
        self.bin = path / "bin"
        self.python = self.bin / "python"

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("TOOLPLUG_PLUGINS", "PYTHONPATH", "VIRTUAL_ENV")
        }
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env.update(extra)
        return env

    def pip(self, *args: str) -> None:
        subprocess.run(
            [
                str(self.python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                *args,
            ],
            check=True,
            timeout=600,
        )

    def run(
        self, *args: str, cwd: Path | None = None, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args),
            capture_output=True,
            text=True,
            env=self.env(**env),
            timeout=120,
            cwd=cwd,
        )

    def toolplug(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.bin / "toolplug"), *args, **env)


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("wheels")
    return {
        "core": build_wheel(ROOT / "core", out),
        "demo": build_wheel(DATA / "toolplug-demo", out),
        "broken": build_wheel(DATA / "toolplug-broken-demo", out),
        "twin-one": build_wheel(DATA / "toolplug-twin-one", out),
        "twin-two": build_wheel(DATA / "toolplug-twin-two", out),
        "typo": build_wheel(DATA / "toolplug-typo-demo", out),
        "hostile": build_wheel(DATA / "toolplug-hostile-demo", out),
    }


@pytest.fixture(scope="session")
def demo_venv(tmp_path_factory: pytest.TempPathFactory, wheels: dict[str, Path]) -> Venv:
    env = Venv(tmp_path_factory.mktemp("venv") / "env")
    env.pip(str(wheels["core"]), str(wheels["demo"]))
    return env


@pytest.fixture
def make_venv(tmp_path: Path) -> Callable[[], Venv]:
    return lambda: Venv(tmp_path / "env")
