"""The glob tool itself: :class:`GlobTool`, whose ``create`` takes the params."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import Field
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
        default_limit: Annotated[
            int,
            Field(
                ge=1,
                le=MAX_LIMIT,
                description="The number of paths a call returns when it gives no limit.",
            ),
        ] = 100,
        include_hidden: Annotated[bool, Field(description="List hidden files too.")] = False,
        include_ignored: Annotated[bool, Field(description="List git-ignored files too.")] = False,
        allow_outside_workspace: Annotated[
            bool,
            Field(description="Let path and absolute patterns leave the workspace."),
        ] = False,
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
        root: Annotated[
            str | None,
            Field(
                description="Replaces the context's workspace as the search root and "
                "the boundary (relative: to it)."
            ),
        ] = None,
    ) -> Sequence[GlobTool]:
        """Build the tool for a session.

        Each param is described in its annotation (``toolplug tools --params`` lists
        them); the registry has checked their types and ranges before this runs.
        """
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
