"""What a hostile workspace and pattern do to the grep tool, through the real tool.

Each test builds a real tree (FIFOs, links to devices, a huge single line, names and
contents holding terminal escapes) and calls the tool as a host would, with each
engine: nothing may hang, no thread may be left behind, and every answer is a clear
one.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from conftest import make_tree
from toolplug.testing import params_listing, run_toolplug

# -- what is not a regular file -------------------------------------------------------


def _special_tree(root: Path) -> None:
    """A text file beside a FIFO, a link to the FIFO and a link to a device."""
    make_tree(root, {"a.txt": "hello world\n", "sub/b.txt": "hello again\n"})
    os.mkfifo(root / "pipe")
    os.mkfifo(root / "sub" / "pipe.txt")
    (root / "to-pipe").symlink_to(root / "pipe")
    (root / "zero").symlink_to("/dev/zero")


def _threads_settle(count: int) -> int:
    """The number of live threads once finished calls' threads have ended."""
    for _ in range(100):
        if threading.active_count() <= count:
            break
        time.sleep(0.05)
    return threading.active_count()


@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
def test_a_fifo_in_the_workspace_neither_hangs_nor_leaks_a_thread(
    tmp_path: Path, make_tool, mode: str
) -> None:
    # Opening a FIFO waits for a writer that never comes: the portable engine hung
    # for ever, and a host timeout left its thread blocked, one more per call.
    _special_tree(tmp_path)
    tool = make_tool(tmp_path, timeout=20)
    # One call first: the core keeps an idle worker thread for the next timed call, and
    # that one is not a leak. A call left blocked would need a new worker each time.
    tool.call({"pattern": "hello", "output_mode": mode}, timeout=20)
    before = threading.active_count()
    for _ in range(3):
        # The host's timeout runs the call in a thread of its own, given up on expiry.
        observation = tool.call({"pattern": "hello", "output_mode": mode}, timeout=20)
        assert not observation.is_error, observation.text
        assert "a.txt" in observation.text and "sub/b.txt" in observation.text
        assert "pipe" not in observation.text
    # Fewer is fine (an idle worker, or a thread of an earlier test, may end meanwhile);
    # a call left blocked would add one thread per call.
    assert _threads_settle(before) <= before


@pytest.mark.parametrize("path", ["pipe", "to-pipe", "sub/pipe.txt"])
def test_a_fifo_named_as_the_path_is_refused(tmp_path: Path, make_tool, path: str) -> None:
    _special_tree(tmp_path)
    observation = make_tool(tmp_path, timeout=20).call({"pattern": "hello", "path": path})
    assert observation.is_error
    assert "not a regular file or a directory" in observation.text


def test_a_link_to_a_device_is_not_read(tmp_path: Path, make_tool) -> None:
    _special_tree(tmp_path)
    tool = make_tool(tmp_path, timeout=20)
    found = tool.call(
        {"pattern": "hello", "include_hidden": True, "output_mode": "files_with_matches"}
    )
    assert not found.is_error, found.text
    assert sorted(found.files) == ["a.txt", "sub/b.txt"]
    named = tool.call({"pattern": "x", "path": "zero"})
    assert named.is_error and "outside the workspace" in named.text


def test_a_huge_single_line_comes_back_cut(tmp_path: Path, make_tool) -> None:
    (tmp_path / "one.txt").write_text("x" * 20_000_000 + "needle" + "y" * 1000 + "\n")
    observation = make_tool(tmp_path, timeout=60).call(
        {"pattern": "needle", "output_mode": "content"}
    )
    assert not observation.is_error, observation.text[:300]
    [line] = observation.lines
    assert line.text.endswith("[... line cut]")
    assert len(observation.text) < 2_000


# -- where an invalid regex goes wrong ------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "where"),
    [
        # ripgrep parses "(?:PATTERN)": for these its caret pointed into the wrapping,
        # and the position was dropped.
        ("foo(", "at character 4"),
        ("a)b", "at character 2"),
        ("(a(b", "at character 3"),
        ("[(]a(", "at character 5"),
        ("\\(a(", "at character 4"),
        ("[]()]x)", "at character 7"),
    ],
)
def test_an_unbalanced_group_error_gives_its_position(
    tmp_path: Path, make_tool, pattern: str, where: str
) -> None:
    make_tree(tmp_path, {"a.txt": "foo\n"})
    observation = make_tool(tmp_path).call({"pattern": pattern})
    assert observation.is_error
    assert where in observation.text, observation.text


def test_a_regex_that_ends_too_soon_says_so(tmp_path: Path) -> None:
    from conftest import ENGINES, build

    if "ripgrep" not in ENGINES:
        pytest.skip("no rg binary")
    make_tree(tmp_path, {"a.txt": "foo\n"})
    observation = build(tmp_path, "ripgrep").call({"pattern": "x{"})
    assert observation.is_error
    assert "at the end of the pattern (after character 2)" in observation.text


# -- control characters in names and contents ----------------------------------------

#: A file whose name and lines hold what a terminal acts on.
EVIL_NAME = "n\x1b]0;owned\x07\u202eame\n.txt"
EVIL_LINE = "needle \x1b[2J\x1b]8;;http://x\x1b\\link\x9b1m \u202edrow\tend\rback"


