"""The grep tool on real trees, with each engine: modes, filters, paging, rules, errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import make_tree, write
from toolplug_grep.query import CUT_MARK, MAX_LINE

SOURCES = {
    "src/app.py": "import os\n\ndef main():\n    return os.getcwd()\n",
    "src/util.py": "def helper():\n    # TODO: tidy\n    return 1\n",
    "web/app.ts": "export function main() {}\n",
    "README.md": "# Demo\nRun main to start. TODO: docs\n",
}


def test_files_newest_first_then_by_path(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, SOURCES)  # app.py is the newest, README.md the oldest
    write(tmp_path, "b.txt", "main", age=100)
    write(tmp_path, "a.txt", "main", age=100)
    observation = make_tool(tmp_path).call({"pattern": "main"})

    assert not observation.is_error, observation.text
    assert observation.files == ["src/app.py", "web/app.ts", "README.md", "a.txt", "b.txt"]
    assert observation.total == 5
    assert observation.next_offset is None
    assert (
        observation.text.splitlines()[0] == "5 files match 'main' in the workspace, newest first:"
    )


def test_content_with_line_numbers_and_context(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, SOURCES)
    tool = make_tool(tmp_path)
    plain = tool.call({"pattern": "TODO", "output_mode": "content"})
    assert [(x.file, x.line, x.text) for x in plain.lines] == [
        ("README.md", 2, "Run main to start. TODO: docs"),
        ("src/util.py", 2, "    # TODO: tidy"),
    ]
    assert plain.text.splitlines()[1:] == [
        "README.md:2:Run main to start. TODO: docs",
        "src/util.py:2:    # TODO: tidy",
    ]
    around = tool.call(
        {"pattern": "def", "output_mode": "content", "path": "src", "before": 1, "after": 1}
    )
    assert around.text.splitlines()[1:] == [
        "src/app.py-2-",
        "src/app.py:3:def main():",
        "src/app.py-4-    return os.getcwd()",
        "--",
        "src/util.py:1:def helper():",
        "src/util.py-2-    # TODO: tidy",
    ]
    assert [x.is_match for x in around.lines] == [False, True, False, True, False]
    both = tool.call({"pattern": "tidy", "output_mode": "content", "context": 5})
    assert [x.line for x in both.lines] == [1, 2, 3]


def test_count_mode(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {**SOURCES, "src/many.py": "main\nmain main\nno\nmain\n"})
    observation = make_tool(tmp_path).call({"pattern": "main", "output_mode": "count"})

    assert [(c.file, c.count) for c in observation.counts] == [
        ("README.md", 1),
        ("src/app.py", 1),
        ("src/many.py", 3),
        ("web/app.ts", 1),
    ]
    assert observation.total == 4
    assert observation.text.splitlines()[0] == (
        "6 matching lines for 'main' in 4 files in the workspace, by path:"
    )


def test_case_glob_and_type_filters(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {**SOURCES, "src/deep/x.pyi": "MAIN = 1\n", "docs/a.py": "main\n"})
    tool = make_tool(tmp_path)
    assert set(tool.call({"pattern": "MAIN"}).files) == {"src/deep/x.pyi"}
    insensitive = tool.call({"pattern": "MAIN", "case_insensitive": True, "type": "py"})
    assert set(insensitive.files) == {"src/app.py", "src/deep/x.pyi", "docs/a.py"}
    assert set(tool.call({"pattern": "main", "glob": "*.{ts,md}"}).files) == {
        "web/app.ts",
        "README.md",
    }
    # A glob with a "/" matches paths below the searched directory.
    assert tool.call({"pattern": "main", "glob": "src/**/*.py"}).files == ["src/app.py"]
    assert tool.call({"pattern": "main", "glob": "*.py", "path": "docs"}).files == ["docs/a.py"]
    assert tool.call({"pattern": "main", "glob": "/*.py", "path": "docs"}).files == ["docs/a.py"]
    assert tool.call({"pattern": "main", "glob": "./src/*.py"}).files == ["src/app.py"]
    assert tool.call({"pattern": "MAIN", "glob": "**/deep/*", "type": "py"}).files == [
        "src/deep/x.pyi"
    ]


def test_multiline(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"a.rs": "struct A {\n    x: u8,\n}\nfn f() {}\n"})
    tool = make_tool(tmp_path)
    observation = tool.call(
        {"pattern": r"struct \w+ \{[^}]*\}", "multiline": True, "output_mode": "content"}
    )
    assert [(x.line, x.text) for x in observation.lines] == [
        (1, "struct A {"),
        (2, "    x: u8,"),
        (3, "}"),
    ]
    single = tool.call({"pattern": r"struct \w+ \{[^}]*\}", "output_mode": "content"})
    assert single.lines == []
    refused = tool.call({"pattern": r"A \{\n", "output_mode": "content"})
    assert refused.is_error and "multiline set to true" in refused.text


@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
def test_paging_with_limit_and_offset(tmp_path: Path, make_tool, mode: str) -> None:
    make_tree(tmp_path, {f"f{i:02}.txt": "hit\n" for i in range(7)})
    tool = make_tool(tmp_path)
    pages = []
    offset: int | None = 0
    while offset is not None:
        page = tool.call({"pattern": "hit", "output_mode": mode, "limit": 3, "offset": offset})
        assert not page.is_error, page.text
        items = page.files or [c.file for c in page.counts] or [x.file for x in page.lines]
        pages.append(items)
        if page.next_offset is not None:
            assert f"use offset={page.next_offset} for the next page" in page.text
        offset = page.next_offset
    assert [len(p) for p in pages] == [3, 3, 1]
    assert sorted(name for page in pages for name in page) == [f"f{i:02}.txt" for i in range(7)]
    first = tool.call({"pattern": "hit", "output_mode": mode, "limit": 3})
    if mode == "content":  # the search stopped at the page: the total is not known
        assert first.total is None and "(More not shown; use offset=3" in first.text
    else:
        assert first.total == 7 and "(4 more not shown; use offset=3" in first.text
    past = tool.call({"pattern": "hit", "output_mode": mode, "offset": 50})
    assert "No results from offset 50" in past.text or "No matches" in past.text


def test_ignore_files_hidden_and_switches(tmp_path: Path, make_tool) -> None:
    make_tree(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild/\n!keep.log\n",
            "sub/.ignore": "local.txt\n",
            "sub/.rgignore": "!local.txt\nsecret.txt\n",
            "a.log": "needle",
            "keep.log": "needle",
            "build/out.txt": "needle",
            "sub/local.txt": "needle",
            "sub/secret.txt": "needle",
            ".env": "needle",
            ".hidden/x.txt": "needle",
            "plain.txt": "needle",
        },
    )
    tool = make_tool(tmp_path)
    found = set(tool.call({"pattern": "needle"}).files)
    assert found == {"keep.log", "plain.txt", "sub/local.txt"}
    assert set(tool.call({"pattern": "needle", "no_ignore": True}).files) == found | {
        "a.log",
        "build/out.txt",
        "sub/secret.txt",
    }
    assert set(tool.call({"pattern": "needle", "include_hidden": True}).files) == found | {
        ".env",
        ".hidden/x.txt",
    }
    # A directory named as the path is searched even though a rule above ignores it.
    assert tool.call({"pattern": "needle", "path": "build"}).files == ["build/out.txt"]
    empty = tool.call({"pattern": "nothing here"})
    assert "Hidden and git-ignored files were not searched" in empty.text
    assert "set include_hidden or no_ignore to search them" in empty.text


def test_parent_rules_apply_as_git_reads_them_below_the_root(tmp_path: Path, make_tool) -> None:
    """The root's anchored `src/*.txt` ignores `src/x.txt` only, not `src/src/d.txt`:
    ripgrep alone gets this wrong when it searches `src` (see rules.py)."""
    make_tree(
        tmp_path,
        {
            ".gitignore": "src/*.txt\n/top.md\nsrc/gen/\n",
            "src/src/d.txt": "hit",
            "src/x.txt": "hit",
            "src/top.md": "hit",
            "src/gen/made.py": "hit",
            "top.md": "hit",
        },
    )
    tool = make_tool(tmp_path)
    assert set(tool.call({"pattern": "hit", "path": "src"}).files) == {
        "src/src/d.txt",
        "src/top.md",
    }
    assert set(tool.call({"pattern": "hit"}).files) == {"src/src/d.txt", "src/top.md"}
    counted = tool.call({"pattern": "hit", "path": "src", "output_mode": "count"})
    assert [c.file for c in counted.counts] == ["src/src/d.txt", "src/top.md"]


def test_binary_files_are_skipped(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {"text.txt": "needle\n"})
    (tmp_path / "blob.bin").write_bytes(b"needle\0\x01\x02")
    tool = make_tool(tmp_path)
    assert tool.call({"pattern": "needle"}).files == ["text.txt"]
    named = tool.call({"pattern": "needle", "path": "blob.bin"})
    assert not named.is_error and "binary file" in named.text and named.total == 0


def test_a_file_as_the_path_is_searched_whatever_its_name(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {".gitignore": "*.log\n", "x.log": "one\ntwo\n"})
    observation = make_tool(tmp_path).call(
        {"pattern": "two", "path": "x.log", "output_mode": "content", "type": "py", "glob": "*.md"}
    )
    assert [(x.file, x.line) for x in observation.lines] == [("x.log", 2)]


def test_symbolic_links_are_not_followed_and_paths_stay_inside(tmp_path: Path, make_tool) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.txt", "needle")
    workspace = tmp_path / "ws"
    write(workspace, "inside.txt", "needle")
    (workspace / "link_dir").symlink_to(outside)
    (workspace / "link_file.txt").symlink_to(outside / "secret.txt")
    (workspace / "inner").symlink_to(workspace / "inside.txt")
    tool = make_tool(workspace)
    assert tool.call({"pattern": "needle"}).files == ["inside.txt"]
    for path in ("link_dir", "link_file.txt", "../outside", str(outside), "/"):
        refused = tool.call({"pattern": "needle", "path": path})
        assert refused.is_error, path
        assert "outside the workspace" in refused.text
    # A link whose target is inside is searched as its target.
    assert tool.call({"pattern": "needle", "path": "inner"}).files == ["inside.txt"]


def test_long_lines_are_cut_with_a_marker(tmp_path: Path, make_tool) -> None:
    long = "x" * 3000 + " needle " + "y" * 3000
    wide = "é" * 5000 + " needle"
    make_tree(tmp_path, {"min.js": f"short needle\n{long}\n{wide}\n"})
    observation = make_tool(tmp_path).call({"pattern": "needle", "output_mode": "content"})
    texts = [x.text for x in observation.lines]
    assert texts[0] == "short needle"
    assert texts[1] == "x" * MAX_LINE + CUT_MARK
    assert texts[2] == "é" * MAX_LINE + CUT_MARK


def test_a_pattern_matching_everything_returns_one_page(tmp_path: Path, make_tool) -> None:
    """A huge answer is cut to the page: the engine stops (ripgrep is killed) after it."""
    with open(tmp_path / "big.txt", "w") as f:
        f.write("line\n" * 500_000)
    observation = make_tool(tmp_path).call({"pattern": "", "output_mode": "content"})
    # An empty pattern is refused by the schema; "^" matches every line.
    assert observation.is_error
    page = make_tool(tmp_path).call({"pattern": "^", "output_mode": "content", "limit": 5})
    assert [x.line for x in page.lines] == [1, 2, 3, 4, 5]
    assert page.total is None and page.next_offset == 5
    assert _children_named("rg") == []  # stopped and reaped, not left running


def _children_named(name: str) -> list[int]:
    """This process's child processes with that command name (Linux's /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/comm") as f:
                comm = f.read().strip()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid() and comm == name:
            found.append(int(entry))
    return found


