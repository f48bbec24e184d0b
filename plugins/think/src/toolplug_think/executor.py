"""The think tool's executor: it logs the thought and gives it back."""

from __future__ import annotations

import logging

from toolplug import TextContent, ToolExecutor

from toolplug_think.types import ThinkAction, ThinkObservation

log = logging.getLogger("toolplug.think")

#: What the model reads back: short, so a thought costs no extra tokens on the way out.
CONFIRMATION = "Your thought has been logged."


class ThinkExecutor(ToolExecutor[ThinkAction, ThinkObservation]):
    """Logs each thought on the ``toolplug.think`` logger and confirms it.

    The thought itself is not echoed into the model's content (it wrote it); it comes
    back in the observation's typed ``thought`` field for hosts that show it.
    """

    def __call__(self, action: ThinkAction) -> ThinkObservation:
        log.info("thought: %s", action.thought)
        return ThinkObservation(
            content=[TextContent(text=CONFIRMATION)],
            thought=action.thought,
        )
