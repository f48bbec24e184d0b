"""apply_patch: the conformance scenarios of the Codex patch format, and the editor's guarantees.

Each scenario in ``SCENARIOS`` is data: the workspace's files before (bytes), the patch,
and either the files after (the whole workspace must then hold exactly those) or the
pieces the error must say (the workspace must then be exactly as before).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import toolplug_file_editor
from conftest import error, ok
from toolplug import Observation, Tool, ToolContext, Toolset
from toolplug.formats import export_tool
from toolplug.testing import (
    ToolConformance,
    registry_from,
    run_toolplug,
    validate_observation_exports,
    validate_tool_exports,
)


@dataclass(frozen=True)
class Scenario:
    """A workspace before, a patch, and the workspace after or the error's pieces."""

    name: str
    before: dict[str, bytes]
    patch: str
    after: dict[str, bytes] | None = None
    errors: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    folders: tuple[str, ...] = field(default=())


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


SCENARIOS = [
    Scenario(
        "add_file",
        {},
        patch("*** Add File: hello.txt", "+hello", "+world"),
        {"hello.txt": b"hello\nworld\n"},
    ),
    Scenario(
        "add_file_makes_folders",
        {},
        patch("*** Add File: a/b/c.txt", "+deep"),
        {"a/b/c.txt": b"deep\n"},
    ),
    Scenario(
        "add_empty_file",
        {},
        patch("*** Add File: empty.txt"),
        {"empty.txt": b""},
    ),
    Scenario(
        "add_over_existing_file_replaces_it_as_codex_does",
        {"dup.txt": b"old\n"},
        patch("*** Add File: dup.txt", "+new"),
        {"dup.txt": b"new\n"},
    ),
    Scenario(
        "delete_file",
        {"gone.txt": b"bye\n", "keep.txt": b"stay\n"},
        patch("*** Delete File: gone.txt"),
        {"keep.txt": b"stay\n"},
    ),
    Scenario(
        "delete_missing_file",
        {"keep.txt": b"stay\n"},
        patch("*** Delete File: missing.txt"),
        errors=("missing.txt does not exist",),
    ),
    Scenario(
        "update_one_line",
        {"f.txt": b"foo\nbar\nbaz\n"},
        patch("*** Update File: f.txt", "@@", " foo", "-bar", "+BAR", " baz"),
        {"f.txt": b"foo\nBAR\nbaz\n"},
    ),
    Scenario(
        "update_first_hunk_without_at_at",
        {"f.txt": b"import foo\n"},
        patch("*** Update File: f.txt", " import foo", "+import bar"),
        {"f.txt": b"import foo\nimport bar\n"},
    ),
    Scenario(
        "several_hunks",
        {"m.txt": b"a\nb\nc\nd\ne\nf\n"},
        patch("*** Update File: m.txt", "@@", " a", "-b", "+B", "@@", " d", "-e", "+E", " f"),
        {"m.txt": b"a\nB\nc\nd\nE\nf\n"},
    ),
    Scenario(
        "context_line_picks_the_place",
        {"p.py": b"def f():\n    return 1\n\ndef g():\n    return 1\n"},
        patch("*** Update File: p.py", "@@ def g():", "-    return 1", "+    return 2"),
        {"p.py": b"def f():\n    return 1\n\ndef g():\n    return 2\n"},
    ),
    Scenario(
        "addition_only_hunk_after_its_context_line",
        {"p.py": b"class A:\n    x = 1\nclass B:\n    y = 2\n"},
        patch("*** Update File: p.py", "@@ class A:", "+    w = 0"),
        {"p.py": b"class A:\n    w = 0\n    x = 1\nclass B:\n    y = 2\n"},
    ),
    Scenario(
        "hunks_out_of_order_fail",
        {"m.txt": b"a\nb\nc\nd\n"},
        patch("*** Update File: m.txt", "@@", "-d", "+D", "@@", "-a", "+A"),
        errors=("m.txt: hunk 2", "'a'", "after the previous hunk"),
    ),
    Scenario(
        "move_to_new_folder",
        {"old/name.txt": b"line\n", "old/other.txt": b"x\n"},
        patch(
            "*** Update File: old/name.txt",
            "*** Move to: renamed/dir/name.txt",
            "@@",
            "-line",
            "+line2",
        ),
        {"old/other.txt": b"x\n", "renamed/dir/name.txt": b"line2\n"},
    ),
    Scenario(
        "move_without_hunks",
        {"a.txt": b"same\n"},
        patch("*** Update File: a.txt", "*** Move to: b.txt"),
        {"b.txt": b"same\n"},
    ),
    Scenario(
        "move_over_existing_destination",
        {"a.txt": b"from a\n", "b.txt": b"old b\n"},
        patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-from a", "+moved"),
        {"b.txt": b"moved\n"},
    ),
    Scenario(
        "context_that_does_not_match",
        {"f.txt": b"one\ntwo\nthree\n"},
        patch("*** Update File: f.txt", "@@", " one", "-TWO", "+2"),
        errors=("f.txt: hunk 1", "patch line 3", "'TWO'", "line 2 is 'two'", "from line 1"),
    ),
    Scenario(
        "first_line_not_found",
        {"f.txt": b"one\n"},
        patch("*** Update File: f.txt", "@@", "-nothing like it", "+x"),
        errors=("f.txt: hunk 1", "'nothing like it' was not found"),
    ),
    Scenario(
        "at_at_context_not_found",
        {"f.txt": b"one\n"},
        patch("*** Update File: f.txt", "@@ def missing():", "-one", "+1"),
        errors=("`@@ def missing():` line was not found",),
    ),
    Scenario(
        "update_in_a_missing_folder",
        {},
        patch("*** Update File: no/such/dir/f.txt", "@@", "-a", "+b"),
        errors=("no/such/dir/f.txt does not exist", "*** Add File:"),
    ),
    Scenario(
        "first_hunk_line_invalid",
        {"t.py": b"x\n"},
        patch("*** Update File: t.py", "x = 1"),
        errors=("line 3", "a hunk needs lines", "'x = 1'"),
    ),
    Scenario(
        "update_missing_file",
        {},
        patch("*** Update File: nope.txt", "@@", "-a", "+b"),
        errors=("nope.txt does not exist", "*** Add File:"),
    ),
    Scenario(
        "empty_patch",
        {"f.txt": b"x\n"},
        patch(),
        errors=("The patch is empty",),
    ),
    Scenario(
        "empty_text",
        {},
        "",
        errors=("line 1", "*** Begin Patch"),
    ),
    Scenario(
        "missing_begin",
        {},
        "*** Add File: a.txt\n+x\n*** End Patch\n",
        errors=("line 1", "starts with `*** Begin Patch`", "'*** Add File: a.txt'"),
    ),
    Scenario(
        "missing_end",
        {},
        "*** Begin Patch\n*** Add File: a.txt\n+x\n",
        errors=("line 3", "`*** End Patch`"),
    ),
    Scenario(
        "bad_header",
        {},
        patch("*** Frobnicate File: a.txt", "+x"),
        errors=("line 2", "*** Add File: PATH", "'*** Frobnicate File: a.txt'"),
    ),
    Scenario(
        "add_line_without_plus",
        {},
        patch("*** Add File: a.txt", "+one", "two"),
        errors=("line 4", "every line starts with `+`"),
    ),
    Scenario(
        "update_without_hunks",
        {"t.py": b"x\n"},
        patch("*** Update File: t.py"),
        errors=("line 2", "has no hunks"),
    ),
    Scenario(
        "bad_hunk_line",
        {"t.py": b"x\n"},
        patch("*** Update File: t.py", "@@", "-x", "+y", "@@", "bad line"),
        errors=("line 7", "a hunk needs lines", "'bad line'"),
    ),
    Scenario(
        "header_without_path",
        {},
        patch("*** Delete File:   "),
        errors=("line 2", "needs a path"),
    ),
    Scenario(
        "end_of_file_marker_appends",
        {"tail.txt": b"first\nlast\n"},
        patch("*** Update File: tail.txt", "@@", " last", "+after", "*** End of File"),
        {"tail.txt": b"first\nlast\nafter\n"},
    ),
    Scenario(
        "end_of_file_marker_matches_the_last_of_repeated_lines",
        {"r.txt": b"x\nend\nx\nend\n"},
        patch("*** Update File: r.txt", "@@", "-end", "+END", "*** End of File"),
        {"r.txt": b"x\nend\nx\nEND\n"},
    ),
    Scenario(
        "end_of_file_marker_requires_the_end",
        {"r.txt": b"a\nb\nc\n"},
        patch("*** Update File: r.txt", "@@", "-a", "+A", "*** End of File"),
        errors=("r.txt: hunk 1", "at the end of the file"),
    ),
    Scenario(
        "whitespace_padded_markers",
        {"file.txt": b"one\n"},
        " *** Begin Patch \n  *** Update File: file.txt\n@@ \n-one\n+two\n*** End Patch  \n",
        {"file.txt": b"two\n"},
    ),
    Scenario(
        "padded_header_after_a_hunk",
        {"a.txt": b"one\n"},
        patch("*** Update File: a.txt", "@@", "-one", "+two", "  *** Add File: b.txt", "+b"),
        {"a.txt": b"two\n", "b.txt": b"b\n"},
    ),
    Scenario(
        "heredoc_wrapper",
        {},
        "<<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+hi\n*** End Patch\nEOF\n",
        {"h.txt": b"hi\n"},
    ),
    Scenario(
        "patch_sent_with_crlf",
        {"f.txt": b"a\nb\n"},
        "*** Begin Patch\r\n*** Update File: f.txt\r\n@@\r\n-b\r\n+c\r\n*** End Patch\r\n",
        {"f.txt": b"a\nc\n"},
    ),
    Scenario(
        "trailing_whitespace_tolerated_and_said",
        {"w.txt": b"keep   \nold\t\n"},
        patch("*** Update File: w.txt", "@@", " keep", "-old", "+new"),
        {"w.txt": b"keep   \nnew\n"},
        notes=("hunk 1 matched only ignoring trailing whitespace",),
    ),
    Scenario(
        "indentation_tolerated_and_said",
        {"i.py": b"    x = 1\n"},
        patch("*** Update File: i.py", "@@", "-x = 1", "+    x = 2"),
        {"i.py": b"    x = 2\n"},
        notes=("ignoring leading and trailing whitespace",),
    ),
    Scenario(
        "unicode_punctuation_tolerated_and_said",
        {"u.txt": "a \u2014 \u201cquoted\u201d\n".encode()},
        patch("*** Update File: u.txt", "@@", '-a - "quoted"', "+plain"),
        {"u.txt": b"plain\n"},
        notes=("typographic dashes",),
    ),
    Scenario(
        "unicode_text",
        {"u.txt": "caf\u00e9\n\u5909\u6570 = 1\n".encode()},
        patch(
            "*** Update File: u.txt",
            "@@",
            " caf\u00e9",
            "-\u5909\u6570 = 1",
            "+\u5909\u6570 = 2 \U0001f600",
        ),
        {"u.txt": "caf\u00e9\n\u5909\u6570 = 2 \U0001f600\n".encode()},
    ),
    Scenario(
        "directory_where_a_file_is_expected_update",
        {"d/inner.txt": b"x\n"},
        patch("*** Update File: d", "@@", "-x", "+y"),
        errors=("d is a directory",),
    ),
    Scenario(
        "directory_where_a_file_is_expected_add",
        {"d/inner.txt": b"x\n"},
        patch("*** Add File: d", "+x"),
        errors=("d is a directory",),
    ),
    Scenario(
        "directory_where_a_file_is_expected_delete",
        {"d/inner.txt": b"x\n"},
        patch("*** Delete File: d"),
        errors=("d is a directory",),
    ),
    Scenario(
        "file_where_a_folder_is_expected",
        {"f.txt": b"x\n"},
        patch("*** Add File: f.txt/sub/new.txt", "+x"),
        errors=("f.txt is not a folder",),
    ),
    Scenario(
        "crlf_file_stays_crlf",
        {"c.txt": b"one\r\ntwo\r\nthree\r\n"},
        patch("*** Update File: c.txt", "@@", " one", "-two", "+2", "+2b", " three"),
        {"c.txt": b"one\r\n2\r\n2b\r\nthree\r\n"},
    ),
    Scenario(
        "crlf_file_without_final_newline",
        {"c.txt": b"one\r\ntwo"},
        patch("*** Update File: c.txt", "@@", " two", "+three", "*** End of File"),
        {"c.txt": b"one\r\ntwo\r\nthree"},
    ),
    Scenario(
        "no_final_newline_is_kept",
        {"n.txt": b"a\nb"},
        patch("*** Update File: n.txt", "@@", " a", "-b", "+B"),
        {"n.txt": b"a\nB"},
    ),
    Scenario(
        "latin1_file_stays_latin1",
        {"l.txt": b"caf\xe9\nold\n"},
        patch("*** Update File: l.txt", "@@", " caf\u00e9", "-old", "+na\u00efve"),
        {"l.txt": b"caf\xe9\nna\xefve\n"},
    ),
    Scenario(
        "utf8_bom_is_kept",
        {"b.txt": b"\xef\xbb\xbffirst\nsecond\n"},
        patch("*** Update File: b.txt", "@@", "-second", "+2nd"),
        {"b.txt": b"\xef\xbb\xbffirst\n2nd\n"},
    ),
    Scenario(
        "utf16_file_stays_utf16",
        {"w.txt": b"\xff\xfe" + "one\r\ntwo\r\n".encode("utf-16-le")},
        patch("*** Update File: w.txt", "@@", " one", "-two", "+deux \u00e9"),
        {"w.txt": b"\xff\xfe" + "one\r\ndeux \u00e9\r\n".encode("utf-16-le")},
    ),
    Scenario(
        "add_over_an_existing_crlf_file_keeps_crlf",
        {"c.txt": b"old\r\n"},
        patch("*** Add File: c.txt", "+new", "+lines"),
        {"c.txt": b"new\r\nlines\r\n"},
    ),
    Scenario(
        "trailing_empty_context_line_stands_for_the_last_newline",
        {"e.txt": b"x\ny\n"},
        patch("*** Update File: e.txt", "@@", " x", "-y", "+z", ""),
        {"e.txt": b"x\nz\n"},
    ),
    Scenario(
        "a_file_named_twice",
        {"a.txt": b"a\n"},
        patch("*** Update File: a.txt", "@@", "-a", "+b", "*** Delete File: a.txt"),
        errors=("named twice",),
    ),
    Scenario(
        "path_escaping_with_dotdot",
        {},
        patch("*** Add File: ../escape.txt", "+x"),
        errors=("outside the workspace",),
    ),
    Scenario(
        "absolute_path_outside",
        {},
        patch("*** Add File: /tmp/toolplug-apply-patch-outside.txt", "+x"),
        errors=("outside the workspace",),
    ),
    Scenario(
        "all_or_nothing_third_hunk_does_not_match",
        {"1.txt": b"one\n", "2.txt": b"two\n", "3.txt": b"three\n"},
        patch(
            "*** Update File: 1.txt",
            "@@",
            "-one",
            "+ONE",
            "*** Add File: new.txt",
            "+new",
            "*** Update File: 3.txt",
            "@@",
            "-not three",
            "+THREE",
        ),
        errors=("3.txt: hunk 1",),
    ),
    Scenario(
        "all_or_nothing_third_target_is_a_directory",
        {"1.txt": b"one\n", "2.txt": b"two\n", "3/x.txt": b"x\n"},
        patch(
            "*** Update File: 1.txt",
            "@@",
            "-one",
            "+ONE",
            "*** Delete File: 2.txt",
            "*** Update File: 3",
            "@@",
            "-x",
            "+y",
        ),
        errors=("3 is a directory",),
    ),
]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by its relative path."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def make_tool(workspace: Path, **params: object):
    registry = registry_from(toolplug_file_editor)
    [tool] = registry.resolve(Tool("apply_patch", params), ToolContext(workspace=workspace))
    return tool


