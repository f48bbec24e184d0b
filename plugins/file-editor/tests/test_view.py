"""`view`: numbered lines, ranges, cuts, directories, images, and what it refuses."""

from __future__ import annotations

import base64
import os
import re
import struct
import zlib
from pathlib import Path

from conftest import error, make_editor, ok
from toolplug import ImageContent
from toolplug.formats import render
from toolplug.testing import validate_observation_exports


def numbers(text: str) -> list[int]:
    """The line numbers a view printed."""
    return [int(m.group(1)) for m in re.finditer(r"^ *(\d+)\t", text, re.MULTILINE)]


def tiny_png() -> bytes:
    """A real 1x1 PNG, built by hand."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_view_numbers_lines_like_cat_n(call, workspace: Path) -> None:
    (workspace / "a.py").write_text("import os\n\nprint(os.getcwd())\n")
    text = ok(call(command="view", path="a.py"))
    assert text == "     1\timport os\n     2\t\n     3\tprint(os.getcwd())"


def test_view_range_and_to_the_end(call, workspace: Path) -> None:
    (workspace / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    text = ok(call(command="view", path="n.txt", view_range=[5, 7]))
    assert numbers(text) == [5, 6, 7]
    assert "\tline 5\n" in text and "line 8" not in text
    assert numbers(ok(call(command="view", path="n.txt", view_range=[18, -1]))) == [18, 19, 20]


def test_view_range_past_the_end_is_clamped_with_a_note(call, workspace: Path) -> None:
    (workspace / "n.txt").write_text("a\nb\nc\n")
    text = ok(call(command="view", path="n.txt", view_range=[2, 50]))
    assert numbers(text) == [2, 3]
    assert "ends at line 3" in text


def test_bad_view_ranges_say_what_is_valid(call, workspace: Path) -> None:
    (workspace / "n.txt").write_text("a\nb\nc\n")
    assert "has only 3 line(s)" in error(call(command="view", path="n.txt", view_range=[9, 12]))
    assert "numbered from 1" in error(call(command="view", path="n.txt", view_range=[0, 2]))
    assert "ends before it starts" in error(call(command="view", path="n.txt", view_range=[3, 2]))
    assert "view_range" in error(call(command="view", path="n.txt", view_range=[1]))


def test_long_file_is_cut_and_numbers_stay_right(workspace: Path) -> None:
    lines = [f"row {i:05d} " + "x" * (i % 37) for i in range(1, 5001)]
    (workspace / "long.txt").write_text("\n".join(lines) + "\n")
    tool = make_editor(workspace, max_view_chars=2000)
    try:
        text = ok(tool.call({"command": "view", "path": "long.txt", "view_range": [100, -1]}))
    finally:
        tool.close()
    shown = numbers(text)
    assert shown[0] == 100 and len(shown) > 10
    assert shown == list(range(100, 100 + len(shown)))
    for number, line in zip(shown, text.splitlines()):
        assert line.split("\t", 1)[1] == lines[number - 1]  # each number matches its line
    last = shown[-1]
    assert f"cut after line {last} of 5000" in text
    assert f"[{last + 1}, " in text  # how to see the rest
    assert len(text) < 2600


def test_long_lines_are_cut_with_their_length(workspace: Path) -> None:
    long_line = "y" * 50_000
    (workspace / "min.js").write_text(f"start\n{long_line}\nend\n")
    tool = make_editor(workspace, max_view_chars=4000)
    try:
        text = ok(tool.call({"command": "view", "path": "min.js"}))
    finally:
        tool.close()
    assert numbers(text) == [1, 2, 3]
    assert "\tend" in text
    assert "[... 49500 more characters]" in text
    assert "cut" in text.splitlines()[-1]


def test_crlf_lines_are_shown_without_carriage_returns(call, workspace: Path) -> None:
    (workspace / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    assert ok(call(command="view", path="w.txt")) == "     1\tone\n     2\ttwo"


def test_empty_file(call, workspace: Path) -> None:
    (workspace / "e.txt").write_bytes(b"")
    assert "empty" in ok(call(command="view", path="e.txt"))


def test_directory_two_levels_without_hidden(call, workspace: Path) -> None:
    for name in ("src/pkg/deep/deeper.py", "src/pkg/mod.py", "src/top.py", "README.md"):
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("x\n")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("x\n")
    (workspace / "src" / ".hidden.py").write_text("x\n")
    text = ok(call(command="view", path="."))
    listed = text.splitlines()[1:]
    assert listed == ["./", "./README.md", "./src/", "./src/pkg/", "./src/top.py"]
    sub = ok(call(command="view", path="src"))
    assert "src/pkg/mod.py" in sub and "src/pkg/deep/" in sub and "deeper.py" not in sub


def test_directory_listing_is_bounded(workspace: Path) -> None:
    for i in range(400):
        (workspace / f"file_{i:03d}.txt").write_text("")
    tool = make_editor(workspace, max_view_chars=1000)
    try:
        text = ok(tool.call({"command": "view", "path": "."}))
    finally:
        tool.close()
    assert "more entries not shown" in text
    assert len(text) < 1300


def test_image_comes_back_as_image_content(call, workspace: Path) -> None:
    png = tiny_png()
    (workspace / "dot.png").write_bytes(png)
    observation = call(command="view", path="dot.png")
    assert not observation.is_error, observation.text
    [image] = [b for b in observation.content if isinstance(b, ImageContent)]
    assert image.mimeType == "image/png"
    assert base64.b64decode(image.data) == png
    validate_observation_exports(observation)
    assert render(observation, "anthropic", "t1")["content"][1]["type"] == "image"


def test_images_by_content_not_name(call, workspace: Path) -> None:
    (workspace / "photo").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 64)
    (workspace / "anim.gif").write_bytes(b"GIF89a" + b"\x00" * 64)
    (workspace / "pic.webp").write_bytes(b"RIFF\x20\x00\x00\x00WEBPVP8 " + b"\x00" * 64)
    for name, mime in (
        ("photo", "image/jpeg"),
        ("anim.gif", "image/gif"),
        ("pic.webp", "image/webp"),
    ):
        observation = call(command="view", path=name)
        assert [b.mimeType for b in observation.content if isinstance(b, ImageContent)] == [mime]
    assert "image" in error(call(command="str_replace", path="photo", old_str="a", new_str="b"))


def test_binary_files_are_refused(call, workspace: Path) -> None:
    (workspace / "blob.bin").write_bytes(b"ELF\x00\x01\x02text")
    assert "binary" in error(call(command="view", path="blob.bin"))
    assert "binary" in error(
        call(command="str_replace", path="blob.bin", old_str="text", new_str="x")
    )
    assert (workspace / "blob.bin").read_bytes() == b"ELF\x00\x01\x02text"


def test_missing_file_suggests_near_names(call, workspace: Path) -> None:
    (workspace / "config.yaml").write_text("a: 1\n")
    text = error(call(command="view", path="config.yml"))
    assert "does not exist" in text and "config.yaml" in text and "create" in text


def test_a_pipe_is_refused_without_hanging(call, workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")
    assert "not a regular file" in error(call(command="view", path="pipe"))


def test_view_range_on_a_directory_is_an_error(call, workspace: Path) -> None:
    assert "directory" in error(call(command="view", path=".", view_range=[1, 2]))


def test_view_of_a_huge_file_streams(workspace: Path) -> None:
    """A range near the start of a 40 MB file is read without loading the file."""
    import tracemalloc

    block = "".join(f"{i:08d} the quick brown fox jumps over the lazy dog\n" for i in range(20000))
    with open(workspace / "huge.log", "w") as handle:
        for _ in range(40):
            handle.write(block)
    tool = make_editor(workspace, max_file_size=1_000_000)
    try:
        tracemalloc.start()
        try:
            observation = tool.call(
                {"command": "view", "path": "huge.log", "view_range": [300, 399]}
            )
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        text = ok(observation)
        assert numbers(text) == list(range(300, 400))
        assert "\t00000299 the quick" in text
        assert peak < 2_000_000, f"viewing 100 lines allocated {peak} bytes"
        whole = ok(tool.call({"command": "view", "path": "huge.log"}))
        # Too big to count its lines cheaply: the note says where it stopped, not "of N".
        assert re.search(r"cut after line \d+ to stay within", whole), whole[-300:]
    finally:
        tool.close()


def test_far_ranges_are_found_exactly(call, workspace: Path) -> None:
    """Skipping to a range crosses many read blocks; every number must still match."""
    (workspace / "far.txt").write_text("".join(f"row {i}\n" for i in range(1, 30001)))
    text = ok(call(command="view", path="far.txt", view_range=[20000, 20002]))
    assert text == " 20000\trow 20000\n 20001\trow 20001\n 20002\trow 20002"
    assert "\trow 30000" in ok(call(command="view", path="far.txt", view_range=[30000, -1]))


def test_last_line_without_newline_is_shown(call, workspace: Path) -> None:
    (workspace / "nonl.txt").write_bytes(b"one\ntwo")
    assert ok(call(command="view", path="nonl.txt")) == "     1\tone\n     2\ttwo"
