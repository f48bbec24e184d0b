"""Benchmark of apply_patch (toolplug-file-editor) against file_editor's own str_replace.

Run: python bench/bench_apply_patch.py   (with toolplug-file-editor installed)

Target (issue 30): a patch of three hunks to a 1 MB file within 1.5x of file_editor's
`str_replace` making the same three edits (three calls). Both are full tool calls on
real files with the same durable writes; every run is a real edit (each flips three
unique lines, and the next flips them back). One (info) line follows: the same patch
against plain Python reading the file, replacing the three lines and writing it back
(no fsync, no checks), for scale. Every figure is the median of alternated runs; the
temporary files are removed at the end.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import timing
from timing import interleaved

REPEATS = 31
FILE_BYTES = 1_000_000
TEXT = "some ordinary source text here"


def make_tools(workspace: Path) -> tuple[Any, Any]:
    """apply_patch and file_editor as a host loads them: one session, one context."""
    from toolplug import Tool, ToolContext, ToolRegistry

    registry = ToolRegistry.from_plugins(["file_editor"])
    context = ToolContext(workspace=workspace)
    [patcher] = registry.resolve(Tool("apply_patch"), context)
    [editor] = registry.resolve(Tool("file_editor"), context)
    return patcher, editor


def write_file(path: Path) -> list[str]:
    """A 1 MB file of numbered lines; the three lines the edits flip (at 1/4, 1/2, 3/4)."""
    line_bytes = len(f"0000000 {TEXT}\n")
    count = FILE_BYTES // line_bytes
    path.write_text("".join(f"{i:07d} {TEXT}\n" for i in range(count)))
    return [f"{count * quarter // 4:07d}" for quarter in (1, 2, 3)]


def flipping(
    run: Callable[[list[tuple[str, str]]], object], marks: list[str]
) -> Callable[[], object]:
    """A run of ``run`` that flips the three marked lines, and back on the next call."""
    state = {"flip": False}

    def once() -> object:
        pairs = [(f"{mark} {TEXT}", f"{mark} {TEXT.upper()}") for mark in marks]
        if state["flip"]:
            pairs = [(new, old) for old, new in pairs]
        state["flip"] = not state["flip"]
        return run(pairs)

    return once


def main() -> int:
    workspace = Path(tempfile.mkdtemp(prefix="bench-apply-patch-"))
    patcher, editor = make_tools(workspace)
    try:
        marks = write_file(workspace / "patched.txt")
        shutil.copyfile(workspace / "patched.txt", workspace / "replaced.txt")
        shutil.copyfile(workspace / "patched.txt", workspace / "plain.txt")

        def patch(pairs: list[tuple[str, str]]) -> object:
            hunks = []
            for old, new in pairs:
                hunks += ["@@", f"-{old}", f"+{new}"]
            text = "\n".join(["*** Begin Patch", "*** Update File: patched.txt", *hunks])
            observation = patcher.call({"input": text + "\n*** End Patch\n"})
            assert not observation.is_error, observation.text
            return observation

        def replace(pairs: list[tuple[str, str]]) -> object:
            for old, new in pairs:
                observation = editor.call(
                    {
                        "command": "str_replace",
                        "path": "replaced.txt",
                        "old_str": old,
                        "new_str": new,
                    }
                )
                assert not observation.is_error, observation.text
            return None

        def plain(pairs: list[tuple[str, str]]) -> object:
            path = workspace / "plain.txt"
            content = path.read_text()
            for old, new in pairs:
                content = content.replace(old, new, 1)
            return path.write_text(content)

        runs = {
            "apply_patch": flipping(patch, marks),
            "str_replace": flipping(replace, marks),
            "plain": flipping(plain, marks),
        }
        for run in runs.values():  # a warm-up, and back: every run then starts the same
            run()
            run()
        times = interleaved(runs, REPEATS)
        size = f"{(workspace / 'patched.txt').stat().st_size / 1e6:.1f} MB"
        passed = timing.report(
            "apply_patch",
            f"3-hunk patch to {size} vs 3 str_replace calls",
            times["apply_patch"],
            times["str_replace"],
            1.5,
        )
        timing.report(
            "apply_patch",
            f"3-hunk patch to {size} vs plain Python read/replace/write",
            times["apply_patch"],
            times["plain"],
        )
        # Each ran as often, so the three files must be alike: the edits all landed.
        flipped = {
            name: (workspace / name).read_text().count(TEXT.upper())
            for name in ("patched.txt", "replaced.txt", "plain.txt")
        }
        assert len(set(flipped.values())) == 1 and set(flipped.values()) <= {0, 3}, flipped
        timing.save("bench_apply_patch")
    finally:
        patcher.close()
        editor.close()
        shutil.rmtree(workspace, ignore_errors=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
