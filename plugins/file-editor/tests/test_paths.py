"""Paths: relative to the workspace, and refused outside it unless the host allows it."""

from __future__ import annotations

from pathlib import Path

from conftest import error, make_editor, ok


def test_relative_and_absolute_paths_inside_the_workspace(call, workspace: Path) -> None:
    (workspace / "in.txt").write_text("inside\n")
    assert "inside" in ok(call(command="view", path="in.txt"))
    assert "inside" in ok(call(command="view", path=str(workspace / "in.txt")))
    assert "inside" in ok(call(command="view", path="./sub/../in.txt"))


def test_dot_dot_out_of_the_workspace_is_refused(call, workspace: Path) -> None:
    (workspace.parent / "secret.txt").write_text("secret\n")
    text = error(call(command="view", path="../secret.txt"))
    assert "outside the workspace" in text and "secret\n" not in text
    error(call(command="create", path="../new.txt", file_text="x"))
    assert not (workspace.parent / "new.txt").exists()


def test_absolute_path_outside_is_refused(call, workspace: Path) -> None:
    outside = workspace.parent / "abs.txt"
    outside.write_text("abs\n")
    assert "outside the workspace" in error(
        call(command="str_replace", path=str(outside), old_str="abs", new_str="x")
    )
    assert outside.read_text() == "abs\n"


def test_symlink_pointing_outside_is_refused(call, workspace: Path) -> None:
    outside = workspace.parent / "target.txt"
    outside.write_text("outside\n")
    (workspace / "sneaky.txt").symlink_to(outside)
    (workspace / "door").symlink_to(workspace.parent)
    text = error(call(command="view", path="sneaky.txt"))
    assert "outside the workspace" in text and "leads to" in text
    error(call(command="str_replace", path="sneaky.txt", old_str="outside", new_str="pwned"))
    error(call(command="create", path="door/planted.txt", file_text="x"))
    assert outside.read_text() == "outside\n"
    assert not (workspace.parent / "planted.txt").exists()


def test_home_shorthand_is_checked_too(call) -> None:
    assert "outside the workspace" in error(call(command="view", path="~"))


def test_the_host_may_allow_outside_paths(workspace: Path) -> None:
    outside = workspace.parent / "shared.txt"
    outside.write_text("shared\n")
    tool = make_editor(workspace, allow_outside_workspace=True)
    try:
        ok(
            tool.call(
                {
                    "command": "str_replace",
                    "path": "../shared.txt",
                    "old_str": "shared",
                    "new_str": "edited",
                }
            )
        )
        assert outside.read_text() == "edited\n"
        ok(tool.call({"command": "undo_edit", "path": str(outside)}))
        assert outside.read_text() == "shared\n"
    finally:
        tool.close()


def test_empty_and_nul_paths(call) -> None:
    assert "empty" in error(call(command="view", path=""))
    assert "NUL" in error(call(command="view", path="a\x00b"))
