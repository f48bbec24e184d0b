"""The grep tool itself: :class:`GrepTool`, whose ``create`` takes the params."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import Field
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
    #: Results come in pages of ``limit`` with long lines cut, so the toolset's output
    #: budget leaves them alone.
    bounds_output = True

    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        default_limit: Annotated[
            int,
            Field(
                ge=1,
                le=MAX_LIMIT,
                description="How many results (files, counts or lines) a call returns "
                "when it gives no limit.",
            ),
        ] = 100,
        timeout: Annotated[
            float | None,
            Field(
                gt=0,
                le=MAX_TIMEOUT,
                allow_inf_nan=False,
                description="Seconds one search may take (default: the context's "
                "timeout, else 60).",
            ),
        ] = None,
        engine: Annotated[
            Literal["auto", "ripgrep", "python"],
            Field(
                description="ripgrep (needs rg), python (portable) or auto (ripgrep when found)."
            ),
        ] = "auto",
    ) -> Sequence[GrepTool]:
        """Build the tool for a session.

        Each param is described in its annotation (``toolplug tools --params`` lists
        them); the registry has checked their types and ranges before this runs.
        """
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
    """Seconds one search may take: the ``timeout`` param (the registry checked that it
    bounds something), else the host's; a host timeout that bounds nothing (NaN, 0,
    negative) gives way to 60 s, and a longer one than a day to a day.
    """
    if param is not None:
        return param
    if host is None or not host > 0:  # no timeout, NaN, 0 or negative
        return 60.0
    return min(host, MAX_TIMEOUT)
