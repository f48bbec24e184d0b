"""Provider limits checked at export: ``Toolset.export(check=...)`` and
``toolplug tools --check FORMAT``, through the real CLI and the providers' SDK types."""

from __future__ import annotations

import json
import re
import subprocess
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import run_toolplug
from pydantic import Field, create_model
from toolplug import Action, Observation, ToolDefinition, Toolset
from toolplug.limits import LIMITS, LimitError, LimitWarning, check, states

# A plugin whose tool count and schemas the test chooses through environment variables.
MANY = """
import os
from typing import Literal, Optional
from pydantic import Field, create_model
from toolplug import Action, Observation, ToolDefinition, hookimpl

def _tool(name, action):
    return ToolDefinition(name=name, description="A generated tool.", action_type=action,
                          executor=lambda a: Observation.from_text("ok"))

class Plain(Action):
    text: str = Field(description="Some text.")

def _wide():
    # 1,500 enum values: a states estimate far past any built-in tool's.
    colour = Literal[tuple(f"c{i}" for i in range(1500))]
    return create_model("Wide", __base__=Action, colour=(Optional[colour], None),
                        note=(Optional[str], None))

def _deep(levels):
    model = create_model("L0", leaf=(str, ...))
    for i in range(1, levels):
        model = create_model(f"L{i}", inner=(model, ...))
    return create_model("Deep", __base__=Action, root=(model, ...))

@hookimpl
def register_tools(register):
    for i in range(int(os.environ.get("TP_MANY", "0"))):
        register(_tool(f"tool_{i:03d}", Plain))
    if os.environ.get("TP_WIDE"):
        register(_tool("wide_enum", _wide()))
    if os.environ.get("TP_DEEP"):
        register(_tool("deep_nest", _deep(int(os.environ["TP_DEEP"]))))
"""


@pytest.fixture
def toolplug(install_dist: Any, tmp_path: Path) -> Any:
    """``toolplug ...`` in a subprocess, with the ``many`` plugin installed."""
    site = install_dist("toolplug-many", "0.1.0", {"many": "tp_test_many"}, {"tp_test_many": MANY})

    def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return run_toolplug(*args, cwd=tmp_path, paths=(str(site.parent),), env=env)

    return run


def test_check_openai_fails_on_130_tools_and_says_what_to_do(toolplug: Any) -> None:
    out = toolplug("tools", "--check", "openai", "--plugins", "many", TP_MANY="130")
    assert out.returncode == 1, out.stderr
    assert "openai: 130 tools, 1 limit(s) broken" in out.stdout
    assert "130 tools declared, 2 too many" in out.stdout
    assert "at most 128 tools" in out.stdout and "defer some tools" in out.stdout


def test_check_passes_at_the_cap_and_under_a_larger_one(toolplug: Any) -> None:
    at_cap = toolplug("tools", "--check", "responses", "--plugins", "many", TP_MANY="128")
    assert at_cap.returncode == 0, at_cap.stdout + at_cap.stderr
    assert "responses: 128 tools, no limit broken" in at_cap.stdout
    gemini = toolplug("tools", "--check", "gemini", "--plugins", "many", TP_MANY="130")
    assert gemini.returncode == 0, gemini.stdout + gemini.stderr


def test_check_json_names_tool_rule_and_advice(toolplug: Any) -> None:
    out = toolplug(
        "tools", "--check", "gemini", "--json", "--plugins", "many", TP_WIDE="1", TP_MANY="1"
    )
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert data["format"] == "gemini" and data["tools"] == 2
    [violation] = data["violations"]
    assert violation["tool"] == "wide_enum"
    assert violation["rule"].startswith("heuristic, not a documented figure:")
    assert "simplify the schema" in violation["advice"]


def test_check_gemini_flags_deep_nesting_but_not_a_shallow_schema(toolplug: Any) -> None:
    deep = toolplug("tools", "--check", "gemini", "--plugins", "many", TP_DEEP="9")
    assert deep.returncode == 1, deep.stderr
    assert "deep_nest: the parameters nest" in deep.stdout and "heuristic" in deep.stdout
    shallow = toolplug("tools", "--check", "gemini", "--plugins", "many", TP_DEEP="3")
    assert shallow.returncode == 0, shallow.stdout


def test_openai_strict_caps_apply_only_with_strict(toolplug: Any) -> None:
    loose = toolplug("tools", "--check", "openai", "--plugins", "many", TP_WIDE="1")
    assert loose.returncode == 0, loose.stdout
    strict = toolplug("tools", "--check", "openai", "--strict", "--plugins", "many", TP_WIDE="1")
    assert strict.returncode == 1
    assert "wide_enum: the parameters have 1500 enum values" in strict.stdout
    assert "export without strict=True" in strict.stdout


