"""The grep tool itself: :class:`GrepTool`, whose ``create`` checks the params."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from toolplug import ToolAnnotations, ToolContext, ToolDefinition

from toolplug_grep.executor import GrepExecutor, GrepSettings, choose_engine
from toolplug_grep.types import DESCRIPTION, MAX_LIMIT, GrepAction, GrepObservation

#: The longest a search may be given, in seconds (one day): past that, "never" is meant.
MAX_TIMEOUT = 86_400.0


class GrepTool(ToolDefinition[GrepAction, GrepObservation]):
    """The ``grep`` tool: one instance per host session, rooted at its workspace."""

    #: Made per session only to take its params; it keeps nothing between calls, so
    #: ``toolplug mcp serve --stateless`` may share one instance across every caller.
    stateless: ClassVar[bool] = True

    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        default_limit: int = 100,
        timeout: float | None = None,
        engine: Literal["auto", "ripgrep", "python"] = "auto",
    ) -> Sequence[GrepTool]:
        """Build the tool for a session.

        ``default_limit`` is how many results (files, counts or lines) a call returns
        when it gives no ``limit``; ``timeout`` bounds one search in seconds (default:
        the context's timeout, else 60); ``engine`` picks ``ripgrep`` (needs ``rg``),
        ``python`` (portable) or ``auto`` (ripgrep when found).
        """
        if not 1 <= default_limit <= MAX_LIMIT:
            raise ValueError(f"default_limit must be from 1 to {MAX_LIMIT}, not {default_limit}")
        workspace = Path(context.workspace).resolve()
        if not workspace.is_dir():
            raise ValueError(f"the workspace {str(workspace)!r} is not a directory")
        settings = GrepSettings(
            workspace=workspace,
            default_limit=default_limit,
            timeout=_search_timeout(timeout, context.timeout),
            engine=choose_engine(engine),
        )
        return [
            cls(
                name="grep",
                description=DESCRIPTION,
                action_type=GrepAction,
                observation_type=GrepObservation,
                executor=GrepExecutor(settings),
                annotations=ToolAnnotations(
                    title="Search file contents",
                    readOnlyHint=True,
                    destructiveHint=False,
                    idempotentHint=True,
                    openWorldHint=False,
                ),
            )
        ]


def _search_timeout(param: float | None, host: float | None) -> float:
    """Seconds one search may take: the ``timeout`` param, checked, else the host's.

    A param that bounds nothing (NaN, 0, negative, over a day) is refused; a host
    timeout like that gives way to 60 s, or to a day when it is longer.
    """
    if param is not None:
        if 0 < param <= MAX_TIMEOUT:  # NaN fails this too
            return param
        raise ValueError(f"timeout must be above 0 and at most {MAX_TIMEOUT:,.0f} s, not {param}")
    if host is None or not host > 0:  # no timeout, NaN, 0 or negative
        return 60.0
    return min(host, MAX_TIMEOUT)
