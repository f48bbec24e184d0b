"""The grep tool's types: its action, its observation, and the description a model reads."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from toolplug import Action, Observation

#: The most results (files, counts or lines) one call may ask for.
MAX_LIMIT = 2_000
#: The largest offset: past it, a narrower search is the way on.
MAX_OFFSET = 1_000_000
#: The most context lines asked for on either side of a match.
MAX_CONTEXT = 50

OutputMode = Literal["files_with_matches", "content", "count"]

DESCRIPTION = """\
Search the contents of files with a regular expression (ripgrep). Fast on large trees.

- `pattern` is a regex in ripgrep's syntax: `def main`, `log.*Error`, `fn\\s+\\w+`, \
`import (os|sys)`. Escape special characters to find them literally: `foo\\(`, \
`interface\\{\\}`, `a\\.b`.
- `output_mode`: `files_with_matches` (default) lists the files that contain a \
match, most recently modified first; `content` shows the matching lines as \
`path:line:text` (add `before`/`after`/`context` for lines around them); `count` \
gives the number of matching lines per file.
- Narrow with `path` (a directory or file in the workspace), `glob` (`*.py`, \
`src/**/*.{ts,tsx}`) or `type` (`py`, `js`, `rust`, `go`...).
- Files ignored by git (`.gitignore`, `.ignore`, `.rgignore`), hidden files and \
binary files are skipped; set `include_hidden` or `no_ignore` to search them too.
- `multiline` lets a pattern span lines (`struct \\w+ \\{[^}]*\\}`); \
`case_insensitive` ignores case.
- Results come in pages of `limit`; a note says when there are more and which \
`offset` gives the next page. Long lines are cut.
- To find files by name rather than content, use a glob tool."""


class GrepAction(Action):
    """Arguments of the grep tool."""

    pattern: str = Field(
        min_length=1,
        description="Regular expression to search for (ripgrep syntax), such as "
        "'def \\w+_test' or 'TODO|FIXME'. Escape special characters to match them literally.",
    )
    path: str | None = Field(
        default=None,
        description="File or directory to search, relative to the workspace. Omit it to "
        "search the whole workspace.",
    )
    glob: str | None = Field(
        default=None,
        description="Only search files matching this glob: without a '/', it matches file "
        "names ('*.py', '*.{ts,tsx}'); with one, paths below the searched directory "
        "('src/**/*.ts').",
    )
    type: str | None = Field(
        default=None,
        description="Only search files of this ripgrep type, such as 'py', 'js', 'ts', "
        "'rust', 'go', 'java', 'md'. Often quicker to write than a glob.",
    )
    case_insensitive: bool = Field(default=False, description="Ignore case when matching.")
    output_mode: OutputMode = Field(
        default="files_with_matches",
        description="'files_with_matches' (default): the files with a match, newest first. "
        "'content': the matching lines with their line numbers. 'count': matching lines "
        "per file.",
    )
    before: int | None = Field(
        default=None,
        ge=0,
        le=MAX_CONTEXT,
        description="Content mode only: lines to show before each match.",
    )
    after: int | None = Field(
        default=None,
        ge=0,
        le=MAX_CONTEXT,
        description="Content mode only: lines to show after each match.",
    )
    context: int | None = Field(
        default=None,
        ge=0,
        le=MAX_CONTEXT,
        description="Content mode only: lines to show before and after each match (before "
        "and after, when given, win).",
    )
    multiline: bool = Field(
        default=False,
        description="Let the pattern match across lines ('\\n' in it); '.' still stops at "
        "the end of a line unless the pattern starts with '(?s)'.",
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        le=MAX_LIMIT,
        description="Most results to return: files, counts or lines. Omit it for the "
        "tool's default (usually 100).",
    )
    offset: int = Field(
        default=0,
        ge=0,
        le=MAX_OFFSET,
        description="Results to skip, to get the next page (a note gives the value).",
    )
    include_hidden: bool = Field(
        default=False, description="Also search hidden files and directories (names with a '.')."
    )
    no_ignore: bool = Field(
        default=False,
        description="Also search files that .gitignore, .ignore or .rgignore exclude.",
    )


class GrepLine(BaseModel):
    """One line of content output: a matching line, or a context line around one."""

    file: str = Field(description="The file, relative to the workspace.")
    line: int = Field(description="The line number, from 1.")
    text: str = Field(description="The line, without its newline (cut when very long).")
    is_match: bool = Field(default=True, description="False for a context line.")


class GrepCount(BaseModel):
    """How many lines of one file match."""

    file: str = Field(description="The file, relative to the workspace.")
    count: int = Field(description="Matching lines in it (matches, in multiline mode).")


class GrepObservation(Observation):
    """What a grep call found: one page of files, counts or lines."""

    mode: OutputMode = Field(default="files_with_matches", description="The output mode.")
    files: list[str] = Field(
        default_factory=list,
        description="files_with_matches: the files of this page, newest first, relative "
        "to the workspace.",
    )
    counts: list[GrepCount] = Field(
        default_factory=list, description="count: this page's files and their counts."
    )
    lines: list[GrepLine] = Field(
        default_factory=list, description="content: this page's lines, by file and line."
    )
    total: int | None = Field(
        default=None,
        description="How many results there are in all (files, or lines in content mode); "
        "None when the search stopped after this page and the total is unknown.",
    )
    next_offset: int | None = Field(
        default=None, description="The offset of the next page, or None when this is the last."
    )
    search_path: str = Field(default="", description="The file or directory searched (absolute).")
