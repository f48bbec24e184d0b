"""Shared fixtures: small real tools, and real installed distributions on sys.path."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from core_test_tools import EchoAction, EchoObservation, make_echo_tool
from toolplug import ToolDefinition


@pytest.fixture
def echo_tool() -> ToolDefinition[EchoAction, EchoObservation]:
    return make_echo_tool()


@pytest.fixture
def install_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Install a distribution the way pip lays it out: a module and its .dist-info.

    ``install_dist("demo", "1.2.0", {"demo": "demo_plugin"}, {"demo_plugin": "...code"})``;
    ``requires`` are its ``Requires-Dist`` lines (``["toolplug>=0.2,<0.3"]``).
    """
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))

    def install(
        dist: str,
        version: str,
        entry_points: dict[str, str],
        modules: dict[str, str],
        requires: tuple[str, ...] | list[str] = (),
    ) -> Path:
        info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        headers = [f"Name: {dist}", f"Version: {version}"]
        headers += [f"Requires-Dist: {requirement}" for requirement in requires]
        # The long description follows the headers; a plugin's readme mentions toolplug.
        body = "Requires-Dist: toolplug>=999 is prose here, not a header.\n"
        metadata = "Metadata-Version: 2.1\n" + "\n".join(headers) + "\n\n" + body
        (info / "METADATA").write_text(metadata)
        lines = ["[toolplug]"] + [f"{name} = {value}" for name, value in entry_points.items()]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        for module, code in modules.items():
            (site / f"{module}.py").write_text(textwrap.dedent(code))
        return info

    yield install  # type: ignore[misc]
    for name in [m for m in sys.modules if m.startswith("tp_test_")]:
        del sys.modules[name]


def run_toolplug(
    *args: str, cwd: Path, paths: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m toolplug ARGS`` in a subprocess: ``paths`` first on its PYTHONPATH (an
    `install_dist` site's parent, say), ``TOOLPLUG_PLUGINS`` cleared, ``env`` added."""
    full = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
    full["PYTHONPATH"] = os.pathsep.join([*paths, full.get("PYTHONPATH", "")])
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "toolplug", *args],
        capture_output=True,
        text=True,
        env=full,
        cwd=cwd,
        timeout=120,
    )
