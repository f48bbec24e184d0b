"""A third-party guard, as one would write it: no tool of its own, only the hooks.

Every call it sees is stamped: a line ``tool-name`` appended to the file named by
``STAMP_GUARD_LOG``. Its setting ``deny_word`` (``--deny-word WORD`` on the command
line, ``STAMP_GUARD_DENY`` in the environment, ``settings={"deny_word": ...}`` in
Python) refuses every call whose arguments contain the word.
"""

import os

from toolplug import Observation, hookimpl


@hookimpl(wrapper=True)
def tool_call(tool):
    log = os.environ.get("STAMP_GUARD_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as file:
            file.write(tool.name + "\n")
    return (yield)


@hookimpl
def add_options(options):
    options.add(
        "deny_word",
        help="Refuse every call whose arguments contain this word.",
        metavar="WORD",
        env="STAMP_GUARD_DENY",
    )


class DenyWord:
    """Refuses the calls whose arguments contain one word."""

    def __init__(self, word):
        self.word = word

    @hookimpl(tryfirst=True)
    def tool_call(self, tool, action):
        if self.word in action.model_dump_json():
            return Observation.error(f"stamp-guard refused {tool.name}: it says '{self.word}'")
        return None


@hookimpl
def load_guard(settings):
    word = settings.get("deny_word")
    return DenyWord(str(word)) if word else None
