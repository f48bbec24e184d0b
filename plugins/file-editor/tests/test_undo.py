"""`undo_edit`: several levels, creates, limits, and refusing to lose outside changes."""

from __future__ import annotations

from pathlib import Path

from conftest import error, leftovers, make_editor, ok


def test_three_edits_are_undone_in_order(call, workspace: Path) -> None:
    target = workspace / "u.txt"
    target.write_bytes(b"alpha\nbeta\ngamma\n")
    states = [target.read_bytes()]
    ok(call(command="str_replace", path="u.txt", old_str="beta", new_str="BETA"))
    states.append(target.read_bytes())
    ok(call(command="insert", path="u.txt", insert_line=0, new_str="top"))
    states.append(target.read_bytes())
    ok(call(command="str_replace", path="u.txt", old_str="gamma\n", new_str=""))
    assert target.read_bytes() == b"top\nalpha\nBETA\n"
    for expected in reversed(states):
        text = ok(call(command="undo_edit", path="u.txt"))
        assert target.read_bytes() == expected
    assert "earlier edit(s)" in text
    assert "no edit of u.txt to undo" in error(call(command="undo_edit", path="u.txt"))
    assert target.read_bytes() == b"alpha\nbeta\ngamma\n"
    assert leftovers(workspace) == []


def test_undo_without_history_is_a_clear_error(call, workspace: Path) -> None:
    (workspace / "u.txt").write_text("x\n")
    text = error(call(command="undo_edit", path="u.txt"))
    assert "no edit" in text and "10" in text


def test_undo_of_create_removes_the_file_and_the_folders_made(call, workspace: Path) -> None:
    (workspace / "kept").mkdir()
    ok(call(command="create", path="kept/new/deeper/f.txt", file_text="x\n"))
    ok(call(command="str_replace", path="kept/new/deeper/f.txt", old_str="x", new_str="y"))
    ok(call(command="undo_edit", path="kept/new/deeper/f.txt"))
    assert (workspace / "kept/new/deeper/f.txt").read_text() == "x\n"
    assert "removed" in ok(call(command="undo_edit", path="kept/new/deeper/f.txt"))
    assert not (workspace / "kept" / "new").exists()
    assert (workspace / "kept").is_dir()


def test_undo_of_create_keeps_folders_that_gained_other_files(call, workspace: Path) -> None:
    ok(call(command="create", path="pkg/a.txt", file_text="a"))
    (workspace / "pkg" / "other.txt").write_text("someone else's")
    ok(call(command="undo_edit", path="pkg/a.txt"))
    assert not (workspace / "pkg" / "a.txt").exists()
    assert (workspace / "pkg" / "other.txt").read_text() == "someone else's"


def test_undo_refuses_to_drop_changes_made_by_others(call, workspace: Path) -> None:
    target = workspace / "u.txt"
    target.write_text("a\nb\n")
    ok(call(command="str_replace", path="u.txt", old_str="a", new_str="A"))
    target.write_text("A\nb\nadded by the user\n")
    text = error(call(command="undo_edit", path="u.txt"))
    assert "changed by something other than this editor" in text
    assert target.read_text() == "A\nb\nadded by the user\n"


def test_undo_of_a_file_deleted_since(call, workspace: Path) -> None:
    ok(call(command="create", path="gone.txt", file_text="x"))
    (workspace / "gone.txt").unlink()
    assert "no longer exists" in error(call(command="undo_edit", path="gone.txt"))
    assert "no edit" in error(call(command="undo_edit", path="gone.txt"))


def test_history_is_bounded_per_file(workspace: Path) -> None:
    tool = make_editor(workspace, undo_depth=2)
    target = workspace / "u.txt"
    target.write_text("0\n")
    try:
        for i in range(1, 5):
            ok(
                tool.call(
                    {
                        "command": "str_replace",
                        "path": "u.txt",
                        "old_str": f"{i - 1}",
                        "new_str": f"{i}",
                    }
                )
            )
        assert ok(tool.call({"command": "undo_edit", "path": "u.txt"}))
        assert ok(tool.call({"command": "undo_edit", "path": "u.txt"}))
        assert target.read_text() == "2\n"
        assert "no edit" in error(tool.call({"command": "undo_edit", "path": "u.txt"}))
        assert "last 2 edits" in error(tool.call({"command": "undo_edit", "path": "u.txt"}))
    finally:
        tool.close()


def test_history_holds_edits_not_copies(workspace: Path) -> None:
    """Undo steps keep the replaced text only: no copies of the file, in memory or on disk."""
    tool = make_editor(workspace)
    target = workspace / "big.txt"
    target.write_text("".join(f"line {i}\n" for i in range(100_000)))
    before = set(Path(workspace.parent).rglob("*"))
    try:
        for i in range(10):
            ok(
                tool.call(
                    {
                        "command": "str_replace",
                        "path": "big.txt",
                        "old_str": f"line {i}\n",
                        "new_str": f"L{i}\n",
                    }
                )
            )
        steps = tool.executor.history._steps[target.resolve()]
        assert len(steps) == 10
        assert all(len(step.removed) < 20 for step in steps)
        assert set(Path(workspace.parent).rglob("*")) == before
    finally:
        tool.close()


def test_undo_through_another_spelling_of_the_path(call, workspace: Path) -> None:
    (workspace / "d").mkdir()
    (workspace / "d" / "u.txt").write_text("a\n")
    ok(call(command="str_replace", path="d/u.txt", old_str="a", new_str="b"))
    ok(call(command="undo_edit", path=str(workspace / "d" / ".." / "d" / "u.txt")))
    assert (workspace / "d" / "u.txt").read_text() == "a\n"
