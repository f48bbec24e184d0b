"""toolplug-policy: allow, ask or deny each tool call by rules in a TOML file, and log it.

It is a guard plugin (see `toolplug.guards`) with one setting, ``policy``: enable it by
naming a policy file, ``Toolset.load(..., settings={"policy": "policy.toml"})`` (or the
shortcut ``policy="policy.toml"``), ``toolplug call --policy policy.toml``, or
``TOOLPLUG_POLICY=policy.toml``. The rules, the
order they are applied in, the approver and the audit log are described in
docs/safety.md.
"""

from __future__ import annotations

import os
from typing import Any

from toolplug import hookimpl

from toolplug_policy.approval import Answer, Approver
from toolplug_policy.audit import AuditLog
from toolplug_policy.loading import load, loads
from toolplug_policy.plugin import AuditedPolicyPlugin, PolicyPlugin, plugin_for
from toolplug_policy.policy import Policy, Verdict
from toolplug_policy.rules import ArgumentMatch, Decision, Rule

__all__ = [
    "Answer",
    "Approver",
    "ArgumentMatch",
    "AuditLog",
    "AuditedPolicyPlugin",
    "Decision",
    "Policy",
    "PolicyPlugin",
    "Rule",
    "Verdict",
    "add_options",
    "load",
    "load_guard",
    "load_policy",
    "loads",
    "plugin_for",
]


#: The environment variable read for the ``policy`` setting when it is not given.
POLICY_ENV_VAR = "TOOLPLUG_POLICY"


@hookimpl
def add_options(options: Any) -> None:
    """The one setting: ``policy`` (``--policy FILE``, ``TOOLPLUG_POLICY``)."""
    options.add(
        "policy",
        help="A permission policy every call goes through (default: TOOLPLUG_POLICY).",
        metavar="FILE",
        env=POLICY_ENV_VAR,
        file=True,
    )


@hookimpl
def load_guard(settings: dict[str, Any], approver: Approver | None) -> PolicyPlugin | None:
    """The plugin object applying the ``policy`` setting (see :func:`load_policy`)."""
    return load_policy(settings.get("policy"), approver)


def load_policy(source: Any, approver: Approver | None) -> PolicyPlugin | None:
    """The plugin object applying the policy ``source`` names: a TOML file's path, or a
    :class:`Policy` built in code. Anything else is left to other plugins (``None``).

    Raises `toolplug.PolicyError` for a file that is missing or malformed.
    """
    if isinstance(source, Policy):
        return plugin_for(source, approver)
    if isinstance(source, (str, os.PathLike)):
        return plugin_for(load(os.fspath(source)), approver)
    return None
