"""A test-only toolplug plugin: tools that report progress, log, and ask the user.

``steps`` (sync) reports ``count`` steps of progress and logs at two levels; ``confirm``
(sync, ``ask``) and ``aconfirm`` (async, ``aask``) ask for a name and a yes/no, and
return what the user answered.
"""

from __future__ import annotations

from pydantic import Field
from toolplug import Action, Observation, ToolDefinition, hookimpl
from toolplug.interaction import aask, ask, log, report_progress


class StepsAction(Action):
    count: int = Field(default=3, description="How many steps to report.")


def steps(action: StepsAction) -> Observation:
    for done in range(1, action.count + 1):
        report_progress(done, action.count, f"step {done}")
    log("debug", "a detail")
    log("warning", "steps taken", {"count": action.count})
    return Observation.from_text(f"{action.count} steps")


class ConfirmAction(Action):
    what: str = Field(description="What to confirm.")


FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name"},
        "ok": {"type": "boolean", "title": "Go ahead?"},
    },
    "required": ["ok"],
}


def confirm(action: ConfirmAction) -> Observation:
    answer = ask(f"Confirm {action.what}?", FORM)
    return Observation.from_text(f"{answer.action} {answer.content}")


async def aconfirm(action: ConfirmAction) -> Observation:
    answer = await aask(f"Confirm {action.what}?", FORM)
    return Observation.from_text(f"{answer.action} {answer.content}")


@hookimpl
def register_tools(register):  # type: ignore[no-untyped-def]
    register(
        ToolDefinition(name="steps", description="Steps.", action_type=StepsAction, executor=steps)
    )
    for name, fn in (("confirm", confirm), ("aconfirm", aconfirm)):
        register(
            ToolDefinition(
                name=name, description="Confirm.", action_type=ConfirmAction, executor=fn
            )
        )
