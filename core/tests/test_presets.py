"""Presets: tool sets per model family (issue #30), loaded from the installed plugins.

The loads are real: the installed bash, file-editor, glob, grep, think and finish
plugins. The native declarations of bash, file_editor and apply_patch are checked
through each tool's own ``native_forms``: where a plugin gives a form for a format,
the preset's choice must declare it so; where it gives none yet, the tool stays a
function tool. The test plugin (``data/presets``) adds a family, a preset and a tool
with a real form, so the choice is seen reaching an export in every case.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from toolplug import Preset, PresetError, Toolset, UnknownToolError, hookimpl
from toolplug.presets import CORE_TABLE, PresetTable, preset_table
from toolplug.testing import registry_from, run_toolplug

SHIPPED = [f"toolplug_{n}" for n in ("bash", "file_editor", "glob", "grep", "think", "finish")]

#: The core env tests the core alone; the integration env runs this file with every
#: shipped plugin installed (tox.ini), and so does each compat env.
pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in SHIPPED),
    reason="the presets' tools come from the shipped plugins, not installed here",
)

DATA = Path(__file__).parent / "data" / "presets"
sys.path.insert(0, str(DATA))
import tp_test_presets  # noqa: E402

CODING = ["bash", "file_editor", "glob", "grep", "think", "finish"]
GPT_5_CODING = ["bash", "apply_patch", "glob", "grep", "think", "finish"]


def _names(exported: list[dict[str, Any]]) -> list[str]:
    """The function tools' names in an export (openai, responses or anthropic)."""
    names = []
    for declaration in exported:
        if "function" in declaration:  # Chat Completions
            names.append(declaration["function"]["name"])
        elif declaration.get("type") in (None, "function"):
            names.append(declaration["name"])
    return names


def _expected(toolset: Toolset, format: str) -> tuple[list[dict[str, Any]], list[str]]:
    """What an export in ``format`` must hold for the toolset's preset: the native
    declarations of the chosen tools that have a form for it, and every other tool as
    a function."""
    assert toolset.preset is not None
    chosen = toolset.preset.native(format) or frozenset()
    native, functions = [], []
    for tool in toolset.values():
        form = tool.native_forms.get(format)
        if tool.name in chosen and form is not None:
            native.append(form.declare(tool))
        else:
            functions.append(tool.name)
    return native, functions


@pytest.mark.parametrize(
    ("model", "family", "tools", "native"),
    [
        ("gpt-5.1", "gpt-5", GPT_5_CODING, {"responses": ("apply_patch", "bash")}),
        ("GPT-5-mini", "gpt-5", GPT_5_CODING, {"responses": ("apply_patch", "bash")}),
        (
            "openrouter/openai/gpt-5.1-codex",
            "gpt-5",
            GPT_5_CODING,
            {"responses": ("apply_patch", "bash")},
        ),
        ("claude-sonnet-4-5", "claude", CODING, {"anthropic": ("bash", "file_editor")}),
        (
            "us.anthropic.claude-opus-4-1-20250805-v1:0",
            "claude",
            CODING,
            {"anthropic": ("bash", "file_editor")},
        ),
        ("gemini-2.5-pro", "default", CODING, {}),
        ("gpt-4.1", "default", CODING, {}),
        (None, "default", CODING, {}),
    ],
)
def test_a_model_gets_its_familys_tools(
    tmp_path: Path, model: str | None, family: str, tools: list[str], native: dict[str, Any]
) -> None:
    with Toolset.load(preset=Preset("coding", model=model), workspace=tmp_path) as toolset:
        assert list(toolset) == tools
        assert toolset.preset is not None
        assert toolset.preset.family.name == family
        assert toolset.preset.row.native == native
        for format in ("responses", "anthropic", "openai"):
            wanted = frozenset(native[format]) if format in native else False
            assert toolset.preset.native(format) == wanted


