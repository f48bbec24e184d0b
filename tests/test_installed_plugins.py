"""A plugin package built and pip-installed into a fresh venv, used as a user would."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Venv


def plugin_list(env: Venv, *args: str, **vars: str) -> dict[str, dict]:
    out = env.toolplug("plugins", "--json", *args, **vars)
    assert out.returncode == 0, out.stderr
    return {p["name"]: p for p in json.loads(out.stdout)}


def plugin_list_status(env: Venv, *args: str, **vars: str):
    """``toolplug plugins --json`` with its exit status (``--check`` fails on a broken one)."""
    return env.toolplug("plugins", "--json", *args, **vars)


def test_discovered_and_listed_with_its_version(demo_venv: Venv) -> None:
    listed = plugin_list(demo_venv)
    assert listed["demo"]["distribution"] == "toolplug-demo"
    assert listed["demo"]["version"] == "0.4.2"
    assert listed["demo"]["enabled"] is True


def test_enabled_and_disabled_by_name(demo_venv: Venv) -> None:
    assert plugin_list(demo_venv, TOOLPLUG_PLUGINS="")["demo"]["enabled"] is False
    assert plugin_list(demo_venv, TOOLPLUG_PLUGINS="demo")["demo"]["enabled"] is True
    assert (
        plugin_list(demo_venv, "--plugins", "demo", TOOLPLUG_PLUGINS="")["demo"]["enabled"] is True
    )
    off = demo_venv.toolplug("call", "demo_upper", '{"text": "x"}', TOOLPLUG_PLUGINS="")
    assert off.returncode == 2 and "There is no tool named 'demo_upper'" in off.stderr
    unknown = demo_venv.toolplug("plugins", TOOLPLUG_PLUGINS="demo,nope")
    assert unknown.returncode == 2 and "Installed plugins: demo" in unknown.stderr


def test_callable_from_the_cli(demo_venv: Venv) -> None:
    out = demo_venv.toolplug("call", "demo_upper", '{"text": "hello"}')
    assert (out.returncode, out.stdout) == (0, "HELLO\n")
    alias = demo_venv.toolplug("call", "shout", '{"text": "alias"}')
    assert alias.stdout == "ALIAS\n"
    tally = demo_venv.toolplug("call", "demo_tally", '{"text": "x"}', "--param", "step=5")
    assert tally.stdout == "5\n"
    bad = demo_venv.toolplug("call", "demo_tally", '{"text": "x"}', "--param", "stride=5")
    assert bad.returncode == 2 and "it takes: step" in bad.stderr
    listing = demo_venv.toolplug("tools")
    assert "demo_upper  (also: shout)  [toolplug-demo 0.4.2]" in listing.stdout


def test_callable_from_python(demo_venv: Venv, tmp_path: Path) -> None:
    script = tmp_path / "host.py"
    script.write_text(
        "import asyncio, json\n"
        "from toolplug import Tool, Toolset\n"
        "specs = ['demo_upper', Tool('demo_tally', {'step': 2})]\n"
        "with Toolset.load(specs, workspace='.') as tools:\n"
        "    a = tools.call('demo_upper', '{\"text\": \"py\"}').text\n"
        "    tools.call('demo_tally', {'text': ''})\n"
        "    b = asyncio.run(tools.acall('demo_tally', {'text': ''})).text\n"
        "    print(json.dumps([a, b, [t['name'] for t in tools.to_anthropic_tools()]]))\n"
    )
    out = demo_venv.run(str(demo_venv.python), str(script), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["PY", "4", ["demo_upper", "demo_tally"]]


def test_broken_plugin_reported_while_others_work_and_uninstall_works(
    make_venv, wheels: dict[str, Path]
) -> None:
    env = make_venv()
    env.pip(str(wheels["core"]), str(wheels["demo"]))
    installed = env.toolplug("install", str(wheels["broken"]))
    assert installed.returncode == 0, installed.stderr
    listed = plugin_list(env)
    assert listed["broken_demo"]["version"] == "0.0.3"
    check = plugin_list_status(env, "--check")
    assert check.returncode == 1, "a broken plugin fails the check"
    checked = {p["name"]: p for p in json.loads(check.stdout)}
    assert checked["broken_demo"]["status"] == "broken"
    assert "ModuleNotFoundError" in checked["broken_demo"]["error"]
    assert checked["demo"]["status"] == "ok"
    assert env.toolplug("call", "demo_upper", '{"text": "fine"}').stdout == "FINE\n"
    removed = env.toolplug("uninstall", "-y", "toolplug-broken-demo")
    assert removed.returncode == 0, removed.stderr
    assert "broken_demo" not in plugin_list(env)


def test_two_distributions_with_one_plugin_name_are_both_refused(
    make_venv, wheels: dict[str, Path]
) -> None:
    env = make_venv()
    env.pip(*(str(wheels[name]) for name in ("core", "demo", "twin-one", "twin-two")))
    checked = env.toolplug("plugins", "--check")
    assert checked.returncode == 1, checked.stderr
    assert "Plugin name already registered" not in checked.stdout + checked.stderr
    twins = [line for line in checked.stdout.splitlines() if line.startswith("twin ")]
    assert len(twins) == 2 and all(line.endswith("broken") for line in twins)
    assert (
        "error: the plugin name 'twin' is used by 2 distributions, toolplug-twin-one 0.1.0 "
        "and toolplug-twin-two 0.2.0; neither is loaded." in checked.stdout
    )
    listed = env.toolplug("plugins")
    assert listed.returncode == 0 and "neither is loaded" in listed.stdout
    assert env.toolplug("call", "demo_upper", '{"text": "fine"}').stdout == "FINE\n"
    refused = env.toolplug("call", "twin", "{}")
    assert refused.returncode == 2
    assert "The plugin 'twin' is broken: the plugin name 'twin' is used by" in refused.stderr
    removed = env.toolplug("uninstall", "-y", "toolplug-twin-two")
    assert removed.returncode == 0, removed.stderr
    assert env.toolplug("plugins", "--check").returncode == 0
    assert env.toolplug("call", "twin", "{}").stdout == "toolplug-twin-one\n"


def test_a_misspelled_hook_is_reported_and_fails_the_check(
    make_venv, wheels: dict[str, Path]
) -> None:
    env = make_venv()
    env.pip(*(str(wheels[name]) for name in ("core", "demo", "typo")))
    checked = plugin_list_status(env, "--check")
    assert checked.returncode == 1
    (typo,) = [p for p in json.loads(checked.stdout) if p["name"] == "typo_demo"]
    assert typo["status"] == "broken" and typo["tools"] == []
    assert typo["error"].startswith(
        "register_tool (did you mean register_tools?): marked @hookimpl, but no toolplug hook"
    )
    assert env.toolplug("plugins", "--check", "--plugins", "demo").returncode == 0
