"""`create`, `str_replace` and `insert` on real files."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import error, leftovers, ok

SOURCE = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"


def test_create_makes_missing_parents(call, workspace: Path) -> None:
    text = ok(call(command="create", path="a/b/c.txt", file_text="hello\n"))
    assert (workspace / "a" / "b" / "c.txt").read_bytes() == b"hello\n"
    assert "a/b/c.txt" in text and "a/b" in text


def test_create_empty_file(call, workspace: Path) -> None:
    ok(call(command="create", path="empty.txt", file_text=""))
    assert (workspace / "empty.txt").read_bytes() == b""


def test_create_refuses_an_existing_file(call, workspace: Path) -> None:
    (workspace / "keep.txt").write_text("precious\n")
    text = error(call(command="create", path="keep.txt", file_text="oops"))
    assert "already exists" in text and "str_replace" in text
    assert (workspace / "keep.txt").read_text() == "precious\n"
    assert "directory" in error(call(command="create", path=".", file_text="x"))


def test_create_gives_new_files_the_umask_mode(call, workspace: Path) -> None:
    ok(call(command="create", path="new.txt", file_text="x"))
    import os

    umask = os.umask(0o022)
    os.umask(umask)
    assert (workspace / "new.txt").stat().st_mode & 0o777 == 0o666 & ~umask


def test_str_replace_a_unique_match(call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    observation = call(
        command="str_replace",
        path="m.py",
        old_str="def g():\n    return 1",
        new_str="def g():\n    return 2",
    )
    text = ok(observation)
    assert (workspace / "m.py").read_text() == SOURCE.replace("return 1\n", "return 2\n").replace(
        "return 2\n", "return 1\n", 1
    )
    assert "     6\t    return 2" in text  # the snippet is numbered like view
    assert "-    return 1\n+    return 2" in text
    assert "@@ -3,4 +3,4 @@" in text  # the diff's line numbers are the file's
    assert observation.diff.startswith("--- a/m.py\n+++ b/m.py")
    assert leftovers(workspace) == []


def test_str_replace_with_no_match_says_so(call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    text = error(call(command="str_replace", path="m.py", old_str="return 3", new_str="x"))
    assert "not found" in text
    assert (workspace / "m.py").read_text() == SOURCE


def test_str_replace_whitespace_only_difference_is_pointed_out(call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    text = error(
        call(command="str_replace", path="m.py", old_str="def g():\n  return 1", new_str="x")
    )
    assert "whitespace" in text and "line(s) 5" in text


def test_str_replace_with_line_numbers_copied_from_view(call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    text = error(
        call(command="str_replace", path="m.py", old_str="     2\t    return 1!", new_str="x")
    )
    assert "line numbers" in text


def test_str_replace_with_several_matches_lists_their_lines(call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    text = error(call(command="str_replace", path="m.py", old_str="return 1", new_str="return 2"))
    assert "2 times" in text and "lines 2, 6" in text
    assert (workspace / "m.py").read_text() == SOURCE


def test_many_matches_are_listed_up_to_a_limit(call, workspace: Path) -> None:
    (workspace / "m.txt").write_text("x\n" * 500)
    text = error(call(command="str_replace", path="m.txt", old_str="x", new_str="y"))
    assert "500 times" in text and "(and 480 more)" in text


def test_str_replace_with_empty_or_missing_new_str_deletes(call, workspace: Path) -> None:
    (workspace / "m.txt").write_text("keep\ndrop me\nkeep too\n")
    ok(call(command="str_replace", path="m.txt", old_str="drop me\n", new_str=""))
    assert (workspace / "m.txt").read_text() == "keep\nkeep too\n"
    ok(call(command="str_replace", path="m.txt", old_str="too"))
    assert (workspace / "m.txt").read_text() == "keep\nkeep \n"


def test_str_replace_same_text_is_refused(call, workspace: Path) -> None:
    (workspace / "m.txt").write_text("a\n")
    assert "same" in error(call(command="str_replace", path="m.txt", old_str="a", new_str="a"))


def test_str_replace_in_a_missing_file(call) -> None:
    assert "does not exist" in error(
        call(command="str_replace", path="no.txt", old_str="a", new_str="b")
    )


def test_insert_at_top_middle_and_end(call, workspace: Path) -> None:
    target = workspace / "i.txt"
    target.write_text("one\ntwo\n")
    ok(call(command="insert", path="i.txt", insert_line=0, new_str="zero"))
    ok(call(command="insert", path="i.txt", insert_line=2, new_str="one and a half\n"))
    text = ok(call(command="insert", path="i.txt", insert_line=4, new_str="three\nfour"))
    assert target.read_text() == "zero\none\none and a half\ntwo\nthree\nfour\n"
    assert "     5\tthree" in text and "+three\n+four" in text


def test_insert_accepts_insert_text(call, workspace: Path) -> None:
    (workspace / "i.txt").write_text("a\n")
    ok(call(command="insert", path="i.txt", insert_line=1, insert_text="b"))
    assert (workspace / "i.txt").read_text() == "a\nb\n"
    differ = error(
        call(command="insert", path="i.txt", insert_line=1, insert_text="b", new_str="c")
    )
    assert "differ" in differ


def test_insert_after_a_last_line_without_newline(call, workspace: Path) -> None:
    (workspace / "i.txt").write_bytes(b"a\nb")
    ok(call(command="insert", path="i.txt", insert_line=2, new_str="c\n"))
    assert (workspace / "i.txt").read_bytes() == b"a\nb\nc"


def test_insert_into_an_empty_file(call, workspace: Path) -> None:
    (workspace / "i.txt").write_bytes(b"")
    ok(call(command="insert", path="i.txt", insert_line=0, new_str="first"))
    assert (workspace / "i.txt").read_bytes() == b"first\n"


def test_insert_out_of_range_gives_the_valid_range(call, workspace: Path) -> None:
    (workspace / "i.txt").write_text("a\nb\nc\n")
    for line in (4, -1):
        text = error(call(command="insert", path="i.txt", insert_line=line, new_str="x"))
        assert re.search(r"between 0 .* and 3", text), text
    assert (workspace / "i.txt").read_text() == "a\nb\nc\n"


def test_edits_keep_the_file_mode(call, workspace: Path) -> None:
    target = workspace / "run.sh"
    target.write_text("#!/bin/sh\necho hi\n")
    target.chmod(0o751)
    ok(call(command="str_replace", path="run.sh", old_str="hi", new_str="there"))
    assert target.stat().st_mode & 0o7777 == 0o751
    ok(call(command="undo_edit", path="run.sh"))
    assert target.stat().st_mode & 0o7777 == 0o751


def test_editing_through_a_symlink_inside_keeps_the_link(call, workspace: Path) -> None:
    (workspace / "real.txt").write_text("old\n")
    (workspace / "link.txt").symlink_to("real.txt")
    ok(call(command="str_replace", path="link.txt", old_str="old", new_str="new"))
    assert (workspace / "link.txt").is_symlink()
    assert (workspace / "real.txt").read_text() == "new\n"


def test_snippet_and_diff_stay_small_in_a_big_file(call, workspace: Path) -> None:
    lines = [f"line {i}" for i in range(1, 20001)]
    (workspace / "big.txt").write_text("\n".join(lines) + "\n")
    text = ok(
        call(command="str_replace", path="big.txt", old_str="line 10000\n", new_str="changed\n")
    )
    assert "@@ -9997,7 +9997,7 @@" in text
    assert (
        "  9996\tline 9996" in text and " 10000\tchanged" in text and " 10004\tline 10004" in text
    )
    assert "line 9995" not in text and len(text) < 1000
