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

from toolplug_policy.paths import Resolver, workspace_of
from toolplug_policy.policy import Policy
from toolplug_policy.rules import SEVERITY, CallFacts, Decision


def hide_refused_files(
    policy: Policy, names: tuple[str, ...], action: Any, workspace: Path | None, decision: Decision
) -> None:
    """Hide from the current call the files the policy would not let it name (see the
    module docstring). Nothing is hidden when no rule for the tool has a ``path`` key:
    then a file's decision is the call's own."""
    path_rules = [rule for rule in policy.rules_for(names) if rule.paths is not None]
    if not path_rules:
        return
    if CallFacts(action, workspace).path is None or not hasattr(action, "model_copy"):
        return  # the tool takes no path: it reads no directory the rules could see
    limit = SEVERITY[decision]
    resolved = Resolver(workspace_of(workspace))
    # The other facts of the call are fixed, so a file's decision depends only on which
    # path globs match it: decide once per combination, not once per file.
    by_globs: dict[tuple[bool, ...], bool] = {}

    def hides(path: str) -> bool:
        target = resolved(path)
        key = tuple(rule.paths.matches(target) for rule in path_rules if rule.paths)
        found = by_globs.get(key)
        if found is None:
            named = action.model_copy(update={"path": target.absolute})
            found = SEVERITY[policy.decide(names, named, workspace).decision] > limit
            by_globs[key] = found
        return found

    hide_paths(hides, by="the policy")