@pytest.mark.parametrize(
    ("model", "format"),
    [
        ("gpt-5.1", "responses"),
        ("gpt-5.1", "openai"),
        ("gpt-5.1", "anthropic"),
        ("claude-sonnet-4-5", "anthropic"),
        ("claude-sonnet-4-5", "responses"),
        ("claude-sonnet-4-5", "openai"),
        ("mistral-large", "anthropic"),
        ("mistral-large", "responses"),
    ],
)
def test_the_export_declares_the_familys_native_forms(
    tmp_path: Path, model: str, format: str
) -> None:
    with Toolset.load(preset=Preset("coding", model), workspace=tmp_path) as toolset:
        exported = toolset.export(format)
        native, functions = _expected(toolset, format)
        assert exported[: len(native)] == native
        assert _names(exported[len(native) :]) == functions
        called = {
            tool.native_forms[format].call_name
            for tool in toolset.values()
            if tool.native_forms.get(format) and tool.name in (toolset.preset.native(format) or ())
        }
        assert set(toolset.native_exports().get(format, {})) == called
        # The shorthands follow the preset too.
        shorthand = {
            "anthropic": toolset.to_anthropic_tools,
            "responses": toolset.to_responses_tools,
        }
        if format in shorthand:
            assert shorthand[format]() == exported
        # An explicit choice wins over the preset's.
        assert _names(toolset.export(format, native=False)) == list(toolset)
        assert toolset.native_exports() == {}


def test_a_claude_edit_round_trips_in_the_form_it_was_exported_in(tmp_path: Path) -> None:
    """The Claude row's editor: its native text editor where file_editor has the form,
    its function form where not; either way the call the model makes under the name it
    was given edits the file, and the answer is Anthropic's tool_result."""
    with Toolset.load(preset=Preset("coding", "claude-opus-4-5"), workspace=tmp_path) as tools:
        exported = tools.export("anthropic")
        form = tools["file_editor"].native_forms.get("anthropic")
        name = form.call_name if form is not None else "file_editor"
        if form is not None:
            (declared,) = [d for d in exported if d.get("name") == form.call_name]
            form.check_tool(declared)
        assert name in {d["name"] for d in exported}
        edit = {"command": "create", "path": "made.txt", "file_text": "by Claude\n"}
        [result] = tools.dispatch(
            [{"type": "tool_use", "id": "toolu_1", "name": name, "input": edit}]
        )
        assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_1"
        assert not result.get("is_error"), result
        assert (tmp_path / "made.txt").read_text() == "by Claude\n"


def test_a_gpt_5_patch_round_trips_as_a_function_where_there_is_no_form(
    tmp_path: Path,
) -> None:
    with Toolset.load(preset=Preset("coding", "gpt-5.1"), workspace=tmp_path) as tools:
        exported = tools.export("responses")
        form = tools["apply_patch"].native_forms.get("responses")
        if form is not None:  # its typed calls are that form's own tests' business
            (declared,) = [d for d in exported if d.get("type") == form.declaration["type"]]
            form.check_tool(declared)
            return
        patch = "*** Begin Patch\n*** Add File: made.txt\n+by GPT-5\n*** End Patch\n"
        call = {"type": "function_call", "call_id": "c1", "name": "apply_patch"}
        [result] = tools.dispatch([{**call, "arguments": json.dumps({"input": patch})}])
        assert result["type"] == "function_call_output" and result["call_id"] == "c1"
        assert (tmp_path / "made.txt").read_text() == "by GPT-5\n"


def test_the_choice_reaches_the_export_of_a_tool_with_a_form(tmp_path: Path) -> None:
    registry = registry_from(_core_tools(), tp_test_presets)
    with Toolset.load(preset=Preset("talk", "tiny-2"), registry=registry) as toolset:
        assert list(toolset) == ["shout", "think"]
        exported = toolset.export("responses")
        assert exported[0] == {
            "type": "custom",
            "name": "shout",
            "description": "Say the text louder.",
        }
        assert _names(exported[1:]) == ["think"]
        assert toolset.native_exports()["responses"]["shout"][0] is toolset["shout"]
        # Other formats, and an explicit choice, declare it as a function.
        assert _names(toolset.export("anthropic")) == ["shout", "think"]
        assert _names(toolset.export("responses", native=False)) == ["shout", "think"]
        assert toolset.export("responses", native=["shout"])[0]["type"] == "custom"
    # The preset's default row exports no native form.
    with Toolset.load(preset=Preset("talk", "gpt-4o"), registry=registry) as toolset:
        assert list(toolset) == ["think", "shout"]
        assert _names(toolset.export("responses")) == ["think", "shout"]


