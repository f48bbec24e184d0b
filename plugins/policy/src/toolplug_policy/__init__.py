"""toolplug-policy: allow, ask or deny each tool call by rules in a TOML file, and log it.

It is a guard plugin (see `toolplug.guards`) with one setting, ``policy``: enable it by
naming a policy file, ``Toolset.load(..., settings={"policy": "policy.toml"})`` (or the
shortcut ``policy="policy.toml"``), ``toolplug call --policy policy.toml``, or
``TOOLPLUG_POLICY=policy.toml``. The rules, the
order they are applied in, the approver and the audit log are described in
docs/safety.md.

This module is the plugin's entry point, and every load imports it (the core asks each
installed guard which settings it takes), with or without a policy. So it imports
nothing of the policy itself: the public names below come from their modules at first
use (PEP 562's module ``__getattr__``), and `load_guard` imports the loader and the
plugin objects when a policy is given.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from toolplug import hookimpl

if TYPE_CHECKING:
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

#: The public names imported at first use, and the module each comes from.
_LAZY = {
    "Answer": "approval",
    "Approver": "approval",
    "AuditLog": "audit",
    "load": "loading",
    "loads": "loading",
    "AuditedPolicyPlugin": "plugin",
    "PolicyPlugin": "plugin",
    "plugin_for": "plugin",
    "Policy": "policy",
    "Verdict": "policy",
    "ArgumentMatch": "rules",
    "Decision": "rules",
    "Rule": "rules",
}


def __getattr__(name: str) -> Any:
    """Import a public name's module the first time the name is read."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # read once: later reads find it without this function
    return value


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
    from toolplug_policy.loading import load
    from toolplug_policy.plugin import plugin_for
    from toolplug_policy.policy import Policy

    if isinstance(source, Policy):
        return plugin_for(source, approver)
    if isinstance(source, (str, os.PathLike)):
        return plugin_for(load(os.fspath(source)), approver)
    return None
