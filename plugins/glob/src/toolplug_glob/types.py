"""The glob tool's types: its action, its observation, and the description a model reads."""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation

#: The most paths one call may ask for.
MAX_LIMIT = 10_000

DESCRIPTION = """\
Find files by name with a glob pattern. Results are paths relative to the searched \
directory, most recently modified first; a note says how many more matched than \
`limit`.

- `*` and `?` match within one path segment, `**` any number of directories, `[abc]` \
and `[!abc]` are character classes, `{a,b}` alternatives. A pattern matches whole \
paths: `*.py` finds the top level's files only, `**/*.py` every level's.
- Git-ignored and hidden files are skipped unless the pattern names one (`**/.env`) or \
starts in an ignored directory (`build/**`).
- It lists names only; to search contents, use a grep tool."""


class GlobAction(Action):
    """Arguments of the glob tool."""

    pattern: str = Field(
        min_length=1,
        description="Such as '**/*.py' or 'src/**/test_*.{ts,tsx}'; absolute patterns and "
        "'~' work too.",
    )
    path: str | None = Field(
        default=None,
        description="Directory to search, relative to the workspace or absolute (default: "
        "the workspace).",
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        le=MAX_LIMIT,
        description="Most paths to return (default: usually 100).",
    )


class GlobObservation(Observation):
    """The files a glob call found, newest first."""

    files: list[str] = Field(
        default_factory=list,
        description="Matching paths, most recently modified first, relative to search_dir "
        "(absolute when outside it).",
    )
    total: int = Field(default=0, description="How many files matched in all.")
    truncated: bool = Field(
        default=False, description="True when more files matched than are listed."
    )
    search_dir: str = Field(default="", description="The directory searched (absolute).")
