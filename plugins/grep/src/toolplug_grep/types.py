"""The grep tool's types: its action, its observation, and the description a model reads."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema
from toolplug import Action, Observation

#: The most results (files, counts or lines) one call may ask for.
MAX_LIMIT = 2_000
#: The largest offset: past it, a narrower search is the way on.
MAX_OFFSET = 1_000_000
#: The most context lines asked for on either side of a match.
MAX_CONTEXT = 50

OutputMode = Literal["files_with_matches", "content", "count"]

DESCRIPTION = """\
Search file contents with a regular expression (ripgrep).

- Git-ignored, hidden and binary files are skipped unless `no_ignore` or \
`include_hidden` is set.
- Results come in pages of `limit`; a note gives the `offset` of the next page. Long \
lines are cut.
- To find files by name, use a glob tool."""


class GrepAction(Action):
    """Arguments of the grep tool."""

    pattern: str = Field(
        min_length=1,
        description="ripgrep regex, such as 'def \\w+_test' or 'TODO|FIXME'; escape "
        "special characters to match them literally: 'foo\\(', 'a\\.b'.",
    )
    path: str | None = Field(
        default=None, description="File or directory to search (default: the workspace)."
    )
    glob: str | None = Field(
        default=None,
        description="Only files matching this glob: without a '/' it matches names ('*.py', "
        "'*.{ts,tsx}'), with one paths below the searched directory ('src/**/*.ts').",
    )
    type: str | None = Field(
        default=None,
        description="Only files of this ripgrep type: 'py', 'js', 'ts', 'rust', 'go'...",
    )
    case_insensitive: bool = Field(default=False, description="Ignore case.")
    output_mode: OutputMode = Field(
        default="files_with_matches",
        description="files_with_matches: the files with a match, newest first; content: "
        "matching lines as path:line:text; count: matching lines per file.",
    )
    context: int | None = Field(
        default=None,
        ge=0,
        le=MAX_CONTEXT,
        description="content mode: lines to show before and after each match.",
    )
    # Accepted for callers that set the two sides apart (ripgrep's -B and -A); the
    # model is shown `context` alone, one field instead of three. Either wins over it.
    before: SkipJsonSchema[int | None] = Field(default=None, ge=0, le=MAX_CONTEXT)
    after: SkipJsonSchema[int | None] = Field(default=None, ge=0, le=MAX_CONTEXT)
    multiline: bool = Field(
        default=False,
        description="Let matches span lines; '.' matches a newline only after '(?s)'.",
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        le=MAX_LIMIT,
        description="Results per page: files, counts or lines (default: usually 100).",
    )
    offset: int = Field(
        default=0, ge=0, le=MAX_OFFSET, description="Results to skip, for the next page."
    )
    include_hidden: bool = Field(
        default=False, description="Also search hidden files (names starting with '.')."
    )
    no_ignore: bool = Field(
        default=False, description="Also search files .gitignore, .ignore or .rgignore exclude."
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
