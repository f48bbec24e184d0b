"""Writes are atomic: a write or rename that fails leaves the original intact and no temp file."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import error, leftovers, make_editor, ok


def test_failing_rename_leaves_the_original(
    call, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = workspace / "keep.txt"
    original = b"line one\nline two\n"
    target.write_bytes(original)

    def no_space(src: object, dst: object, **dir_fds: object) -> None:
        raise OSError(28, "No space left on device")

    # The one syscall a full disk would fail; everything before it runs for real.
    monkeypatch.setattr(os, "replace", no_space)
    text = error(call(command="str_replace", path="keep.txt", old_str="one", new_str="ONE"))
    assert "No space left on device" in text and "not changed" in text
    assert target.read_bytes() == original
    assert leftovers(workspace) == []
    monkeypatch.undo()
    assert "no edit" in error(call(command="undo_edit", path="keep.txt"))  # nothing recorded


def test_failing_create_leaves_no_file_and_no_folders(
    call, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_link(src: object, dst: object, **dir_fds: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "link", no_link)
    monkeypatch.setattr(os, "replace", no_link)
    error(call(command="create", path="new/dir/f.txt", file_text="x"))
    assert list(workspace.iterdir()) == []


def test_write_over_the_file_size_limit_fails_cleanly(workspace: Path) -> None:
    """A real failure mid-write: RLIMIT_FSIZE makes the kernel refuse the bytes (EFBIG)."""
    target = workspace / "data.txt"
    original = b"".join(b"row %05d\n" % i for i in range(2000))  # 20 KB
    target.write_bytes(original)
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        from pathlib import Path
        from toolplug import Tool, ToolContext
        from toolplug.testing import registry_from
        import toolplug_file_editor

        [tool] = registry_from(toolplug_file_editor).resolve(
            Tool("file_editor"), ToolContext(workspace=Path({str(workspace)!r}))
        )
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
        observation = tool.call(
            {{"command": "str_replace", "path": "data.txt",
              "old_str": "row 01000", "new_str": "ROW"}}
        )
        print(observation.is_error)
        print(observation.text)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("True\n"), result.stdout
    assert "File too large" in result.stdout and "not changed" in result.stdout
    assert target.read_bytes() == original
    assert leftovers(workspace) == []


def test_successful_writes_leave_no_temp_files(call, workspace: Path) -> None:
    ok(call(command="create", path="a.txt", file_text="1\n"))
    for i in range(1, 6):
        ok(call(command="str_replace", path="a.txt", old_str=f"{i}", new_str=f"{i + 1}"))
    ok(call(command="undo_edit", path="a.txt"))
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt"]


def test_files_over_the_size_limit_are_refused_with_the_limit(workspace: Path) -> None:
    target = workspace / "big.txt"
    target.write_bytes(b"x" * 5000 + b"\n")
    tool = make_editor(workspace, max_file_size=4096)
    try:
        text = error(
            tool.call({"command": "str_replace", "path": "big.txt", "old_str": "x", "new_str": "y"})
        )
        assert "4096 bytes" in text and "max_file_size" in text
        assert "view_range" in text
        grow = workspace / "small.txt"
        grow.write_text("a\n")
        text = error(
            tool.call(
                {
                    "command": "str_replace",
                    "path": "small.txt",
                    "old_str": "a",
                    "new_str": "b" * 5000,
                }
            )
        )
        assert "would be" in text and grow.read_text() == "a\n"
        error(tool.call({"command": "create", "path": "huge.txt", "file_text": "z" * 5000}))
        assert not (workspace / "huge.txt").exists()
        assert ok(tool.call({"command": "view", "path": "big.txt", "view_range": [1, 1]}))
    finally:
        tool.close()
