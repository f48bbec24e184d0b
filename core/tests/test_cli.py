"""The command line, run as a user runs it: `python -m toolplug` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from core_test_tools import GOOD

PAIR = """
from toolplug import Observation, ToolDefinition, hookimpl
from tp_test_shout import Shout

def pair(context):
    return [
        ToolDefinition(name=f"pair_{n}", description=n, action_type=Shout,
                       executor=lambda a, n=n: Observation.from_text(f"{n}: {a.text}"))
        for n in ("one", "two")
    ]

@hookimpl
def register_tools(register):
    register(pair)
"""

# A tool whose observation carries a command's exit code, as a shell tool's does.
STATUS = """
from pydantic import Field
from toolplug import Action, Observation, ToolDefinition, hookimpl

class Run(Action):
    code: int = Field(description="The exit code to report.")
    error: bool = Field(default=False, description="Mark the observation an error.")

class Ran(Observation):
    exit_code: int | None = None

def run(action):
    return Ran.from_text(f"ran: {action.code}", exit_code=action.code, is_error=action.error)

@hookimpl
def register_tools(register):
    register(ToolDefinition(name="status", description="Status.", action_type=Run,
                            observation_type=Ran, executor=run))
"""


@pytest.fixture
def run(install_dist: Any, tmp_path: Path) -> Any:
    site = install_dist(
        "toolplug-shout", "1.2.0", {"shout": "tp_test_shout"}, {"tp_test_shout": GOOD}
    ).parent
    install_dist(
        "toolplug-broken",
        "0.0.1",
        {"broken": "tp_test_broken"},
        {"tp_test_broken": "raise ImportError('needs libfoo')\n"},
    )
    install_dist("toolplug-pair", "0.3.0", {"pair": "tp_test_pair"}, {"tp_test_pair": PAIR})
    install_dist(
        "toolplug-status", "0.1.0", {"status": "tp_test_status"}, {"tp_test_status": STATUS}
    )
    install_dist(
        "toolplug-typo",
        "0.1.0",
        {"typo": "tp_test_typo"},
        {"tp_test_typo": GOOD.replace("def register_tools", "def register_tool")},
    )

    def run(
        *args: str,
        env: dict[str, str] | None = None,
        input: str | None = None,
        click_only: bool = False,
    ) -> subprocess.CompletedProcess[str]:
        full_env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
        full_env["PYTHONPATH"] = os.pathsep.join([str(site), full_env.get("PYTHONPATH", "")])
        full_env.update(env or {})
        # click_only: the click command line itself, past the fast path of `plugins`
        entry = ["-c", "from toolplug.cli import cli; cli()"] if click_only else ["-m", "toolplug"]
        return subprocess.run(
            [sys.executable, *entry, *args],
            capture_output=True,
            text=True,
            env=full_env,
            cwd=tmp_path,
            timeout=60,
            input=input,
        )

    return run


def test_plugins_lists_name_distribution_version_and_state(run: Any) -> None:
    out = run("plugins", "--plugins", "shout")
    assert out.returncode == 0, out.stderr
    lines = {line.split()[0]: line for line in out.stdout.splitlines()}
    assert "toolplug-shout 1.2.0" in lines["shout"] and lines["shout"].endswith("enabled")
    assert lines["broken"].endswith("disabled")


def test_plugins_json_and_environment_choice(run: Any) -> None:
    out = run("plugins", "--json", env={"TOOLPLUG_PLUGINS": "broken"})
    data = {p["name"]: p for p in json.loads(out.stdout)}
    assert data["broken"]["enabled"] and not data["shout"]["enabled"]
    assert data["shout"]["version"] == "1.2.0"


def test_plugins_check_reports_broken_and_working(run: Any) -> None:
    out = run("plugins", "--check", "--json", "--plugins", "shout,broken")
    data = {p["name"]: p for p in json.loads(out.stdout)}
    assert data["shout"]["status"] == "ok" and data["shout"]["tools"] == ["shout"]
    assert data["broken"]["status"] == "broken" and "needs libfoo" in data["broken"]["error"]
    text = run("plugins", "--check", "--plugins", "shout,broken").stdout
    assert "tools: shout" in text and "error: ImportError: needs libfoo" in text


@pytest.mark.parametrize("click_only", [False, True], ids=["fast path", "click"])
def test_plugins_check_exits_1_when_an_enabled_plugin_is_broken(run: Any, click_only: bool) -> None:
    ok = run("plugins", "--check", "--plugins", "shout", click_only=click_only)
    assert ok.returncode == 0, ok.stderr
    broken = run("plugins", "--check", "--plugins", "shout,broken", click_only=click_only)
    assert broken.returncode == 1 and "error: ImportError: needs libfoo" in broken.stdout
    typo = run("plugins", "--check", "--json", "--plugins", "typo", click_only=click_only)
    assert typo.returncode == 1
    (report,) = [p for p in json.loads(typo.stdout) if p["name"] == "typo"]
    assert report["status"] == "broken" and "register_tool (did you mean" in report["error"]
    everything = run("plugins", "--check", click_only=click_only)
    assert everything.returncode == 1, "every plugin is enabled, broken ones too"
    listing = run("plugins", "--plugins", "shout,broken", click_only=click_only)
    assert listing.returncode == 0, "without --check nothing is loaded, so nothing is broken"


def test_unknown_plugin_is_a_usage_error(run: Any) -> None:
    out = run("plugins", "--plugins", "nope")
    assert out.returncode == 2
    assert "not installed: nope" in out.stderr and "shout" in out.stderr


def test_tools_lists_and_exports(run: Any) -> None:
    out = run("tools", "--plugins", "shout,broken")
    assert out.returncode == 0
    assert "shout  [toolplug-shout 1.2.0]\n    Shout.\n    text (string, required)" in out.stdout
    assert "plugin broken is broken" in out.stderr
    for fmt, key in (
        ("openai", "function"),
        ("anthropic", "input_schema"),
        ("mcp", "inputSchema"),
        ("responses", "parameters"),
    ):
        out = run("tools", "--plugins", "shout", "--format", fmt)
        (tool,) = json.loads(out.stdout)
        assert key in tool
    strict = json.loads(run("tools", "--plugins", "shout", "--format", "openai", "--strict").stdout)
    assert strict[0]["function"]["strict"] is True


def test_tools_lists_a_factory_apart_from_the_tools(run: Any) -> None:
    """A factory (like mcp) makes tools but is none: `tools` lists it under its own
    heading with what it made, and `--json` holds only tools."""
    out = run("tools", "--plugins", "shout,pair")
    assert out.returncode == 0, out.stderr
    tools_part, _, factories_part = out.stdout.partition("Factories (not tools")
    assert "pair_one  [toolplug-pair 0.3.0]" in tools_part
    assert "\npair  [" not in tools_part
    assert "pair  [toolplug-pair 0.3.0]\n    made: pair_one, pair_two" in factories_part
    exported = json.loads(run("tools", "--json", "--plugins", "shout,pair").stdout)
    assert sorted(tool["name"] for tool in exported) == ["pair_one", "pair_two", "shout"]
    plain = run("tools", "--plugins", "shout")
    assert "Factories" not in plain.stdout


def test_call_success_error_and_usage_exit_codes(run: Any) -> None:
    ok = run("call", "shout", '{"text": "hi"}', "--plugins", "shout")
    assert (ok.returncode, ok.stdout) == (0, "HI\n")
    as_json = run("call", "shout", '{"text": "hi"}', "--json", "--plugins", "shout")
    assert json.loads(as_json.stdout) == {
        "content": [{"type": "text", "text": "HI"}],
        "isError": False,
    }
    bad = run("call", "shout", '{"txt": "hi"}', "--plugins", "shout")
    assert bad.returncode == 1 and "text: this required field is missing" in bad.stdout
    usage = run("call", "shout", "{not json", "--plugins", "shout")
    assert usage.returncode == 2 and "not valid JSON" in usage.stderr
    unknown = run("call", "shot", "{}", "--plugins", "shout")
    assert unknown.returncode == 2
    assert "There is no tool named 'shot'. Did you mean 'shout'? Available tools: shout." in (
        unknown.stderr
    )
    params = run("call", "shout", '{"text": "x"}', "--param", "loud=1", "--plugins", "shout")
    assert params.returncode == 2 and "takes no params" in params.stderr
    stdin = run("call", "shout", "-", "--plugins", "shout", input='{"text": "from stdin"}')
    assert stdin.stdout == "FROM STDIN\n"


def test_call_exit_status_passes_the_tools_own_status_on(run: Any) -> None:
    """--exit-status: an observation's exit_code becomes the CLI's exit status; without
    it, a command that failed is still a call that worked (0)."""

    def status(arguments: str, *options: str) -> int:
        out = run("call", "status", arguments, *options, "--plugins", "status")
        assert out.stdout.startswith("ran: "), out.stderr
        return out.returncode

    assert status('{"code": 3}') == 0
    assert status('{"code": 3}', "--exit-status") == 3
    assert status('{"code": 0}', "--exit-status") == 0
    assert status('{"code": 0, "error": true}', "--exit-status") == 1
    assert status('{"code": -9, "error": true}', "--exit-status") == 137  # 128 + SIGKILL
    # Not a status a process can exit with: the observation's error flag decides.
    assert status('{"code": 256}', "--exit-status") == 0
    assert status('{"code": 256, "error": true}', "--exit-status") == 1
    # A tool without an exit_code field: 1 for an error observation, as without the flag.
    bad = run("call", "shout", '{"txt": "x"}', "--exit-status", "--plugins", "shout")
    assert bad.returncode == 1
    ok = run("call", "shout", '{"text": "x"}', "--exit-status", "--plugins", "shout")
    assert (ok.returncode, ok.stdout) == (0, "X\n")


def test_call_a_tool_a_factory_creates(run: Any) -> None:
    ok = run("call", "pair/pair_two", '{"text": "x"}', "--plugins", "shout,pair")
    assert (ok.returncode, ok.stdout) == (0, "two: x\n")
    typo = run("call", "pair/pair_tow", '{"text": "x"}', "--plugins", "shout,pair")
    assert typo.returncode == 2
    assert (
        "There is no tool named 'pair_tow'. Did you mean 'pair_two'? Available tools: "
        "pair_one, pair_two. (the tools 'pair' creates, called as pair/TOOL)"
    ) in typo.stderr
    which = run("call", "pair", '{"text": "x"}', "--plugins", "shout,pair")
    assert which.returncode == 2 and "'pair' creates these tools: pair_one, pair_two" in (
        which.stderr
    )
    unknown = run("call", "pear_one", "{}", "--plugins", "shout,pair")
    # A factory is no available tool: it is named apart, with how its tools are called.
    assert "Available tools: shout. Factories, whose tools are called as FACTORY/TOOL: pair." in (
        unknown.stderr
    )
    # The name `toolplug tools` shows works on its own too.
    shown = run("call", "pair_two", '{"text": "y"}', "--plugins", "shout,pair")
    assert (shown.returncode, shown.stdout) == (0, "two: y\n")


def test_a_broken_plugin_does_not_break_the_cli(run: Any) -> None:
    out = run("call", "shout", '{"text": "still works"}')
    assert out.returncode == 0 and out.stdout == "STILL WORKS\n"


def test_version_and_help(run: Any) -> None:
    assert "version" in run("--version").stdout
    help_text = run("--help").stdout
    for command in ("plugins", "tools", "call", "install", "uninstall"):
        assert command in help_text
