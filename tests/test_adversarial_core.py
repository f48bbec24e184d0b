"""The core's guarantees with real plugins: every shipped tool, and pip-installed plugins
that misbehave while loading (see docs/concepts.md, "Guarantees")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from conftest import Venv
from toolplug import ToolContext, ToolRegistry

SHIPPED = ["bash", "file_editor", "finish", "glob", "grep", "mcp", "policy", "think"]
# Deeper than any supported Python parses (3.12 reads 1,000 levels, 3.11 does not).
DEEP = "[" * 20_000 + "]" * 20_000
LONG_INT = "7" * 5000


def _every_tool(workspace: Path) -> list:
    registry = ToolRegistry.from_plugins(SHIPPED)
    tools = []
    for entry in registry:
        tools.extend(registry.resolve(entry.name, ToolContext(workspace=workspace)))
    return tools


@pytest.mark.parametrize(
    ("value", "expected"),
    [(DEEP, "nested too deeply"), (LONG_INT, "more digits than can be read")],
)
def test_every_tool_answers_unreadable_arguments_with_an_error(
    tmp_path: Path, value: str, expected: str
) -> None:
    tools = _every_tool(tmp_path)
    assert {"bash", "file_editor", "finish", "glob", "think"} <= {t.name for t in tools}
    try:
        for tool in tools:
            (first,) = list(tool.input_schema().get("properties", {}))[:1] or ["x"]
            arguments = f'{{"{first}": {value}}}'
            for observation in (tool.call(arguments), asyncio.run(tool.acall(arguments))):
                assert observation.is_error, (tool.name, observation.text)
                assert expected in observation.text, (tool.name, observation.text)
    finally:
        for tool in tools:
            tool.close()


def test_pip_installed_plugins_that_exit_or_interrupt_or_clash(
    make_venv, wheels: dict[str, Path], tmp_path: Path
) -> None:
    env: Venv = make_venv()
    env.pip(*(str(wheels[name]) for name in ("core", "demo", "hostile")))
    checked = env.toolplug("plugins", "--check", "--json")
    assert checked.returncode == 1, checked.stderr
    reports = {p["name"]: p for p in json.loads(checked.stdout)}
    assert reports["exits"]["status"] == "broken"
    assert reports["exits"]["error"].startswith("SystemExit: 7 (at ")
    assert reports["interrupts"]["status"] == "broken"
    assert reports["interrupts"]["error"].startswith("KeyboardInterrupt: raised by the plugin")
    for name in ("demo", "clash"):
        assert reports[name]["status"] == "ok"
        (conflict,) = reports[name]["conflicts"]
        assert "toolplug-demo 0.4.2 (plugin 'demo')" in conflict
        assert "toolplug-hostile-demo 0.1.0 (plugin 'clash')" in conflict
    listed = env.toolplug("tools")
    assert listed.returncode == 0, listed.stderr
    assert "clash_only" in listed.stdout and "demo_tally" in listed.stdout
    assert "warning: demo_upper: the tool name 'demo_upper' is registered by" in listed.stderr
    called = env.toolplug("call", "clash_only", '{"text": "ok"}')
    assert (called.returncode, called.stdout) == (0, "clash_only: ok\n"), called.stderr
    script = tmp_path / "host.py"
    script.write_text(
        "import json\n"
        "from toolplug import Toolset\n"
        "with Toolset.load() as tools:\n"
        "    print(json.dumps([sorted(tools), tools.problems]))\n"
    )
    out = env.run(str(env.python), str(script), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    names, problems = json.loads(out.stdout)
    assert names == ["clash_only", "demo_tally"]
    assert len(problems) == 1 and "toolplug-hostile-demo 0.1.0" in problems[0]
