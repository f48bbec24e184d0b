"""Fixtures for the cross-package tests: wheels built from this repository, fresh venvs."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Callable
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"


def build_wheels(projects: dict[str, Path], out: Path) -> dict[str, Path]:
    """Build one wheel per project with pip, in one run.

    The same backend a user's pip runs (hatchling, which every project here names), but
    without pip's build isolation: isolated, pip installs hatchling into a new temporary
    environment for every wheel, four seconds of CPU each. The release env
    (tools/release.py) builds every distribution isolated, as a user's pip would.
    """
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "--disable-pip-version-check",
            "-w",
            str(out),
            *(str(project) for project in projects.values()),
        ],
        check=True,
        timeout=600,
    )
    built = {}
    for key, project in projects.items():
        with open(project / "pyproject.toml", "rb") as file:
            name = tomllib.load(file)["project"]["name"]
        (built[key],) = out.glob(f"{name.replace('-', '_')}-*.whl")
    return built


#: Folders of the running environment's site-packages that belong to toolplug itself:
#: its distributions (toolplug, toolplug-*) and editable-install hooks. Everything else
#: (pydantic, pluggy, click, pip, the MCP SDK, ...) is shared by the test venvs.
OWN_ENTRIES = ("toolplug", "_toolplug", "__editable__", "_virtualenv")


def third_party_layer(folder: Path) -> Path:
    """A folder of links to the running environment's third-party packages, toolplug's
    own left out: fresh venvs put it on their path (a ``.pth`` file), so pip finds every
    dependency already installed and installs only the wheels under test.

    Without it every venv bootstrapped pip (5 s of CPU) and pip-installed pydantic and
    the rest from the index again (for the MCP plugin, 60 packages and over a minute).
    """
    foreign = [
        dist.metadata["Name"]
        for dist in importlib.metadata.distributions()
        if dist.entry_points.select(group="toolplug")
        and not dist.metadata["Name"].lower().startswith("toolplug")
    ]
    # A third-party distribution with toolplug plugins would leak into every venv.
    assert not foreign, f"distributions outside toolplug register plugins: {foreign}"
    folder.mkdir(parents=True)
    sources = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    for source in map(Path, sources):
        for entry in source.iterdir():
            if entry.name.lower().startswith(OWN_ENTRIES) or entry.suffix == ".pth":
                continue
            link = folder / entry.name
            if not link.exists():
                link.symlink_to(entry)
    return folder


class Venv:
    """A fresh virtual environment and helpers to run things in it.

    It holds nothing of toolplug's until a test installs it; the third-party packages
    come from ``layer`` (:func:`third_party_layer`), pip among them.
    """

    def __init__(self, path: Path, layer: Path) -> None:
        venv.EnvBuilder(with_pip=False).create(path)
        self.path = path
        self.bin = path / "bin"
        self.python = self.bin / "python"
        site = subprocess.run(
            [str(self.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        (Path(site) / "third-party.pth").write_text(f"{layer}\n")

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
    """Wheels of the core, two shipped plugins and the test plugins in tests/data."""
    return build_wheels(
        {
            "core": ROOT / "core",
            "think": ROOT / "plugins" / "think",
            "mcp": ROOT / "plugins" / "mcp",
            "demo": DATA / "toolplug-demo",
            "broken": DATA / "toolplug-broken-demo",
            "twin-one": DATA / "toolplug-twin-one",
            "twin-two": DATA / "toolplug-twin-two",
            "typo": DATA / "toolplug-typo-demo",
            "hostile": DATA / "toolplug-hostile-demo",
            "stamp-guard": DATA / "toolplug-stamp-guard",
        },
        tmp_path_factory.mktemp("wheels"),
    )


@pytest.fixture(scope="session")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return third_party_layer(tmp_path_factory.mktemp("layer") / "site-packages")


@pytest.fixture(scope="session")
def demo_venv(
    tmp_path_factory: pytest.TempPathFactory, wheels: dict[str, Path], layer: Path
) -> Venv:
    env = Venv(tmp_path_factory.mktemp("venv") / "env", layer)
    env.pip(str(wheels["core"]), str(wheels["demo"]))
    return env


@pytest.fixture
def make_venv(tmp_path: Path, layer: Path) -> Callable[[], Venv]:
    return lambda: Venv(tmp_path / "env", layer)