def _core_tools() -> Any:
    """The installed think plugin's hooks, so the test plugin's rows have their tools."""
    import toolplug_think

    return toolplug_think


def test_a_plugins_family_is_matched_before_the_cores(tmp_path: Path) -> None:
    import toolplug_bash
    import toolplug_file_editor
    import toolplug_grep

    registry = registry_from(toolplug_bash, toolplug_file_editor, toolplug_grep, tp_test_presets)
    table = registry.presets
    assert [f.name for f in table.families()] == ["tiny", "gpt-5", "claude", "default"]
    assert table.family_of("gpt-5-tiny-0805").name == "tiny"
    assert table.family_of("gpt-5.1").name == "gpt-5"
    assert table.source("family", "tiny") == "plugin 'tp_test_presets'"
    assert table.source("family", "gpt-5") == "toolplug"
    assert table.problems == []
    with Toolset.load(preset=Preset("coding", "GPT-5-Tiny"), registry=registry) as toolset:
        assert list(toolset) == ["bash", "file_editor", "grep"]
        assert toolset.preset is not None and toolset.preset.family.name == "tiny"
        assert _names(toolset.export("responses")) == ["bash", "file_editor", "grep"]


def test_a_family_with_no_row_in_a_preset_gets_its_default_row() -> None:
    table = preset_table()
    table.add({"families": [{"name": "qwen", "models": ["qwen*"]}]}, source="plugin 'q'")
    choice = table.choose(Preset("coding", "qwen3-coder"))
    assert choice.family.name == "qwen"
    assert choice.row.family == "default"
    assert "(its default row)" in choice.describe()


def test_an_unknown_preset_is_an_error_listing_the_known_ones() -> None:
    with pytest.raises(PresetError, match="unknown preset 'cooking'; known presets: coding"):
        Toolset.load(preset=Preset("cooking", "gpt-5.1"))
    registry = registry_from(_core_tools(), tp_test_presets)
    with pytest.raises(PresetError, match="known presets: coding, talk"):
        Toolset.load(preset="cookin", registry=registry)


def test_a_preset_name_alone_is_its_default_row(tmp_path: Path) -> None:
    with Toolset.load(preset="coding", workspace=tmp_path) as toolset:
        assert list(toolset) == CODING
        assert toolset.preset is not None and toolset.preset.family.name == "default"


def test_a_tool_the_row_needs_that_is_not_enabled_names_the_preset() -> None:
    with pytest.raises(UnknownToolError) as caught:
        Toolset.load(preset=Preset("coding", "gpt-5.1"), plugins="bash,glob")
    message = str(caught.value)
    assert "preset coding for gpt-5.1: family gpt-5" in message
    assert "needs the tool 'apply_patch'" in message


def test_specs_and_a_preset_are_one_or_the_other() -> None:
    with pytest.raises(TypeError, match="specs or a preset, not both"):
        Toolset.load(["bash"], preset="coding")


def test_a_toolset_without_a_preset_exports_functions_only(tmp_path: Path) -> None:
    with Toolset.load(["bash", "file_editor"], workspace=tmp_path) as toolset:
        assert toolset.preset is None
        assert _names(toolset.export("anthropic")) == ["bash", "file_editor"]


# -- what plugins add, and what is refused ----------------------------------------------


class _Adds:
    """A plugin whose register_presets hook registers ``data`` (each a call)."""

    def __init__(self, *data: Any) -> None:
        self.data = data

    @hookimpl
    def register_presets(self, register: Any) -> None:
        for data in self.data:
            register(data)


