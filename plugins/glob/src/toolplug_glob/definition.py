"""The glob tool's types: its action, its observation, and the definition with ``create``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field
from toolplug import Action, Observation, ToolAnnotations, ToolContext, ToolDefinition

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
hidden files are skipped, unless the pattern names a hidden file (`**/.env`).
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


class GlobTool(ToolDefinition[GlobAction, GlobObservation]):
    """The ``glob`` tool: one instance per host session, rooted at its workspace."""

    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        default_limit: int = 100,
        include_hidden: bool = False,
        include_ignored: bool = False,
        allow_outside_workspace: bool = False,
        timeout: float | None = None,
        engine: Literal["auto", "ripgrep", "python"] = "auto",
        root: str | None = None,
    ) -> Sequence[GlobTool]:
        """Build the tool for a session.

        ``default_limit`` is the number of paths a call returns when it gives no
        ``limit``; ``include_hidden`` and ``include_ignored`` list hidden and
        git-ignored files too; ``allow_outside_workspace`` lets ``path`` and absolute
        patterns leave the workspace; ``timeout`` bounds one search in seconds (default:
        the context's timeout, else 60); ``engine`` picks ``ripgrep`` (needs ``rg``),
        ``python`` (portable) or ``auto`` (ripgrep when found); ``root`` replaces the
        context's workspace as the search root and the boundary (relative: to it).
        """
        from toolplug_glob.impl import GlobExecutor, GlobSettings, choose_engine

        if not 1 <= default_limit <= MAX_LIMIT:
            raise ValueError(f"default_limit must be from 1 to {MAX_LIMIT}, not {default_limit}")
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout}")
        top = context.workspace / Path(root).expanduser() if root else context.workspace
        top = top.resolve()
        if not top.is_dir():
            raise ValueError(f"the search root {str(top)!r} is not a directory")
        settings = GlobSettings(
            workspace=top,
            home=context.env.get("HOME") or str(Path.home()),
            default_limit=default_limit,
            include_hidden=include_hidden,
            include_ignored=include_ignored,
            allow_outside_workspace=allow_outside_workspace,
            timeout=timeout or context.timeout or 60.0,
            engine=choose_engine(engine),
        )
        return [
            cls(
                name="glob",
                description=DESCRIPTION,
                action_type=GlobAction,
                observation_type=GlobObservation,
                executor=GlobExecutor(settings),
                annotations=ToolAnnotations(
                    title="Find files by pattern",
                    readOnlyHint=True,
                    destructiveHint=False,
                    idempotentHint=True,
                    openWorldHint=False,
                ),
            )
        ]