def test_names_that_are_not_utf8_are_shown_escaped(tmp_path: Path, make_tool) -> None:
    with open(os.fsencode(tmp_path) + b"/caf\xe9.txt", "wb") as f:
        f.write(b"needle \xff\n")
    tool = make_tool(tmp_path)
    assert tool.call({"pattern": "needle"}).files == ["caf\\xe9.txt"]
    [line] = tool.call({"pattern": "needle", "output_mode": "content"}).lines
    assert line.file == "caf\\xe9.txt" and line.text == "needle \ufffd"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"pattern": "foo(", "output_mode": "content"}, "'foo(' cannot be searched: "),
        ({"pattern": "x", "type": "pyy"}, "'pyy' is not a known file type. Close ones: py"),
        ({"pattern": "x", "path": "nope"}, "The path 'nope' does not exist"),
        ({"pattern": "x", "path": "src/*.py"}, "to pick files by name, use glob"),
        ({"pattern": "x", "context": 2}, "need output_mode 'content'"),
        ({"pattern": "x", "glob": "src/[a"}, "is never closed"),
        ({"pattern": "x", "limit": 0}, "limit"),
        ({"pattern": r"\w{1000}{1000}", "output_mode": "count"}, "cannot be searched: "),
        ({"pattern": "x", "output_mode": "lines"}, "output_mode"),
    ],
)
def test_errors_say_what_to_change(tmp_path: Path, make_tool, arguments, expected) -> None:
    make_tree(tmp_path, SOURCES)
    observation = make_tool(tmp_path).call(arguments)
    assert observation.is_error
    assert expected in observation.text


def test_regex_errors_point_into_the_pattern(tmp_path: Path, make_tool, engine: str) -> None:
    make_tree(tmp_path, SOURCES)
    observation = make_tool(tmp_path).call({"pattern": "ab[c", "output_mode": "content"})
    assert observation.is_error
    assert "at character 3" in observation.text
    if engine == "ripgrep":  # ripgrep's own words
        assert "unclosed character class" in observation.text


def test_a_search_past_its_timeout_is_stopped(tmp_path: Path, make_tool) -> None:
    make_tree(tmp_path, {f"d{i % 30}/f{i}.txt": "needle\n" * 50 for i in range(3000)})
    observation = make_tool(tmp_path, timeout=0.001).call({"pattern": "needle"})
    assert observation.is_error
    assert "took longer than 0.001 seconds and was stopped" in observation.text


def test_bad_params(tmp_path: Path, make_tool) -> None:
    with pytest.raises(Exception, match="default_limit"):
        make_tool(tmp_path, default_limit=0)
    with pytest.raises(Exception, match="timeout"):
        make_tool(tmp_path, timeout=-1)
    with pytest.raises(Exception, match="engine"):
        make_tool(tmp_path, engine="sed")
