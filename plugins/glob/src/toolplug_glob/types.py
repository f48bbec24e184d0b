"""The glob tool's types: its action, its observation, and the description a model reads."""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation

#: The most paths one call may ask for.
MAX_LIMIT = 10_000

DESCRIPTION = """\
Find files by name pattern, newest first. Fast on large trees.

- `pattern` uses glob syntax: `*` and `?` match within one path segment, `**` matches \
any number of directories, `[abc]` and `[!abc]` are character classes, `{a,b}` are \
alternatives. Examples: `**/*.py`, `src/**/test_*.py`, `**/*.{ts,tsx}`, `docs/*.md`.
- A pattern matches whole paths from the searched directory: `*.py` finds only the top \
level's files; use `**/*.py` to search every level.
- Files ignored by git (`.gitignore`, nested ignore files, `.git/info/exclude`) and \
hidden files are skipped, unless the pattern names a hidden file (`**/.env`) or \
starts in an ignored directory (`build/**`).
- Results are paths relative to the searched directory, most recently modified first, \
at most `limit` of them; a note says how many more matched.
- `path` picks a directory to search (default: the workspace). Absolute patterns and \
`~` work too.
- This lists files only, not their contents; search inside files with a grep tool."""


class GlobAction(Action):
    """Arguments of the glob tool."""

    pattern: str = Field(
        min_length=1,
        description="Glob pattern for the files to find, such as '**/*.py' or "
        "'src/**/test_*.{ts,tsx}'. Relative patterns match from the searched directory.",
    )
    path: str | None = Field(
        default=None,
        description="Directory to search in, absolute or relative to the workspace. "
        "Omit it to search the whole workspace.",
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        le=MAX_LIMIT,
        description="Most paths to return (newest first). Omit it for the tool's default "
        "(usually 100).",
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