def fill(workspace: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_scenario(workspace: Path, scenario: Scenario) -> None:
    fill(workspace, scenario.before)
    tool = make_tool(workspace)
    try:
        observation = tool.call({"input": scenario.patch})
    finally:
        tool.close()
    if scenario.after is None:
        text = error(observation)
        for piece in scenario.errors:
            assert piece in text, text
        assert snapshot(workspace) == scenario.before, "a failed patch changed files"
        return
    text = ok(observation)
    assert snapshot(workspace) == scenario.after
    for piece in scenario.notes:
        assert piece in text, text
    if not scenario.notes:
        assert "Note:" not in text, text
    leftovers = [p for p in workspace.rglob("*") if p.name.endswith(".toolplug-tmp")]
    assert not leftovers


def test_observation_fields_say_what_changed(workspace: Path) -> None:
    fill(workspace, {"u.txt": b"u\n", "d.txt": b"d\n", "m.txt": b"m\n"})
    tool = make_tool(workspace)
    observation = tool.call(
        {
            "input": patch(
                "*** Add File: a.txt",
                "+a",
                "*** Update File: u.txt",
                "@@",
                "-u",
                "+U",
                "*** Delete File: d.txt",
                "*** Update File: m.txt",
                "*** Move to: sub/m2.txt",
            )
        }
    )
    ok(observation)
    assert observation.added == ["a.txt"]
    assert observation.updated == ["u.txt"]
    assert observation.deleted == ["d.txt"]
    assert observation.moved == {"m.txt": "sub/m2.txt"}
    assert "A a.txt\nM u.txt\nR m.txt -> sub/m2.txt\nD d.txt" in observation.text


def test_symlink_out_of_the_workspace_is_refused(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"secret\n")
    (workspace / "link.txt").symlink_to(outside)
    (workspace / "linkdir").symlink_to(tmp_path)
    tool = make_tool(workspace)
    for body in (
        ("*** Update File: link.txt", "@@", "-secret", "+owned"),
        ("*** Delete File: link.txt",),
        ("*** Add File: linkdir/new.txt", "+x"),
        ("*** Update File: a.txt", "*** Move to: linkdir/a.txt"),
    ):
        (workspace / "a.txt").write_bytes(b"a\n")
        assert "outside the workspace" in error(tool.call({"input": patch(*body)}))
    assert outside.read_bytes() == b"secret\n"
    assert not (tmp_path / "new.txt").exists() and not (tmp_path / "a.txt").exists()
    assert (workspace / "a.txt").read_bytes() == b"a\n"


def test_symlink_inside_the_workspace_edits_its_target(workspace: Path) -> None:
    (workspace / "real.txt").write_bytes(b"old\n")
    (workspace / "alias.txt").symlink_to("real.txt")
    ok(
        make_tool(workspace).call(
            {"input": patch("*** Update File: alias.txt", "@@", "-old", "+new")}
        )
    )
    assert (workspace / "real.txt").read_bytes() == b"new\n"
    assert (workspace / "alias.txt").is_symlink()


def test_third_target_read_only_changes_nothing(workspace: Path) -> None:
    fill(workspace, {"1.txt": b"one\n", "2.txt": b"two\n", "3.txt": b"three\n"})
    (workspace / "3.txt").chmod(0o444)
    before = snapshot(workspace)
    body = patch(
        "*** Update File: 1.txt", "@@", "-one", "+1",
        "*** Update File: 2.txt", "@@", "-two", "+2",
        "*** Update File: 3.txt", "@@", "-three", "+3",
    )  # fmt: skip
    assert "3.txt is read-only" in error(make_tool(workspace).call({"input": body}))
    assert snapshot(workspace) == before


# A real failure in the write step: the kernel refuses bytes past RLIMIT_FSIZE (EFBIG)
# while the third file is written; the first two, already written, must be put back.
_WRITE_FAILS_ON_THE_THIRD = """
import json, resource, signal, sys
from pathlib import Path
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from
import toolplug_file_editor

workspace = Path(sys.argv[1])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
registry = registry_from(toolplug_file_editor)
[tool] = registry.resolve(Tool("apply_patch"), ToolContext(workspace=workspace))
result = tool.call({"input": sys.stdin.read()})
print(json.dumps({"error": result.is_error, "text": result.text}))
"""


def test_a_failed_write_of_the_third_file_puts_the_first_two_back(workspace: Path) -> None:
    fill(workspace, {"1.txt": b"one\n", "gone.txt": b"bye\n", "folder/keep": b"k\n"})
    before = snapshot(workspace)
    big = "+" + "x" * 20_000
    body = patch(
        "*** Update File: 1.txt", "@@", "-one", "+ONE",
        "*** Delete File: gone.txt",
        "*** Add File: new/deep/big.txt", big,
    )  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", _WRITE_FAILS_ON_THE_THIRD, str(workspace)],
        input=body,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["error"], result
    assert "was put back as it was" in result["text"], result
    assert snapshot(workspace) == before
    assert not (workspace / "new").exists(), "the folders made for the new file are left"


def test_file_editor_undo_reverts_a_patched_file(workspace: Path) -> None:
    fill(workspace, {"f.txt": b"a\r\nb\r\nc\r\n"})
    toolset = Toolset.load(["file_editor", "apply_patch"], workspace=workspace)
    try:
        body = patch(
            "*** Update File: f.txt", "@@", "-a", "+A", "@@", " b", "-c", "+C",
            "*** Add File: added.txt", "+new",
        )  # fmt: skip
        ok(toolset.call("apply_patch", {"input": body}))
        assert (workspace / "f.txt").read_bytes() == b"A\r\nb\r\nC\r\n"
        ok(toolset.call("file_editor", {"command": "undo_edit", "path": "f.txt"}))
        assert (workspace / "f.txt").read_bytes() == b"a\r\nb\r\nc\r\n"
        ok(toolset.call("file_editor", {"command": "undo_edit", "path": "added.txt"}))
        assert not (workspace / "added.txt").exists()
        ok(toolset.call("apply_patch", {"input": patch("*** Delete File: f.txt")}))
        text = error(toolset.call("file_editor", {"command": "undo_edit", "path": "f.txt"}))
        assert "f.txt" in text
    finally:
        toolset.close()


def test_undo_after_file_editor_and_patch_edits_in_turn(workspace: Path) -> None:
    fill(workspace, {"f.txt": b"one\ntwo\n"})
    toolset = Toolset.load(["file_editor", "apply_patch"], workspace=workspace)
    try:
        edit = {"command": "str_replace", "path": "f.txt", "old_str": "one", "new_str": "1"}
        ok(toolset.call("file_editor", edit))
        ok(
            toolset.call(
                "apply_patch", {"input": patch("*** Update File: f.txt", "@@", "-two", "+2")}
            )
        )
        undo = {"command": "undo_edit", "path": "f.txt"}
        ok(toolset.call("file_editor", undo))
        assert (workspace / "f.txt").read_bytes() == b"1\ntwo\n"
        ok(toolset.call("file_editor", undo))
        assert (workspace / "f.txt").read_bytes() == b"one\ntwo\n"
    finally:
        toolset.close()


def test_too_large_a_file_is_refused(workspace: Path) -> None:
    fill(workspace, {"big.txt": b"x\n" * 100})
    tool = make_tool(workspace, max_file_size=50)
    text = error(tool.call({"input": patch("*** Update File: big.txt", "@@", "-x", "+y")}))
    assert "max_file_size" in text


def test_a_hunk_in_a_megabyte_file(workspace: Path) -> None:
    lines = [f"line {i}\n" for i in range(60_000)]
    fill(workspace, {"big.txt": "".join(lines).encode()})
    body = patch(
        "*** Update File: big.txt", "@@", " line 29999", "-line 30000", "+changed",
        "@@", "-line 59999", "+last", "*** End of File",
    )  # fmt: skip
    ok(make_tool(workspace).call({"input": body}))
    lines[30000], lines[59999] = "changed\n", "last\n"
    assert (workspace / "big.txt").read_bytes() == "".join(lines).encode()


class TestApplyPatchConformance(ToolConformance):
    plugin = toolplug_file_editor
    tool_name = "apply_patch"
    entry_point = "file_editor"
    tool_params = {"max_file_size": 1_000_000}
    valid_arguments = {"input": patch("*** Add File: hello.txt", "+hello")}
    failing_call = {"input": patch("*** Delete File: missing.txt")}


def test_tool_shape_and_exports(workspace: Path) -> None:
    tool = make_tool(workspace)
    assert tool.name == "apply_patch"
    hints = tool.annotations
    assert hints.destructiveHint is True and hints.readOnlyHint is False
    schema = export_tool(tool, "openai")["function"]["parameters"]
    assert list(schema["properties"]) == ["input"]  # the name Codex's function tool uses
    assert schema["required"] == ["input"]
    assert len(tool.description) < 800, "the description is paid on every request"
    validate_tool_exports(tool)  # every format, against the providers' SDK types
    (workspace / "u.txt").write_text("u\n")
    done = tool.call({"input": patch("*** Update File: u.txt", "*** Move to: v.txt")})
    failed = tool.call({"input": patch("*** Delete File: missing.txt")})
    ok(done)
    error(failed)
    for observation in (done, failed):
        validate_observation_exports(observation)


def test_the_cli_lists_and_calls_it(workspace: Path) -> None:
    listing = run_toolplug("tools", plugins="file_editor")
    assert "apply_patch" in listing.stdout
    arguments = json.dumps({"input": patch("*** Add File: cli.txt", "+from the cli")})
    done = run_toolplug(
        "call", "apply_patch", arguments, "--workspace", str(workspace), plugins="file_editor"
    )
    assert done.returncode == 0, done.stderr
    assert (workspace / "cli.txt").read_bytes() == b"from the cli\n"


# -- adversarial input: refused clearly, never raised into the host, never hanging --------


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({}, "input"),
        ({"input": ["*** Begin Patch"]}, "input"),
        ({"input": None}, "input"),
    ],
)
def test_malformed_arguments_are_error_observations(
    workspace: Path, arguments: dict, said: str
) -> None:
    assert said in error(make_tool(workspace).call(arguments))


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (("*** Add File: a\x00b.txt", "+x"), "NUL"),
        (("*** Add File: " + "d/" * 2100 + "f.txt", "+x"), "characters long"),
        (("*** Add File: ~/toolplug-apply-patch.txt", "+x"), "outside the workspace"),
        (("*** Add File: a.txt", "+x", "*** End Patch", "*** Add File: b.txt", "+y"), "line 4"),
    ],
)
def test_hostile_paths_and_envelopes_change_nothing(
    workspace: Path, body: tuple[str, ...], said: str
) -> None:
    text = error(make_tool(workspace).call({"input": patch(*body)}))
    assert said in text
    assert len(text) < 2000, "the error echoes too much"
    assert snapshot(workspace) == {}


