"""Who answers an ``ask``: the host's approver, else a person at the terminal, else no one.

The approver is any callable ``approver(tool, action, rule)`` (``rule`` is the
`toolplug_policy.Rule` that asked, or ``None`` when the policy's default did) returning
a true value to run the call; an ``async def`` approver (or one returning an awaitable)
is awaited on the caller's event loop. Without an approver, the question is asked on the
terminal when both standard input and standard error are one (one question at a time,
whatever the number of threads); otherwise nobody can approve, and the call is refused.

The terminal shows the whole call, however long (a person must see all that would run,
not a head with a dangerous tail left out), up to :data:`MAX_SHOWN` characters; a longer
call is refused without asking, and the refusal says why.
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolplug.loop import run_awaitable

from toolplug_policy.rules import Rule

Approver = Callable[[Any, Any, "Rule | None"], Any]

#: The longest call put to a person on the terminal, in characters; a longer one is
#: refused unasked (nobody reads 100,000 characters before answering "y").
MAX_SHOWN = 100_000

#: One terminal question at a time, across threads and policies.
_terminal = threading.Lock()


@dataclass(frozen=True)
class Answer:
    """Whether a call was approved, and by whom (``approver``, ``terminal`` or ``none``)."""

    approved: bool
    by: str
    #: What went wrong while asking, if something did (said in the refusal).
    problem: str | None = None


def ask(approver: Approver | None, tool: Any, action: Any, rule: Rule | None, what: str) -> Answer:
    """Ask whether to run the call; never raises. ``what`` describes the call for a person."""
    if approver is not None:
        return _ask_approver(approver, tool, action, rule)
    if _terminal_present():
        return _ask_terminal(what, rule)
    return Answer(False, "none")


def _ask_approver(approver: Approver, tool: Any, action: Any, rule: Rule | None) -> Answer:
    try:
        answer = approver(tool, action, rule)
        if inspect.isawaitable(answer):
            answer = run_awaitable(answer)
        return Answer(bool(answer), "approver")
    except Exception as exc:
        return Answer(False, "approver", f"the approver failed: {type(exc).__name__}: {exc}")


def _terminal_present() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed streams
        return False


def _shown(text: str) -> str:
    """``text`` with control characters escaped: a command must not be able to move the
    cursor, clear the line or fake the question a person reads on the terminal. Each
    line after the first is indented, so no line of the call can pass for the prompt."""
    lines = text.split("\n")
    return "\n    ".join(
        line
        if line.isprintable()
        else "".join(c if c.isprintable() else repr(c)[1:-1] for c in line)
        for line in lines
    )


def _ask_terminal(what: str, rule: Rule | None) -> Answer:
    if len(what) > MAX_SHOWN:
        return Answer(
            False,
            "terminal",
            f"the call is {len(what):,} characters long, more than the {MAX_SHOWN:,} a person "
            "can be shown on the terminal, so it was not asked about; split it into smaller calls",
        )
    why = f" ({rule.label()}{': ' + rule.reason if rule and rule.reason else ''})" if rule else ""
    size = f" [the whole call: {len(what):,} characters]" if "\n" in what or len(what) > 200 else ""
    with _terminal:
        try:
            question = _shown(f"allow {what}?{why}{size}")
            sys.stderr.write(f"\ntoolplug policy: {question} [y/N] ")
            sys.stderr.flush()
            line = sys.stdin.readline()
        except (OSError, ValueError) as exc:
            return Answer(False, "terminal", f"the terminal could not be asked: {exc}")
    return Answer(line.strip().lower() in ("y", "yes"), "terminal")
