"""The words of a refusal: what was refused, by which rule, and what is allowed instead.

A model reads these and adapts, so each says what it can do next.
"""

from __future__ import annotations

import json
from typing import Any

from toolplug_policy.approval import Answer
from toolplug_policy.policy import Policy, Verdict
from toolplug_policy.rules import CallFacts

#: How much of a command or path a message to the model quotes (an approver sees it all).
QUOTED = 200


def cut(text: str, limit: int = QUOTED) -> str:
    """``text`` on one line, cut to ``limit`` characters with a note."""
    text = text.replace("\n", "\\n")
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def subject(tool_name: str, action: Any, verdict: Verdict, workspace: Any) -> str:
    """What is refused: the command part, the unreadable command, the path, or the call."""
    command = getattr(action, "command", None)
    if verdict.part is not None:
        whole = command.strip() if isinstance(command, str) else ""
        if whole and whole != verdict.part.strip():
            return f"the command `{cut(verdict.part)}` (in `{cut(whole)}`)"
        return f"the command `{cut(verdict.part)}`"
    if verdict.unreadable is not None and isinstance(command, str):
        return (
            f"the command `{cut(command)}`, which could not be read for sure ({verdict.unreadable})"
        )
    if verdict.path is not None:  # one of the several paths the call names
        return f"{tool_name} on `{cut(verdict.path)}`"
    target = CallFacts(action, workspace).path
    if target is not None:
        return f"{tool_name} on `{cut(target.display())}`"
    return f"this call of {tool_name}"


def because(verdict: Verdict, policy: Policy) -> str:
    """``by rule 3 (policy.toml, line 12): "reason"``, or why the default decided."""
    rule = verdict.rule
    if rule is not None:
        return f"by {rule.label()}" + (f': "{rule.reason}"' if rule.reason else "")
    if verdict.unreadable is not None and policy.default == "allow":
        return (
            f"by the default: no rule of {policy.file} covers it, and what cannot be read "
            "is never allowed by default"
        )
    return (
        f"by the default: no rule of {policy.file} covers it, and the default is {policy.default}"
    )


def instead(tool_name: str, policy: Policy, names: tuple[str, ...] | None = None) -> str:
    """What the allow rules for this tool (by its ``names``) permit."""
    allowed = policy.allowed_for(names or tool_name)
    if not allowed:
        return f"No rule allows calls of {tool_name}; ask the user to do this, or do without it."
    return (
        f"Allowed for {tool_name}: {' | '.join(allowed)}. "
        "Use an allowed form, or ask the user to do this."
    )


def refusal(
    tool_name: str,
    action: Any,
    verdict: Verdict,
    policy: Policy,
    workspace: Any,
    answer: Answer | None = None,
    names: tuple[str, ...] | None = None,
) -> str:
    """The error text for a refused call (``answer`` is set for an ``ask``)."""
    what = subject(tool_name, action, verdict, workspace)
    why = because(verdict, policy)
    if answer is None:
        head = f"Refused by the policy: {what} is denied {why}."
    elif answer.problem is not None:
        head = f"Refused by the policy: {what} needs approval ({why}), and {answer.problem}."
    elif answer.by == "none":
        head = (
            f"Refused by the policy: {what} needs approval ({why}), and there is no "
            "approver and no terminal to ask, so it is denied."
        )
    else:
        who = "the person at the terminal" if answer.by == "terminal" else "the approver"
        head = f"Refused by the policy: {what} needs approval ({why}), and {who} declined."
    if verdict.caution is not None:
        head += f" Note: {verdict.caution}."
    if verdict.others:
        listed = ", ".join(f"`{cut(text, 80)}`" for text in verdict.others[:5])
        more = f" and {len(verdict.others) - 5} more" if len(verdict.others) > 5 else ""
        head += f" Not allowed either: {listed}{more}."
    if verdict.writes:
        head += (
            f" It writes a file through a redirection ({', '.join(verdict.writes)}), which "
            "command rules never allow."
        )
    return f"{head} The tool did not run. {instead(tool_name, policy, names)}"


def describe_call(tool_name: str, action: Any) -> str:
    """The whole call, for a person asked to approve it: the command (or else the path)
    as written, then every other argument that is not at its default, as JSON. Nothing is
    cut: an approver must see all of what would run (:mod:`~toolplug_policy.approval`
    refuses to ask about a call too long to show)."""
    command = getattr(action, "command", None)
    lead = "command" if isinstance(command, str) else "path"
    head = getattr(action, lead, None)
    rest = _other_arguments(action, lead if isinstance(head, str) else None)
    if isinstance(head, str):
        what = f"{tool_name}: {head}" if lead == "command" else f"{tool_name} on {head}"
        return f"{what} {rest}" if rest else what
    return f"{tool_name} {rest}" if rest else tool_name


def _other_arguments(action: Any, leaving_out: str | None) -> str:
    """The arguments besides ``leaving_out`` that differ from their defaults, as JSON."""
    dump = getattr(action, "model_dump", None)
    if dump is None:
        return ""
    try:
        data = dump(mode="json", exclude_defaults=True)
    except (TypeError, ValueError):
        return repr(action)
    if leaving_out is not None:
        data.pop(leaving_out, None)
    return json.dumps(data) if data else ""
