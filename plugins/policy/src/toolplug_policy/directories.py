"""What a call over a directory may not read: the files a call naming them would not get.

A ``path`` rule matches the path a call names. A search over a directory (``grep`` with
``path="."``, or none, or ``src/..``) names the directory, so the files inside it that
the rules keep out (``!**/.env``) are not seen at the call's decision. So, as the policy
lets a call with a ``path`` go on, it hides from that call (with `toolplug.hide_paths`)
every file that a call of the same tool naming that file would get a stronger decision
for: denied, or asked about when the call itself was allowed. The tools that read over
a directory (grep, glob) skip what is hidden and say so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolplug import hide_paths

from toolplug_policy.policy import Policy
from toolplug_policy.rules import SEVERITY, CallFacts, Decision


def hide_refused_files(
    policy: Policy, names: tuple[str, ...], action: Any, workspace: Path | None, decision: Decision
) -> None:
    """Hide from the current call the files the policy would not let it name (see the
    module docstring). Nothing is hidden when no rule for the tool has a ``path`` key:
    then a file's decision is the call's own."""
    if not any(rule.paths is not None for rule in policy.rules_for(names)):
        return
    if CallFacts(action, workspace).path is None or not hasattr(action, "model_copy"):
        return  # the tool takes no path: it reads no directory the rules could see
    limit = SEVERITY[decision]
    known: dict[str, bool] = {}

    def hides(path: str) -> bool:
        found = known.get(path)
        if found is None:
            named = action.model_copy(update={"path": path})
            found = SEVERITY[policy.decide(names, named, workspace).decision] > limit
            known[path] = found
        return found

    hide_paths(hides, by="the policy")