def test_control_characters_are_escaped_in_the_text_and_exact_in_the_fields(
    tmp_path: Path, make_tool
) -> None:
    make_tree(tmp_path, {EVIL_NAME: EVIL_LINE + "\n", "plain.txt": "needle\n"})
    tool = make_tool(tmp_path)
    lines = tool.call({"pattern": "needle", "output_mode": "content"})
    files = tool.call({"pattern": "needle", "output_mode": "files_with_matches"})
    counts = tool.call({"pattern": "needle", "output_mode": "count"})
    for observation in (lines, files, counts):
        assert not observation.is_error, observation.text
        for raw in ("\x1b", "\x07", "\u202e", "\x9b", "\r"):
            assert raw not in observation.text
        assert "n\\x1b]0;owned\\x07\\u202eame\\n.txt" in observation.text
    # One line of text per result: the name's newline does not split it.
    assert len(lines.text.splitlines()) == 3
    shown = lines.text.splitlines()[1]
    assert shown.endswith(":1:" + EVIL_LINE.replace("\x1b", "\\x1b").replace("\x9b", "\\x9b")
                          .replace("\u202e", "\\u202e").replace("\r", "\\r"))  # fmt: skip
    assert "\tend" in shown  # a tab in a line is text
    # The typed fields keep the exact name and line.
    assert [line.file for line in lines.lines] == [EVIL_NAME, "plain.txt"]
    assert lines.lines[0].text == EVIL_LINE
    assert sorted(files.files) == sorted([EVIL_NAME, "plain.txt"])
    assert sorted(c.file for c in counts.counts) == sorted([EVIL_NAME, "plain.txt"])


def test_toolplug_call_prints_no_raw_control_character(tmp_path: Path) -> None:
    from toolplug.testing import run_toolplug

    make_tree(tmp_path, {EVIL_NAME: EVIL_LINE + "\n"})
    arguments = '{"pattern": "needle", "output_mode": "content"}'
    done = run_toolplug("call", "grep", arguments, plugins="grep", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for raw in ("\x1b", "\x07", "\u202e", "\x9b", "\r"):
        assert raw not in done.stdout
    typed = run_toolplug("call", "grep", arguments, "--json", plugins="grep", cwd=tmp_path)
    assert typed.returncode == 0, typed.stderr
    for raw in ("\x1b", "\x07", "\u202e", "\x9b", "\r"):
        assert raw not in typed.stdout
    [line] = json.loads(typed.stdout)["structuredContent"]["lines"]
    assert (line["file"], line["text"]) == (EVIL_NAME, EVIL_LINE)


# -- globs: the syntax the glob tool and the policy share (docs/globs.md) ---------------


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("x[z-a].py", "backwards range [z-a]; write [a-z]"),
        ("{a,b}" * 20 + ".py", "expands to more than 10,000 patterns"),
        ("{" * 40 + "a" + "}" * 40, "nests '{' groups more than 32 deep"),
        ("src/[a/b].py", "never closed"),
    ],
)
def test_a_glob_too_big_or_malformed_gets_a_clear_error(
    tmp_path: Path, make_tool, glob: str, expected: str
) -> None:
    make_tree(tmp_path, {"src/a.py": "needle\n", "b.py": "needle\n"})
    observation = make_tool(tmp_path).call({"pattern": "needle", "glob": glob})
    assert observation.is_error, observation.text
    assert expected in observation.text, observation.text


def test_a_glob_reads_braces_classes_and_dot_files_as_the_glob_tool_does(
    tmp_path: Path, make_tool
) -> None:
    make_tree(
        tmp_path,
        {"src/a1.py": "needle\n", "src/{a}.py": "needle\n", "src/a.py": "needle\n",
         "src/.b.py": "needle\n", "src/c.ts": "needle\n"},
    )  # fmt: skip
    tool = make_tool(tmp_path)

    def files(glob: str) -> list[str]:
        observation = tool.call({"pattern": "needle", "glob": glob, "include_hidden": True})
        assert not observation.is_error, observation.text
        return sorted(observation.files)

    assert files("src/{a}.py") == ["src/{a}.py"]  # one item: no group, as in bash
    assert files("src/a[[:digit:]].py") == ["src/a1.py"]
    assert files("*.{py,ts}") == ["src/.b.py", "src/a.py", "src/a1.py", "src/c.ts", "src/{a}.py"]


# -- params: described and bounded in create()'s annotations -------------------------------


def test_every_param_is_described_in_the_params_listing() -> None:
    properties = params_listing("grep", plugins="grep")
    assert properties
    assert [n for n, p in properties.items() if not p.get("description")] == []


def test_a_param_out_of_its_range_is_refused_by_name(tmp_path: Path) -> None:
    done = run_toolplug(
        "call", "grep", "{}", "--param", "default_limit=0", plugins="grep", cwd=tmp_path
    )

    assert done.returncode == 2
    assert "Invalid params for tool 'grep'" in done.stderr and "- default_limit: " in done.stderr


# -- what a model sends that the schema no longer shows (issue #28) ---------------------


def test_explicit_nulls_and_the_hidden_sides_still_work(tmp_path: Path, make_tool) -> None:
    # The schema shows optional fields as plain types, left out, and `context` alone;
    # a model trained on the old schema still sends null for "not given", or before/after.
    make_tree(tmp_path, {"f.txt": "one\ntwo\nthree\nfour\nfive\n"})
    tool = make_tool(tmp_path)
    nulls = {"path": None, "glob": None, "type": None, "context": None, "limit": None}
    listed = tool.call({"pattern": "three", **nulls})
    assert not listed.is_error and "f.txt" in listed.text, listed.text
    sides = tool.call(
        {"pattern": "three", "output_mode": "content", "before": 1, "after": None, "context": 2}
    )
    assert not sides.is_error, sides.text
    # before wins on its side; after, given as null, leaves context's 2 lines.
    assert "f.txt-2-two" in sides.text and "f.txt-1-one" not in sides.text, sides.text
    assert "f.txt-5-five" in sides.text, sides.text
    refused = tool.call({"pattern": "x", "before": 99, "output_mode": "content"})
    assert refused.is_error and "before" in refused.text, refused.text