def test_binary_files_fifos_and_images_are_refused(workspace: Path) -> None:
    (workspace / "bin.dat").write_bytes(b"a\x00b\n")
    (workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"x" * 20)
    os.mkfifo(workspace / "pipe")
    tool = make_tool(workspace)
    assert "binary" in error(
        tool.call({"input": patch("*** Update File: bin.dat", "@@", "-a", "+b")})
    )
    assert "image" in error(
        tool.call({"input": patch("*** Update File: img.png", "@@", "-x", "+y")})
    )
    for body in (("*** Update File: pipe", "@@", "-a", "+b"), ("*** Delete File: pipe",)):
        assert "not a regular file" in error(tool.call({"input": patch(*body)}))
    assert (workspace / "bin.dat").read_bytes() == b"a\x00b\n"


def test_a_long_unmatched_line_is_cut_in_the_error(workspace: Path) -> None:
    (workspace / "f.txt").write_text("short\n")
    long = "y" * 100_000
    text = error(
        make_tool(workspace).call(
            {"input": patch("*** Update File: f.txt", "@@", f"-{long}", "+z")}
        )
    )
    assert "f.txt: hunk 1" in text and len(text) < 2000


def test_many_hunks_in_a_big_file(workspace: Path) -> None:
    lines = [f"line {i}\n" for i in range(20_000)]
    (workspace / "big.txt").write_text("".join(lines))
    body: list[str] = ["*** Update File: big.txt"]
    for i in range(0, 20_000, 10):
        body += ["@@", f"-line {i}", f"+LINE {i}"]
        lines[i] = f"LINE {i}\n"
    ok(make_tool(workspace).call({"input": patch(*body)}))
    assert (workspace / "big.txt").read_text() == "".join(lines)