class _Raises:
    @hookimpl
    def register_presets(self, register: Any) -> None:
        raise RuntimeError("no presets today")


def _table(*plugins: Any) -> PresetTable:
    return registry_from(*plugins).presets


def test_a_taken_family_or_row_is_refused_naming_both_plugins() -> None:
    first = _Adds({"families": [{"name": "mini", "models": ["mini-*"]}]})
    second = _Adds(
        {
            "families": [{"name": "mini", "models": ["m*"]}, {"name": "new", "models": ["new"]}],
            "rows": [{"preset": "coding", "family": "new", "tools": ["bash"]}],
        }
    )
    third = _Adds({"families": [{"name": "claude", "models": ["c*"]}]})
    fourth = _Adds({"rows": [{"preset": "coding", "family": "claude", "tools": ["bash"]}]})
    table = _table(first, second, third, fourth)
    problems = "\n".join(table.problems)
    assert "cannot add the family 'mini'" in problems
    assert "cannot add the family 'claude' (toolplug has it)" in problems
    assert "cannot add the row 'coding/claude' (toolplug has it)" in problems
    # The refused call adds nothing: not its other family, nor its row.
    assert [f.name for f in table.families()] == ["mini", "gpt-5", "claude", "default"]
    assert table.family_of("mini-1").models == ("mini-*",)
    assert [r.family for r in table.rows("coding")] == ["gpt-5", "claude", "default"]


def test_a_load_logs_the_tables_problems_and_keeps_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import toolplug_bash
    import toolplug_file_editor
    import toolplug_finish
    import toolplug_glob
    import toolplug_grep
    import toolplug_think

    tools = [toolplug_bash, toolplug_file_editor, toolplug_glob, toolplug_grep]
    tools += [toolplug_think, toolplug_finish]
    clash = _Adds({"families": [{"name": "claude", "models": ["c*"]}]})
    registry = registry_from(*tools, clash)
    with (
        caplog.at_level(logging.WARNING, logger="toolplug"),
        Toolset.load(preset="coding", registry=registry, workspace=tmp_path) as toolset,
    ):
        assert list(toolset) == CODING
        (problem,) = toolset.problems
    assert problem == "plugin 'plugin6' cannot add the family 'claude' (toolplug has it)"
    assert f"Toolset.load(): {problem}" in caplog.text


def test_two_plugins_naming_one_family_are_both_named() -> None:
    one = _Adds({"families": [{"name": "mini", "models": ["mini-*"]}]})
    two = _Adds({"families": [{"name": "mini", "models": ["m*"]}]})
    (problem,) = _table(one, two).problems
    assert "cannot add the family 'mini'" in problem
    sources = [s for s in ("plugin 'plugin0'", "plugin 'plugin1'") if s in problem]
    assert len(sources) == 2, problem


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"rows": [{"preset": "p", "tools": ["bash"], "native": {"anthropic": ["glob"]}}]},
            "names glob, which is not among the row's tools",
        ),
        ({"rows": [{"preset": "p", "tools": ["bash", "bash"]}]}, "tools named twice: bash"),
        ({"rows": [{"preset": "p", "tools": []}]}, "at least 1 item"),
        ({"families": [{"name": "x", "models": []}]}, "at least 1 item"),
        ({"families": [{"name": "x", "models": [" "]}]}, "must not be empty"),
        ({"families": [{"name": "has space", "models": ["x"]}]}, "should match pattern"),
        ({"families": [{"name": "default", "models": ["x*"]}]}, "the family 'default'"),
        ({"rows": [{"preset": "p", "tools": ["bash"], "tool": "x"}]}, "Extra inputs"),
        ({"tables": []}, "Extra inputs"),
        ("coding", "does not validate"),
        (
            {"rows": [{"preset": "q", "tools": ["a"]}, {"preset": "q", "tools": ["b"]}]},
            "q/default twice in one call",
        ),
    ],
)
def test_malformed_data_is_refused_with_what_to_fix(data: Any, message: str) -> None:
    (problem,) = _table(_Adds(data)).problems
    assert "plugin 'plugin0'" in problem
    assert message in problem


