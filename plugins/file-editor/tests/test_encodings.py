"""Encodings, byte order marks, line endings and trailing newlines survive edits byte for byte."""

from __future__ import annotations

import codecs
from pathlib import Path

from conftest import error, ok


def test_crlf_file_edited_and_preserved_byte_for_byte(call, workspace: Path) -> None:
    original = b"first\r\nsecond line\r\nthird\r\nfourth\r\n"
    target = workspace / "dos.txt"
    target.write_bytes(original)
    # The model writes plain \n, as it sees the file in view.
    ok(
        call(
            command="str_replace",
            path="dos.txt",
            old_str="second line\nthird",
            new_str="2nd\nand 3rd",
        )
    )
    assert target.read_bytes() == b"first\r\n2nd\r\nand 3rd\r\nfourth\r\n"
    ok(call(command="insert", path="dos.txt", insert_line=1, new_str="inserted\nlines"))
    assert target.read_bytes() == b"first\r\ninserted\r\nlines\r\n2nd\r\nand 3rd\r\nfourth\r\n"
    ok(call(command="undo_edit", path="dos.txt"))
    ok(call(command="undo_edit", path="dos.txt"))
    assert target.read_bytes() == original


def test_mixed_line_endings_outside_the_edit_are_untouched(call, workspace: Path) -> None:
    original = b"a\r\nb\nc\r\nd\n"
    target = workspace / "mixed.txt"
    target.write_bytes(original)
    ok(call(command="str_replace", path="mixed.txt", old_str="c", new_str="C"))
    assert target.read_bytes() == b"a\r\nb\nC\r\nd\n"


def test_utf8_bom_is_kept(call, workspace: Path) -> None:
    target = workspace / "bom.cs"
    target.write_bytes(codecs.BOM_UTF8 + "// héllo\r\nclass A {}\r\n".encode())
    text = ok(call(command="view", path="bom.cs"))
    assert text.startswith("     1\t// héllo")  # the BOM is not shown as text
    ok(call(command="str_replace", path="bom.cs", old_str="class A", new_str="class Ä"))
    assert target.read_bytes() == codecs.BOM_UTF8 + "// héllo\r\nclass Ä {}\r\n".encode()


def test_utf16_with_bom_round_trips(call, workspace: Path) -> None:
    target = workspace / "wide.txt"
    target.write_bytes(codecs.BOM_UTF16_LE + "één\r\ntwee\r\n".encode("utf-16-le"))
    assert "     2\ttwee" in ok(call(command="view", path="wide.txt"))
    ok(call(command="str_replace", path="wide.txt", old_str="twee", new_str="drie"))
    assert target.read_bytes() == codecs.BOM_UTF16_LE + "één\r\ndrie\r\n".encode("utf-16-le")


def test_legacy_encoding_falls_back_and_keeps_bytes(call, workspace: Path) -> None:
    original = "café = 'naïve'\nprice = '€5'\n".encode("cp1252")
    target = workspace / "old.py"
    target.write_bytes(original)
    text = ok(call(command="view", path="old.py"))
    assert "café" in text and "€5" in text and "cp1252" in text
    ok(call(command="str_replace", path="old.py", old_str="€5", new_str="€6"))
    assert target.read_bytes() == original.replace("€5".encode("cp1252"), "€6".encode("cp1252"))
    refused = error(call(command="str_replace", path="old.py", old_str="café", new_str="カフェ"))
    assert "cannot be written" in refused and "cp1252" in refused


def test_invalid_utf8_late_in_a_file_is_still_viewed(call, workspace: Path) -> None:
    target = workspace / "late.txt"
    target.write_bytes(b"plain ascii\n" * 2000 + b"caf\xe9\n")
    text = ok(call(command="view", path="late.txt", view_range=[2000, -1]))
    assert "  2001\tcafé" in text


def test_missing_trailing_newline_stays_missing(call, workspace: Path) -> None:
    target = workspace / "nonl.txt"
    target.write_bytes(b"one\ntwo")
    ok(call(command="str_replace", path="nonl.txt", old_str="one", new_str="uno"))
    assert target.read_bytes() == b"uno\ntwo"
    ok(call(command="str_replace", path="nonl.txt", old_str="two", new_str="dos"))
    assert target.read_bytes() == b"uno\ndos"


def test_unicode_text_is_edited_exactly(call, workspace: Path) -> None:
    target = workspace / "u.md"
    target.write_text("# Überschrift 🚀\n\nemoji 👍🏽 here\n", encoding="utf-8")
    ok(call(command="str_replace", path="u.md", old_str="👍🏽", new_str="✅"))
    assert target.read_text(encoding="utf-8") == "# Überschrift 🚀\n\nemoji ✅ here\n"
