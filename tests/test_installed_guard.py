"""A third party's guard plugin (tests/data/toolplug-stamp-guard), pip-installed into a
fresh venv beside toolplug-think and toolplug-mcp: the core treats it as it treats
toolplug-policy. A load narrowed to one tool takes it, its setting is an option of
``toolplug call`` and ``toolplug mcp serve`` and a ``Toolset.load`` setting."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from conftest import Venv


@pytest.fixture(scope="module")
def guard_venv(
    tmp_path_factory: pytest.TempPathFactory, wheels: dict[str, Path], layer: Path
) -> Venv:
    env = Venv(tmp_path_factory.mktemp("guard-venv") / "env", layer)
    env.pip(*(str(wheels[name]) for name in ("core", "think", "mcp", "stamp-guard")))
    return env


THOUGHT = json.dumps({"thought": "plan the secret move"})


def test_a_narrowed_cli_call_goes_through_the_installed_guard(
    guard_venv: Venv, tmp_path: Path
) -> None:
    """``toolplug call think`` imports only the plugins it needs: the guard is one."""
    log = tmp_path / "stamps.txt"
    done = guard_venv.toolplug("call", "think", THOUGHT, STAMP_GUARD_LOG=str(log))
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "think\n"


def test_the_guards_setting_is_an_option_of_toolplug_call(guard_venv: Venv, tmp_path: Path) -> None:
    shown = guard_venv.toolplug("call", "--help")
    assert "--deny-word WORD" in shown.stdout and "stamp_guard" in shown.stdout
    refused = guard_venv.toolplug("call", "think", THOUGHT, "--deny-word", "secret")
    assert refused.returncode == 1, refused.stderr
    assert "stamp-guard refused think: it says 'secret'" in refused.stdout
    # From its environment variable, and with a selection that leaves the guard out.
    by_env = guard_venv.toolplug(
        "call", "think", THOUGHT, "--plugins", "think", STAMP_GUARD_DENY="secret"
    )
    assert by_env.returncode == 1 and "stamp-guard refused" in by_env.stdout
    allowed = guard_venv.toolplug("call", "think", THOUGHT, "--deny-word", "nothing-said")
    assert allowed.returncode == 0, allowed.stderr


def test_a_narrowed_toolset_load_goes_through_the_guard_and_takes_its_setting(
    guard_venv: Venv, tmp_path: Path
) -> None:
    log = tmp_path / "stamps.txt"
    script = tmp_path / "host.py"
    script.write_text(
        "import json\n"
        "from toolplug import PolicyError, Toolset\n"
        "thought = {'thought': 'plan the secret move'}\n"
        "with Toolset.load(['think']) as tools:\n"
        "    free = tools.call('think', thought)\n"
        "with Toolset.load(['think'], settings={'deny_word': 'secret'}) as tools:\n"
        "    refused = tools.call('think', thought)\n"
        "try:\n"
        "    Toolset.load(['think'], settings={'deny_wrod': 'secret'})\n"
        "except PolicyError as exc:\n"
        "    unknown = str(exc)\n"
        "print(json.dumps([free.is_error, refused.text, unknown]))\n"
    )
    done = guard_venv.run(str(guard_venv.python), str(script), STAMP_GUARD_LOG=str(log))
    assert done.returncode == 0, done.stderr
    free, refused, unknown = json.loads(done.stdout)
    assert free is False
    assert refused == "stamp-guard refused think: it says 'secret'"
    assert "'deny_wrod'" in unknown and "known settings: deny_word" in unknown
    assert log.read_text() == "think\nthink\n"


async def test_mcp_serve_takes_the_guards_option(guard_venv: Venv, tmp_path: Path) -> None:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    shown = guard_venv.toolplug("mcp", "serve", "--help")
    assert "--deny-word WORD" in shown.stdout, shown.stderr
    log = tmp_path / "stamps.txt"
    serve: Callable[..., StdioTransport] = lambda *args: StdioTransport(  # noqa: E731
        str(guard_venv.bin / "toolplug"),
        ["mcp", "serve", "--plugins", "think", *args],
        env=guard_venv.env(STAMP_GUARD_LOG=str(log)),
        keep_alive=False,
    )
    async with Client(serve("--deny-word", "secret"), timeout=60, init_timeout=60) as client:
        refused = await client.call_tool_mcp("think", {"thought": "plan the secret move"})
        allowed = await client.call_tool_mcp("think", {"thought": "plan the move"})
    assert refused.is_error
    assert "stamp-guard refused think" in refused.content[0].text
    assert not allowed.is_error
    assert log.read_text() == "think\nthink\n"


# -- the guards' settings are read without their machinery ---------------------------

#: Runs ``toolplug ARGS...`` in this process and writes the modules it imported to FILE.
PROBE = """\
import atexit, json, runpy, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["toolplug", *sys.argv[2:]]
runpy.run_module("toolplug", run_name="__main__")
"""

#: What toolplug-policy and toolplug-otel need to govern calls, not to name settings.
MACHINERY = (
    "toolplug_policy.model",
    "toolplug_policy.rules",
    "toolplug_policy.loading",
    "toolplug_policy.policy",
    "toolplug_policy.plugin",
    "toolplug_policy.approval",
    "toolplug_policy.audit",
    "toolplug_otel.telemetry",
    "opentelemetry",
)


def _imported_by(tmp_path: Path, *args: str, **env: str) -> list[str]:
    """The modules a ``toolplug`` process imported, run in this test environment."""
    out = tmp_path / "modules.json"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TOOLPLUG_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Your thought has been logged" in done.stdout, done.stdout
    modules: list[str] = json.loads(out.read_text())
    return modules


def _machinery(modules: list[str]) -> list[str]:
    return [m for m in modules if m in MACHINERY or m.split(".")[0] in MACHINERY]


def test_reading_the_guards_settings_imports_none_of_their_machinery(tmp_path: Path) -> None:
    """Every load asks toolplug-policy and toolplug-otel (installed here) for their
    settings; that imports their entry-point modules, and nothing they need only when a
    policy is given or a call is traced."""
    guards = {ep.name for ep in entry_points(group="toolplug.guards")}
    assert {"policy", "otel"} <= guards, "this test needs toolplug-policy and toolplug-otel"
    call = ("call", "think", json.dumps({"thought": "x"}))

    think_only = _imported_by(tmp_path, *call, TOOLPLUG_PLUGINS="think")
    assert {"toolplug_policy", "toolplug_otel"} <= set(think_only)  # they were asked
    assert _machinery(think_only) == []

    # Given a policy, the policy's machinery comes; with otel loaded, the first call
    # brings the OpenTelemetry API (the behaviour is the same, only later).
    policy = tmp_path / "policy.toml"
    policy.write_text('default = "allow"\n')
    with_policy = _imported_by(tmp_path, *call, "--policy", str(policy), TOOLPLUG_PLUGINS="think")
    assert "toolplug_policy.model" in with_policy and "opentelemetry" not in with_policy
    traced = _imported_by(tmp_path, *call)  # a narrowed load: every guard is loaded
    assert "opentelemetry" in traced and "toolplug_policy.model" not in traced