def test_a_row_for_an_unknown_family_and_a_preset_with_no_default_row_are_left_out() -> None:
    table = _table(
        _Adds(
            {
                "presets": {"review": "Read code."},
                "rows": [
                    {"preset": "review", "family": "claude", "tools": ["grep"]},
                    {"preset": "coding", "family": "llama", "tools": ["bash"]},
                ],
            }
        )
    )
    problems = "\n".join(table.problems)
    assert "the row coding/llama is for an unknown family" in problems
    assert "the preset 'review' has no 'default' row" in problems
    assert list(table.presets()) == ["coding"]
    with pytest.raises(PresetError, match="unknown preset 'review'"):
        table.choose("review")


def test_a_hook_that_raises_is_reported_and_the_rest_kept() -> None:
    table = _table(_Raises(), _Adds({"families": [{"name": "ok", "models": ["ok-*"]}]}))
    (problem,) = table.problems
    assert "register_presets failed" in problem and "no presets today" in problem
    assert table.family_of("ok-1").name == "ok"


def test_the_core_table_validates_and_every_preset_has_a_default_row() -> None:
    table = preset_table()
    assert table.problems == []
    assert list(table.presets()) == list(CORE_TABLE["presets"])
    for preset in table.presets():
        assert table.choose(preset).row.family == "default"


def test_the_docs_table_is_the_core_table() -> None:
    """docs/presets.md shows every core row as it is: its family, models, tools, native."""
    page = (Path(__file__).parents[2] / "docs" / "presets.md").read_text()
    shown = [line for line in page.splitlines() if line.startswith("| `")]
    table = preset_table()
    rows = list(table.rows())
    assert len(shown) == len(rows)
    for line, row in zip(shown, rows):
        family = next(f for f in table.families() if f.name == row.family)
        native = "; ".join(f"{k}: {', '.join(v)}" for k, v in row.native.items()) or "none"
        cells = [
            f"`{row.preset}`",
            f"`{family.name}` ({family.title})",
            ", ".join(f"`{m}`" for m in family.models),
            ", ".join(row.tools),
            native,
        ]
        assert line == "| " + " | ".join(cells) + " |"


# -- the command line -------------------------------------------------------------------


def _tools_json(*args: str) -> list[dict[str, Any]]:
    done = run_toolplug("tools", "--preset", "coding", *args)
    assert done.returncode == 0, done.stderr
    exported: list[dict[str, Any]] = json.loads(done.stdout)
    return exported


def test_cli_tools_shows_what_each_model_gets(tmp_path: Path) -> None:
    exported = _tools_json("--model", "gpt-5.1", "--format", "responses")
    with Toolset.load(preset=Preset("coding", "gpt-5.1"), workspace=tmp_path) as toolset:
        assert exported == json.loads(json.dumps(toolset.export("responses")))
    assert "apply_patch" in json.dumps(exported) and "file_editor" not in json.dumps(exported)
    claude = _tools_json("--model", "claude-opus-4-5", "--format", "anthropic")
    with Toolset.load(preset=Preset("coding", "claude-opus-4-5"), workspace=tmp_path) as toolset:
        assert claude == json.loads(json.dumps(toolset.export("anthropic")))
    assert _names(_tools_json("--model", "qwen3", "--format", "openai")) == CODING
    # MCP (the --json default) has no native forms: the set's tools only.
    assert [t["name"] for t in _tools_json("--model", "gpt-5", "--json")] == GPT_5_CODING

    done = run_toolplug("tools", "--preset", "coding", "--model", "claude-haiku-4-5")
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[:2]
    assert first == [
        "preset coding for claude-haiku-4-5: family claude (Anthropic Claude)",
        "  native in anthropic: bash, file_editor",
    ]
    assert "\napply_patch" not in done.stdout and "\nfile_editor" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tools", "--preset", "cooking"], "unknown preset 'cooking'; known presets: coding"),
        (["tools", "--model", "gpt-5"], "--model chooses the family of a preset"),
        (["tools", "--params", "--preset", "coding"], "--params lists params"),
        (["tools", "--preset", "coding", "--plugins", "bash"], "needs the tool 'file_editor'"),
    ],
)
def test_cli_tools_refuses_bad_preset_options(args: list[str], message: str) -> None:
    done = run_toolplug(*args)
    assert done.returncode == 2
    assert message in done.stderr