def test_a_file_changed_by_another_process_during_the_patch_rolls_back(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer changes the third file between the plan and the writes: the window
    is opened on purpose (the change itself is a real write by a real process)."""
    from toolplug_file_editor.patch_executor import ApplyPatchExecutor

    fill(workspace, {"1.txt": b"one\n", "2.txt": b"two\n", "3.txt": b"three\n"})
    original = ApplyPatchExecutor._write_all

    def other_writer_first(self, targets):  # type: ignore[no-untyped-def]
        subprocess.run(["sh", "-c", "printf 'theirs\\n' >> 3.txt"], cwd=workspace, check=True)
        return original(self, targets)

    monkeypatch.setattr(ApplyPatchExecutor, "_write_all", other_writer_first)
    body = patch(
        "*** Update File: 1.txt", "@@", "-one", "+1",
        "*** Update File: 2.txt", "@@", "-two", "+2",
        "*** Update File: 3.txt", "@@", "-three", "+3",
    )  # fmt: skip
    text = error(make_tool(workspace).call({"input": body}))
    assert "3.txt was changed by something else" in text and "put back" in text
    assert snapshot(workspace) == {
        "1.txt": b"one\n",
        "2.txt": b"two\n",
        "3.txt": b"three\ntheirs\n",
    }


# -- a round trip per format through dispatch: the call in the provider's shape, the files
# changed, the answer in the provider's shape, both checked with the providers' SDK types.


def _calls(format: str, patch_text: str) -> tuple[object, object]:
    """A model's apply_patch call in ``format``'s own shape, and the SDK type to check it."""
    import anthropic.types as anthropic_types
    import mcp.types as mcp_types
    import openai.types.chat as openai_chat
    import openai.types.responses as openai_responses

    arguments = json.dumps({"input": patch_text})
    if format == "openai":
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "apply_patch", "arguments": arguments},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        openai_chat.ChatCompletionMessage.model_validate(message)
        return message, openai_chat.ChatCompletionToolMessageParam
    if format == "responses":
        item = {
            "id": "fc_1",
            "type": "function_call",
            "call_id": "call_1",
            "name": "apply_patch",
            "arguments": arguments,
            "status": "completed",
        }
        openai_responses.ResponseFunctionToolCall.model_validate(item)
        from openai.types.responses.response_input_item_param import FunctionCallOutput

        return [item], FunctionCallOutput
    if format == "anthropic":
        block = {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "apply_patch",
            "input": {"input": patch_text},
        }
        anthropic_types.ToolUseBlock.model_validate(block)
        return [block], anthropic_types.ToolResultBlockParam
    if format == "gemini":
        from google.genai import types as gemini_types

        part = {"functionCall": {"id": "g1", "name": "apply_patch", "args": {"input": patch_text}}}
        gemini_types.Part.model_validate(part)
        return [part], gemini_types.Part
    if format == "bedrock":
        use = {"toolUseId": "b1", "name": "apply_patch", "input": {"input": patch_text}}
        return [{"toolUse": use}], None  # checked with botocore's service model below
    params = {"name": "apply_patch", "arguments": {"input": patch_text}}
    mcp_types.CallToolRequestParams.model_validate(params)
    return params, mcp_types.CallToolResult


@pytest.mark.parametrize("format", ["openai", "responses", "anthropic", "gemini", "bedrock", "mcp"])
def test_round_trip_through_dispatch(workspace: Path, format: str) -> None:
    from pydantic import TypeAdapter

    fill(workspace, {"app.py": b"DEBUG = True\n"})
    body = patch("*** Update File: app.py", "@@", "-DEBUG = True", "+DEBUG = False")
    calls, result_type = _calls(format, body)
    with Toolset.load(["apply_patch"], workspace=workspace) as toolset:
        results = toolset.dispatch(calls)
        assert len(results) == 1
        if result_type is not None:
            TypeAdapter(result_type).validate_python(results[0])
        # The format's own check too: the SDK's types, and for Bedrock botocore's model.
        toolset.formats[format].check_result(results[0], Observation.from_text(""))
    assert "M app.py" in json.dumps(results[0])
    assert (workspace / "app.py").read_bytes() == b"DEBUG = False\n"


def test_the_example_in_the_description_applies(workspace: Path) -> None:
    from toolplug_file_editor.patch_types import DESCRIPTION

    lines = DESCRIPTION.splitlines()
    example = "\n".join(lines[lines.index("*** Begin Patch") : lines.index("*** End Patch") + 1])
    fill(
        workspace,
        {"old.py": b"x\n", "app.py": b"def greet():\ncontext line, unchanged\nremoved line\n"},
    )
    ok(make_tool(workspace).call({"input": example}))
    assert snapshot(workspace) == {
        "new.py": b"each line of the new file, after +\n",
        "main.py": b"def greet():\ncontext line, unchanged\nadded line\n",
    }


@pytest.mark.asyncio
async def test_concurrent_patches_and_edits_of_one_file_never_interleave(workspace: Path) -> None:
    import asyncio

    fill(workspace, {"c.txt": "".join(f"k{i}\n" for i in range(40)).encode()})
    toolset = Toolset.load(["file_editor", "apply_patch"], workspace=workspace)
    try:
        patcher, editor = toolset["apply_patch"], toolset["file_editor"]
        calls = [
            patcher.acall({"input": patch("*** Update File: c.txt", "@@", f"-k{i}", f"+p{i}")})
            for i in range(0, 40, 2)
        ] + [
            editor.acall(
                {
                    "command": "str_replace",
                    "path": "c.txt",
                    "old_str": f"k{i}\n",
                    "new_str": f"e{i}\n",
                }
            )
            for i in range(1, 40, 2)
        ]
        results = await asyncio.gather(*calls)
        assert not [r.text for r in results if r.is_error]
        expected = "".join(f"p{i}\n" if i % 2 == 0 else f"e{i}\n" for i in range(40))
        assert (workspace / "c.txt").read_text() == expected
    finally:
        toolset.close()


def test_modes_are_kept_by_updates_moves_and_replacing_adds(workspace: Path) -> None:
    fill(workspace, {"run.sh": b"echo a\n", "tool.sh": b"echo t\n", "keep.sh": b"old\n"})
    for name in ("run.sh", "tool.sh", "keep.sh"):
        (workspace / name).chmod(0o750)
    body = patch(
        "*** Update File: run.sh", "@@", "-echo a", "+echo b",
        "*** Update File: tool.sh", "*** Move to: bin/tool.sh",
        "*** Add File: keep.sh", "+new",
    )  # fmt: skip
    ok(make_tool(workspace).call({"input": body}))
    for name in ("run.sh", "bin/tool.sh", "keep.sh"):
        assert (workspace / name).stat().st_mode & 0o777 == 0o750, name


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file away needs root")
def test_a_moved_file_keeps_its_owner_and_group(workspace: Path) -> None:
    fill(workspace, {"theirs.txt": b"x\n"})
    os.chown(workspace / "theirs.txt", 1234, 5678)
    body = patch("*** Update File: theirs.txt", "*** Move to: moved.txt", "@@", "-x", "+y")
    ok(make_tool(workspace).call({"input": body}))
    info = (workspace / "moved.txt").stat()
    assert (info.st_uid, info.st_gid) == (1234, 5678)
