"""Find the fenced code blocks of the documentation, and match shown output.

The convention the docs follow: every fenced block either runs in CI
(``tests/test_docs_examples.py``) or has the word ``fragment`` in its info string
(```` ```python fragment ````), with the prose near it saying why. This module only
reads: it finds the pages, splits them into blocks and splits console blocks into
commands and the output each shows.
"""

from __future__ import annotations

import glob
import json
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The pages whose blocks are checked; new pages under docs/ are picked up by the glob.
PAGE_GLOBS = (
    "README.md",
    "docs/**/*.md",
    "cookiecutter-tool/README.md",
    "cookiecutter-tool/{{cookiecutter.project_slug}}/README.md",
)

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its info string and its text."""

    page: str
    """The page's path relative to the repository root."""
    line: int
    """The 1-based line of the opening fence."""
    info: str
    source: str

    @property
    def lang(self) -> str:
        """The block's language: the first word of the info string, lowercased."""
        words = self.info.split()
        return words[0].lower() if words else ""

    @property
    def fragment(self) -> bool:
        """Whether the block is marked as a fragment that is not run."""
        return "fragment" in self.info.split()

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[str]:
    """Every page whose blocks are checked, relative to the repository root."""
    found: set[str] = set()
    for pattern in PAGE_GLOBS:
        for path in glob.glob(glob.escape(str(ROOT)) + "/" + pattern, recursive=True):
            found.add(Path(path).relative_to(ROOT).as_posix())
    return sorted(found)


def blocks(page: str, text: str | None = None) -> list[Block]:
    """The fenced blocks of ``page`` (or of ``text``, read as that page), in order."""
    if text is None:
        text = (ROOT / page).read_text(encoding="utf-8")
    lines = text.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if not opened:
            i += 1
            continue
        indent, fence = len(opened["indent"]), opened["fence"]
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = i + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        body = [line[indent:] if line[:indent].isspace() else line for line in lines[i + 1 : end]]
        found.append(Block(page, i + 1, opened["info"].strip(), "\n".join(body) + "\n"))
        i = end + 1
    return found


@dataclass(frozen=True)
class Command:
    """A command of a console block, and the output the page shows for it (or None)."""

    text: str
    shown: str | None


def commands(block: Block) -> list[Command]:
    """Split a console block into commands.

    In a block that uses prompts (``$ command``), each prompt line is a command and
    the lines up to the next prompt are the output shown for it (None when there are
    none). In a block without prompts every line is a command and no output is shown.
    """
    lines = block.source.splitlines()
    if not any(line.startswith("$ ") for line in lines):
        return [Command(line, None) for line in lines if line.strip()]
    found: list[Command] = []
    for line in lines:
        if line.startswith("$ "):
            found.append(Command(line[2:], None))
        elif found:
            previous = found[-1]
            found[-1] = Command(previous.text, (previous.shown or "") + line + "\n")
    return [Command(c.text, c.shown if c.shown and c.shown.strip() else None) for c in found]


def output_matches(shown: str, actual: str) -> bool:
    """Whether ``actual`` output is what the page shows.

    Shown output that is JSON is compared as JSON (the page may lay it out otherwise).
    Else it is compared line by line, trailing spaces and blank lines at the ends
    ignored, where a line ``...`` stands for any number of lines (the page leaves them
    out) and ``...`` inside a line for any text (a path, a version).
    """
    try:
        return bool(json.loads(shown) == json.loads(actual))
    except ValueError:
        pass
    want = [line.rstrip() for line in shown.strip("\n").splitlines()]
    got = [line.rstrip() for line in actual.strip("\n").splitlines()]
    pattern = "".join(
        r"(?:.*\n)*?" if line == "..." else ".*".join(map(re.escape, line.split("..."))) + r"\n"
        for line in want
    )
    return re.fullmatch(pattern, "\n".join(got) + "\n") is not None
