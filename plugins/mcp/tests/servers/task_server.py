"""A fastmcp server with tools that run as tasks (the 2026-07-28 tasks extension),
for the client's task tests; over stdio.

``slow`` runs only as a task and sleeps; it appends ``started <seconds>`` to the file
named by ``TASK_EVENTS``, then ``finished <seconds>``, or ``cancelled <seconds>`` when
the task is cancelled (so a test can see the cancellation reach the server).
``double`` may run as a task, ``plain`` never does, ``broken`` fails as a task, and
``ask`` waits for input (an elicitation), appending ``asking``.

When ``TASK_HOLD`` names a file, the answer to a call run as a task (the created
task) is held back until that file exists (30 s at most), while the task itself
runs: a test can give up on the call before the client has learnt the task's id.
The server's process id goes to ``<that file>.held`` when an answer is held.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension
from fastmcp_tasks.models import CreateTaskResult
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult


class HeldTasks(TasksExtension):
    """The tasks extension, holding back created-task answers while ``TASK_HOLD``
    names a file that does not exist yet."""

    async def intercept_tool_call(self, params: Any, context: Any, call_next: Any) -> Any:
        outcome = await super().intercept_tool_call(params, context, call_next)
        hold = os.environ.get("TASK_HOLD")
        if hold and isinstance(outcome, CreateTaskResult):
            with open(f"{hold}.held", "w") as held:  # says so, with this process's id
                print(os.getpid(), file=held)
            for _ in range(1500):
                if os.path.exists(hold):
                    break
                await asyncio.sleep(0.02)
        return outcome


server = FastMCP("tasks")
server.add_extension(HeldTasks(url="memory://"))


def event(text: str) -> None:
    if os.environ.get("TASK_EVENTS"):
        with open(os.environ["TASK_EVENTS"], "a") as events:
            print(text, file=events)


@server.tool(task=TaskConfig(mode="required"))
async def slow(seconds: float) -> str:
    """Wait for some seconds, then say so."""
    event(f"started {seconds:g}")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        event(f"cancelled {seconds:g}")
        raise
    event(f"finished {seconds:g}")
    return f"waited {seconds:g} s"


@server.tool(task=TaskConfig(mode="optional"))
async def double(x: int) -> int:
    """Twice x."""
    return 2 * x


@server.tool
def plain(x: int) -> int:
    """x plus one."""
    return x + 1


@server.tool(task=TaskConfig(mode="required"))
async def broken() -> str:
    """Always fails."""
    raise ToolError("the disk is full")


@server.tool(task=TaskConfig(mode="required"))
async def ask(ctx: Context) -> Any:
    """Ask the user for a name: the task waits for input until it is answered."""
    if ctx.input_responses:
        return f"answered {ctx.input_responses}"
    event("asking")
    question = ElicitRequest(
        params=ElicitRequestFormParams(
            message="Which name?",
            requested_schema={"type": "object", "properties": {"name": {"type": "string"}}},
        )
    )
    return InputRequiredResult(input_requests={"name": question})


if __name__ == "__main__":
    server.run(show_banner=False, log_level="warning")