def test_check_of_a_format_without_known_limits(toolplug: Any) -> None:
    out = toolplug("tools", "--check", "mcp", "--plugins", "many", TP_MANY="600")
    assert out.returncode == 0
    assert out.stdout == "mcp: no known limits to check (600 tools)\n"
    unknown = toolplug("tools", "--check", "nope", "--plugins", "many", TP_MANY="1")
    assert unknown.returncode == 2 and "unknown format 'nope'" in unknown.stderr


def test_check_refuses_a_conflicting_format(toolplug: Any) -> None:
    out = toolplug("tools", "--check", "openai", "--format", "gemini", "--plugins", "many")
    assert out.returncode == 2 and "--check names the format itself" in out.stderr


# -- the Python API ----------------------------------------------------------------------


class Plain(Action):
    text: str = Field(description="Some text.")


def _tools(count: int) -> list[ToolDefinition[Any, Any]]:
    return [
        ToolDefinition(
            name=f"ns.tool_{i}",  # a dotted name: mapped for every provider that needs it
            description="A generated tool.",
            action_type=Plain,
            executor=lambda a: Observation.from_text("ok"),
        )
        for i in range(count)
    ]


def test_export_warns_by_default_and_still_returns_the_sdk_valid_export() -> None:
    toolset = Toolset(_tools(130))
    with pytest.warns(LimitWarning, match="130 tools declared, 2 too many") as caught:
        exported = toolset.export("openai")
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert exported == toolset.export("openai", check="off")
    fmt = toolset.formats["openai"]
    for item in exported:
        fmt.check_tool(item)  # the openai SDK's own type


def test_export_error_mode_raises_with_every_violation() -> None:
    with pytest.raises(LimitError) as info:
        Toolset(_tools(513)).export("gemini", check="error")
    [violation] = info.value.violations
    assert violation.format == "gemini" and violation.tool is None
    assert "513 tools declared, 1 too many" in str(info.value)


def test_export_under_every_cap_is_silent() -> None:
    toolset = Toolset(_tools(128))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("openai", "responses", "anthropic", "gemini", "bedrock", "mcp"):
            toolset.export(name)
            toolset.export(name, check="error")


def test_a_bad_check_mode_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="check must be 'warn', 'error' or 'off'"):
        Toolset(_tools(1)).export("openai", check="loud")  # type: ignore[arg-type]


def test_every_export_fits_the_documented_name_rule() -> None:
    long_name = "server." + "x" * 150
    toolset = Toolset(
        [
            *_tools(2),
            ToolDefinition(
                name=long_name,
                description="Long.",
                action_type=Plain,
                executor=lambda a: Observation.from_text(""),
            ),
        ]
    )
    from toolplug.limits import definitions

    for name, limits in LIMITS.items():
        exported = toolset.export(name, check="off")
        names = [n for n, _, _ in definitions(name, exported)]
        assert len(names) == 3
        assert all(re.fullmatch(limits.name_pattern, n) for n in names), (name, names)


def test_states_grows_with_enums_optionals_and_depth() -> None:
    flat = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert states(flat) == 1 * 1 * 2
    optional = {**flat, "required": []}
    assert states(optional) == 1 * 2 * 2
    enum = {"type": "object", "properties": {"a": {"enum": ["x", "y", "z"]}}, "required": ["a"]}
    assert states(enum) == 4 * 1 * 2


def test_the_installed_tools_pass_every_check() -> None:
    """toolplug's own tools stay far under the heuristic thresholds."""
    with Toolset.load(workspace=Path.cwd()) as toolset:
        for name in LIMITS:
            assert check(name, toolset.export(name, check="off")) == []


def test_a_pydantic_model_with_a_large_enum_is_flagged_for_gemini() -> None:
    from typing import Literal

    colour = Literal[tuple(f"c{i}" for i in range(2500))]  # type: ignore[valid-type]
    Wide = create_model("Wide", __base__=Action, colour=(colour, ...))
    tool = ToolDefinition(
        name="wide",
        description="Wide.",
        action_type=Wide,
        executor=lambda a: Observation.from_text(""),
    )
    [violation] = check("gemini", Toolset([tool]).export("gemini", check="off"))
    assert violation.tool == "wide"
    assert "states estimate is 5,002" in violation.message
