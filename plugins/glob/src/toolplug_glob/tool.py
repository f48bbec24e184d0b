"""The glob tool itself: :class:`GlobTool`, whose ``create`` checks the params."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from toolplug import ToolAnnotations, ToolContext, ToolDefinition

from toolplug_glob.executor import GlobExecutor, GlobSettings, choose_engine
from toolplug_glob.types import DESCRIPTION, MAX_LIMIT, GlobAction, GlobObservation


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
