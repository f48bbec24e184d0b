"""The glob tool itself: :class:`GlobTool`, whose ``create`` checks the params."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from toolplug import ToolAnnotations, ToolContext, ToolDefinition

from toolplug_glob.executor import GlobExecutor, GlobSettings, choose_engine
from toolplug_glob.types import DESCRIPTION, MAX_LIMIT, GlobAction, GlobObservation

#: The longest a search may be given, in seconds (one day): past that, "never" is meant.
MAX_TIMEOUT = 86_400.0


class GlobTool(ToolDefinition[GlobAction, GlobObservation]):
    """The ``glob`` tool: one instance per host session, rooted at its workspace."""

    #: Made per session only to take its params; it keeps nothing between calls, so
    #: ``toolplug mcp serve --stateless`` may share one instance across every caller.
    stateless: ClassVar[bool] = True

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
        if timeout is not None and not 0 < timeout <= MAX_TIMEOUT:  # NaN fails too
            raise ValueError(
                f"timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT:,.0f}, "
                f"not {timeout}"
            )
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
            timeout=timeout or _host_timeout(context.timeout),
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


def _host_timeout(value: float | None) -> float:
    """The host's timeout as a bound for one search: 60 s when it gives none or no
    usable number (NaN, 0, negative), at most :data:`MAX_TIMEOUT` (infinity included)."""
    if value is None or math.isnan(value) or value <= 0:
        return 60.0
    return min(value, MAX_TIMEOUT)