def test_cli_presets_lists_presets_families_and_rows() -> None:
    done = run_toolplug("presets", "--model", "gpt-5.1")
    assert done.returncode == 0, done.stderr
    assert "  coding       Read, search, edit and run code in the workspace." in done.stdout
    assert "  gpt-5        OpenAI GPT-5 family: gpt-5*" in done.stdout
    assert "gpt-5.1 is in the family gpt-5" in done.stdout
    assert " *gpt-5        bash, apply_patch, glob, grep, think, finish" in done.stdout
    assert "               native in responses: apply_patch, bash" in done.stdout

    done = run_toolplug("presets", "--json", "--model", "mistral-small")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["model"] == {"name": "mistral-small", "family": "default"}
    assert [f["name"] for f in listed["families"]] == ["gpt-5", "claude", "default"]
    rows = {(r["preset"], r["family"]): r for r in listed["rows"]}
    assert rows["coding", "claude"]["native"] == {"anthropic": ["bash", "file_editor"]}
    assert rows["coding", "default"]["source"] == "toolplug"
    assert listed["problems"] == []


def test_cli_shows_a_plugins_rows_and_problems(install_dist: Any, tmp_path: Path) -> None:
    from conftest import run_toolplug as run_with

    code = (DATA / "tp_test_presets.py").read_text()
    bad = "from toolplug import hookimpl\n\n@hookimpl\ndef register_presets(register):\n"
    bad += "    register({'families': [{'name': 'claude', 'models': ['c*']}]})\n"
    site = install_dist(
        "toolplug-talk", "1.0", {"talk": "tp_test_presets"}, {"tp_test_presets": code}
    )
    install_dist("toolplug-clash", "1.0", {"clash": "tp_test_clash"}, {"tp_test_clash": bad})
    paths = (str(site.parent),)
    done = run_with("presets", "--model", "tiny-1", cwd=tmp_path, paths=paths)
    assert done.returncode == 0, done.stderr
    assert "  tiny         Tiny models: tiny-*, gpt-5-tiny*  [plugin 'talk']" in done.stdout
    assert " *tiny         shout, think  [plugin 'talk']" in done.stdout
    assert "cannot add the family 'claude' (toolplug has it)" in done.stderr

    done = run_with(
        "tools",
        "--preset",
        "talk",
        "--model",
        "tiny-1",
        "--format",
        "responses",
        cwd=tmp_path,
        paths=paths,
    )
    assert done.returncode == 0, done.stderr
    exported = json.loads(done.stdout)
    assert exported[0] == {"type": "custom", "name": "shout", "description": "Say the text louder."}


def test_a_native_choice_for_an_unregistered_format_is_reported_and_left_out() -> None:
    """A typo in a format's name would leave every tool a function tool, unsaid."""
    typo = {
        "families": [{"name": "mini", "models": ["mini-*"]}],
        "rows": [
            {
                "preset": "coding",
                "family": "mini",
                "tools": ["bash", "file_editor"],
                "native": {"anthropc": ["bash"], "anthropic": ["file_editor"]},
            }
        ],
    }
    registry = registry_from(_Adds(typo))
    (problem,) = registry.presets.problems
    assert "the row coding/mini chooses native forms for 'anthropc'" in problem
    assert "which no plugin registers as a format" in problem and "anthropic" in problem
    choice = registry.presets.choose(Preset("coding", "mini-1"))
    assert choice.native("anthropic") == {"file_editor"} and choice.native("anthropc") is False
