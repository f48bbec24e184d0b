"""Sandboxed bash tools run as root and as an unprivileged user, for the sandbox's
guarantees: each test that takes the ``jail`` fixture runs once per user.

As the user running the tests (root in CI and containers), the tool is created in
this process. As an unprivileged user (uid and gid
65534, ``nobody``), a driver process is started with ``setpriv``; it creates the real
tool with the same params and runs the calls it is sent, one JSON line each way. Where
this machine cannot do that (the tests do not run as root, no ``setpriv``, no Python
that user may run, bubblewrap refused to that user), the test is skipped and says why.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from conftest import MakeBash, need_bwrap

#: The unprivileged user the tests switch to.
NOBODY = 65534

_DRIVER = r"""
import json, site, sys
for folder in json.loads(sys.argv[1]):
    site.addsitedir(folder)
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from
import toolplug_bash

def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()

request = json.loads(sys.stdin.readline())
try:
    context = ToolContext(workspace=request["workspace"])
    (tool,) = registry_from(toolplug_bash).resolve(Tool("bash", request["params"]), context)
except Exception as exc:
    send({"error": f"{type(exc).__name__}: {exc}"})
    raise SystemExit(0)
send({"ready": True})
for line in sys.stdin:
    observation = tool.call(json.loads(line))
    send({"output": getattr(observation, "output", ""), "is_error": observation.is_error,
          "text": observation.text})
tool.close()
"""


class Jail(Protocol):
    """A sandboxed bash tool, seen the same way whoever runs it."""

    user: str
    workspace: Path

    def run(self, command: str, **arguments: Any) -> str:
        """Run ``command``; its output (the call itself must not fail)."""

    def close(self) -> None:
        """End the session and everything in it."""


MakeJail = Callable[..., Jail]


class _HostJail:
    def __init__(self, tool: Any, workspace: Path) -> None:
        self.user = "root" if os.getuid() == 0 else "host"
        self.tool = tool
        self.workspace = workspace

    def run(self, command: str, **arguments: Any) -> str:
        observation = self.tool.call({"command": command, **arguments})
        assert not observation.is_error, observation.text
        return str(observation.output)

    def close(self) -> None:
        self.tool.close()


class _UnprivilegedJail:
    def __init__(self, python: str, sites: list[str], params: dict[str, Any]) -> None:
        self.user = "nobody"
        self.workspace = Path(tempfile.mkdtemp(prefix="toolplug-nobody-", dir="/tmp"))
        os.chown(self.workspace, NOBODY, NOBODY)
        self.process = subprocess.Popen(
            [*_as_nobody(), python, "-c", _DRIVER, json.dumps(sites)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=_nobody_env(),
            cwd="/",
        )
        reply = self._send({"workspace": str(self.workspace), "params": params})
        if "error" in reply:
            self.close()
            raise AssertionError(f"the tool could not be made as uid {NOBODY}: {reply['error']}")

    def _send(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the driver running as uid {NOBODY} died"
        reply: dict[str, Any] = json.loads(line)
        return reply

    def run(self, command: str, **arguments: Any) -> str:
        reply = self._send({"command": command, **arguments})
        assert not reply["is_error"], reply["text"]
        return str(reply["output"])

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.workspace, ignore_errors=True)


def _as_nobody() -> list[str]:
    setpriv = shutil.which("setpriv")
    assert setpriv is not None
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def _nobody_env() -> dict[str, str]:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"}


@functools.cache
def unprivileged_driver() -> tuple[str, list[str]] | str:
    """The Python and site folders with which uid 65534 can run the bash plugin's
    sandbox, or why there are none."""
    if os.getuid() != 0:
        return "the tests do not run as root, so they cannot switch to another user"
    if shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed"
    # This venv's own Python, else the system's of the same version: the venv's
    # interpreter may live in a home that user cannot enter.
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [sys.executable, f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"]
    sites = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    reasons = []
    for python in dict.fromkeys(candidates):
        if not os.path.exists(python):
            continue
        done = subprocess.run(
            [*_as_nobody(), python, "-c", _CHECK, json.dumps(sites)],
            capture_output=True,
            text=True,
            env=_nobody_env(),
            cwd="/",
            timeout=60,
        )
        if done.returncode == 0 and done.stdout.startswith("bwrap: "):
            # The plugin loads, but the kernel (or its settings) refuse that user the
            # namespaces bubblewrap needs.
            return done.stdout.strip()
        if done.returncode == 0:
            return python, sites
        reasons.append(f"{python}: {done.stderr.strip().splitlines()[-1:]}")
    return f"no Python that uid {NOBODY} may run imports toolplug_bash ({'; '.join(reasons)})"


#: Run as uid 65534: load the plugin, and try bubblewrap as the tool will.
_CHECK = """
import json, os, site, sys
for folder in json.loads(sys.argv[1]):
    site.addsitedir(folder)
from toolplug import ToolError
from toolplug_bash import sandbox
try:
    sandbox.check_runs(sandbox.find_bwrap(os.environ["PATH"]), network=False)
except ToolError as exc:
    print("bwrap:", exc)
"""


def need_unprivileged() -> tuple[str, list[str]]:
    """The driver's Python and site folders; skip the test, saying why, without them."""
    found = unprivileged_driver()
    if isinstance(found, str):
        pytest.skip(f"cannot run as an unprivileged user here: {found}")
    return found


def unprivileged_jail(**params: Any) -> Jail:
    """A sandboxed bash tool run as uid 65534 (the caller closes it); skips the test,
    saying why, where this machine cannot."""
    need_bwrap()
    python, sites = need_unprivileged()
    return _UnprivilegedJail(python, sites, {"sandbox": "bwrap", **params})


@pytest.fixture(params=["host-user", "nobody"])
def make_jail(
    request: pytest.FixtureRequest, make_bash: MakeBash, tmp_path: Path
) -> Iterator[MakeJail]:
    """Make sandboxed bash tools (params as the tool takes them) as the user running the
    tests (root in CI and containers), then as uid 65534; each is closed at the end."""
    need_bwrap()
    made: list[Jail] = []
    if request.param == "host-user":

        def make(**params: Any) -> Jail:
            jail = _HostJail(make_bash(sandbox="bwrap", **params), tmp_path)
            made.append(jail)
            return jail

    else:
        python, sites = need_unprivileged()

        def make(**params: Any) -> Jail:
            jail = _UnprivilegedJail(python, sites, {"sandbox": "bwrap", **params})
            made.append(jail)
            return jail

    yield make
    for jail in made:
        jail.close()


@pytest.fixture
def jail(make_jail: MakeJail) -> Jail:
    """A sandboxed bash tool with the default rights and limits, as the tests' user and
    as uid 65534."""
    return make_jail()
