"""A :class:`Policy`: rules in file order and a default, and the decision for one call.

The evaluation, for one call of one tool:

1. Keep the rules whose ``tool`` matches the tool's name and whose other keys
   (``path``, ``arguments``, ``security_risk``) match the call.
2. Rules without ``command`` apply to the whole call. When some kept rule has a
   ``command`` key and the action has ``command`` text, the text is parsed into the
   commands it would run, and each command gets the strongest decision among the
   whole-call rules and the command rules with a pattern matching it (deny over ask
   over allow), else the default. The call gets the strongest decision of its commands.
3. Otherwise the call gets the strongest decision of the rules kept, else the default.

An allow rule matches a command only when its ``env`` names every variable the
command sets in the environment (``GIT_PAGER=x git log``: ``Command.env``); a command
with no words that sets such variables (``LANG=C`` on its own) is matched by an allow
rule whose ``env`` names them all. A command that changes what later commands do (a
function definition, ``alias``, a line of assignments only: ``Command.note``) is
allowed only by an allow pattern that writes its program out, and never by an
``allow`` default, which becomes ``ask`` for it.

A command that writes a file through a redirection (``> out``, ``>> log``, ``&> f``;
not ``2>&1`` or ``> /dev/null``) is never allowed by a command rule, whose patterns
see only the command's words: it takes the whole-call rules, else the default.

A command the parser cannot read matches no command rule; the call then falls to the
whole-call rules, else to the default, where an ``allow`` default becomes ``ask``: what
cannot be read is never allowed for want of a rule.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolplug_policy.errors import ShellParseError
from toolplug_policy.rules import SEVERITY, CallFacts, Decision, Rule
from toolplug_policy.shell import (
    Command,
    Limits,
    Redirect,
    command_matches,
    names_program,
)

#: Pattern against command, cached: an agent repeats its commands, and a pattern is
#: split into words (shlex, the slow part) on each match otherwise.
_matches = functools.lru_cache(maxsize=8192)(command_matches)

#: Redirection targets that write no file.
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


@dataclass(frozen=True)
class Verdict:
    """The decision for one call, and what it rests on (for the model and the log)."""

    decision: Decision
    #: The rules that decided, in file order; empty when the default did.
    rules: tuple[Rule, ...] = ()
    #: The command part the decision is about (the one refused, for a refusal).
    part: str | None = None
    #: Why the command could not be read, when it could not.
    unreadable: str | None = None
    #: The file-writing redirections of the refused part, which no command rule allows.
    writes: tuple[str, ...] = ()
    #: The other command parts that are not allowed (for a refusal to list them all).
    others: tuple[str, ...] = ()
    #: Why the refused part changes what later commands do (an alias, a function
    #: definition, a line that only sets variables), when the default decided on it.
    caution: str | None = None
    #: Of the several paths a call names (``Action.touched_paths``), the one decided on.
    path: str | None = None

    @property
    def rule(self) -> Rule | None:
        """The rule that decided (the first, for an allow that took several), or ``None``
        for the default."""
        return self.rules[0] if self.rules else None


@dataclass
class Policy:
    """Rules in file order, and the decision for calls no rule matches.

    Build one with `toolplug_policy.load` from a TOML file, or directly.
    """

    rules: Sequence[Rule] = ()
    default: Decision = "ask"
    #: Where the audit log is appended, if anywhere.
    audit_log: Path | None = None
    #: The file it was read from, for messages.
    file: str = "<policy>"
    #: How long a command may be, and how long reading it may take.
    limits: Limits = field(default_factory=Limits)
    #: The rules that apply to each tool seen so far, by its names (the ``tool`` key).
    _by_tool: dict[tuple[str, ...], tuple[Rule, ...]] = field(default_factory=dict, repr=False)

    def rules_for(self, names: str | tuple[str, ...]) -> tuple[Rule, ...]:
        """The rules whose ``tool`` key matches the tool, given by its name or its names
        (`toolplug_policy.rules.tool_names`); worked out once per tool."""
        key = (names,) if isinstance(names, str) else names
        found = self._by_tool.get(key)
        if found is None:
            found = tuple(rule for rule in self.rules if rule.applies_to(key))
            self._by_tool[key] = found
        return found

    def decide(
        self, names: str | tuple[str, ...], action: Any, workspace: Path | None = None
    ) -> Verdict:
        """The decision for a call of the tool ``names`` names with this (validated) action.

        ``workspace`` anchors relative ``path`` globs (the current directory if ``None``).
        """
        candidates = self.rules_for(names)
        if not candidates:
            return Verdict(self.default)
        touched = _touched_paths(action)
        if isinstance(touched, str):  # the tool could not say what it would touch
            unsure: Decision = "ask" if self.default == "allow" else self.default
            return Verdict(unsure, unreadable=touched)
        if touched:
            # A call naming several paths (a patch) is as allowed as its least allowed
            # path: each is decided as if the call named it alone.
            verdicts = [
                dataclasses.replace(
                    self._decide(candidates, CallFacts(action, workspace, self.limits, path=path)),
                    path=path,
                )
                for path in touched
            ]
            return max(verdicts, key=lambda v: SEVERITY[v.decision])  # the first of the worst
        return self._decide(candidates, CallFacts(action, workspace, self.limits))

    def _decide(self, candidates: tuple[Rule, ...], facts: CallFacts) -> Verdict:
        """The decision of :meth:`decide` for one call's facts."""
        whole: dict[str, Rule] = {}  # the first matching whole-call rule of each decision
        by_command: list[Rule] = []
        for rule in candidates:
            if not rule.matches(facts):
                continue
            if rule.commands is None:
                whole.setdefault(rule.decision, rule)
            else:
                by_command.append(rule)
        if "deny" in whole:
            return Verdict("deny", (whole["deny"],))
        strongest = _strongest(whole)
        commands = facts.commands if by_command else None
        if commands is None:
            return Verdict(strongest.decision, (strongest,)) if strongest else Verdict(self.default)
        if isinstance(commands, ShellParseError):
            if strongest is not None:
                return Verdict(strongest.decision, (strongest,), unreadable=str(commands))
            default: Decision = "ask" if self.default == "allow" else self.default
            return Verdict(default, unreadable=str(commands))
        return self._by_parts(commands, strongest, by_command)

    def _by_parts(
        self, commands: list[Command], whole: Rule | None, by_command: list[Rule]
    ) -> Verdict:
        """Each command's decision (see the module docstring); the strongest wins."""
        by_command = sorted(by_command, key=lambda r: -SEVERITY[r.decision])  # stable
        if not commands:  # nothing would run: an allow command rule holds vacuously
            if whole is not None:
                return Verdict(whole.decision, (whole,))
            allows = tuple(r for r in by_command if r.decision == "allow")
            return Verdict("allow", allows[:1]) if allows else Verdict(self.default)
        worst: Verdict | None = None
        used: list[Rule] = []
        unallowed: list[str] = []
        for command in commands:
            rule = whole
            writes = file_writes(command)
            for candidate in by_command:
                if rule is not None and SEVERITY[candidate.decision] <= SEVERITY[rule.decision]:
                    break  # sorted: nothing stronger is left
                if writes and candidate.decision == "allow":
                    break  # its patterns cannot see what the redirections write
                if _part_matches(candidate, command):
                    rule = candidate
                    break
            decision = rule.decision if rule is not None else self.default
            caution = command.note if rule is None else None
            if caution is not None and decision == "allow":
                decision = "ask"  # it changes what later commands do: never allowed by default
            if decision != "allow" and command.env and (rule is None or rule.commands is None):
                caution = _unnamed_variables(command, by_command) or caution
            if decision != "allow":
                unallowed.append(command.text)
            if rule is not None and rule not in used:
                used.append(rule)
            if worst is None or _stronger(decision, rule, worst):
                if rule is not None and rule.commands is not None:
                    writes = ()  # a command rule decided: the writes made no difference
                worst = Verdict(
                    decision, (rule,) if rule else (), command.text, writes=writes, caution=caution
                )
        assert worst is not None
        if worst.decision == "allow":
            ordered = tuple(sorted(used, key=lambda r: r.number))
            return Verdict("allow", ordered, part=None)
        others = tuple(text for text in unallowed if text != worst.part)
        return dataclasses.replace(worst, others=others)

    def allowed_for(self, names: str | tuple[str, ...]) -> list[str]:
        """What the allow rules for this tool permit, in words, for a refusal."""
        out: list[str] = []
        tool_name = names if isinstance(names, str) else names[0]
        for rule in self.rules_for(names):
            if rule.decision != "allow":
                continue
            parts = []
            if rule.commands is not None:
                parts.append("commands " + ", ".join(f"`{c}`" for c in rule.commands))
            if rule.paths is not None:
                plain = [f"`{p}`" for p in rule.paths.texts if not p.startswith("!")]
                but = [f"`{p[1:]}`" for p in rule.paths.texts if p.startswith("!")]
                unless = f" (not {', '.join(but)})" if but else ""
                parts.append("paths " + ", ".join(plain) + unless)
            for match in rule.arguments:
                values = " or ".join(f"`{v}`" for v in match.values)
                parts.append(f"`{match.path}` = {values}")
            if rule.security_risk is not None:
                parts.append("security_risk " + "/".join(sorted(rule.security_risk)))
            if rule.tools != ("*",) and tool_name not in rule.tools:
                parts.append("tools " + ", ".join(f"`{t}`" for t in rule.tools))
            out.append("; ".join(parts) if parts else "any call")
        return out


def _touched_paths(action: Any) -> tuple[str, ...] | str:
    """The paths an action names in a form of its own (``Action.touched_paths``: a
    patch's files); empty when it names none that way, or says nothing of it; why not,
    when the tool's own code failed to say (never a reason to let the call through)."""
    touched = getattr(action, "touched_paths", None)
    if touched is None:
        return ()
    try:
        paths = touched()
    except Exception as exc:
        return f"the paths the call would touch could not be read ({type(exc).__name__})"
    return tuple(p for p in paths or () if isinstance(p, str))


def _part_matches(rule: Rule, command: Command) -> bool:
    """Whether a command rule matches one part. An allow rule must also name every
    variable the part sets in the environment (its ``env`` key); a part with no words
    that sets some (``GIT_PAGER=cat`` on its own) is allowed by an allow rule naming
    them all, whatever its patterns; a part that changes what later commands do (an
    ``alias``, ``enable``...) only by a pattern that names its program word for word."""
    allow = rule.decision == "allow"
    if allow and not rule.allows_env(command.env):
        return False
    if not command.argv:
        return allow and bool(command.env)
    patterns = rule.commands or ()
    if allow and command.note is not None:
        return any(_matches(p, command) and names_program(p, command) for p in patterns)
    return any(_matches(p, command) for p in patterns)


def _unnamed_variables(command: Command, by_command: list[Rule]) -> str | None:
    """Why an allow rule whose patterns match the command did not allow it: the
    variables it sets that the rule's ``env`` does not name."""
    for rule in by_command:
        if rule.decision != "allow" or not command.argv:
            continue
        if any(_matches(p, command) for p in rule.commands or ()):
            missing = [name for name in command.env if not rule.allows_env((name,))]
            return (
                f"{rule.label()} allows its words but not the variables it sets "
                f"({', '.join(missing)}): an allow rule names those it allows in its env key"
            )
    return None


def _stronger(decision: Decision, rule: Rule | None, than: Verdict) -> bool:
    """Whether a part's decision outranks the worst so far: a stronger decision, or the
    same one by a rule rather than by the default (a rule says more to the model)."""
    if SEVERITY[decision] != SEVERITY[than.decision]:
        return SEVERITY[decision] > SEVERITY[than.decision]
    return rule is not None and than.rule is None


def file_writes(command: Command) -> tuple[str, ...]:
    """The redirections of a command that write a file, as written (``> out.txt``)."""
    return tuple(f"{r.operator} {r.target}" for r in command.redirects if _writes(r))


def _writes(redirect: Redirect) -> bool:
    operator, target = redirect.operator, redirect.target
    if ">" not in operator or target in _HARMLESS_TARGETS:
        return False
    # ">&2", "2>&1", ">&-": a copy or a close of a descriptor, not a file.
    return not (operator.endswith(">&") and (target.isdigit() or target == "-"))


def _strongest(rules: dict[str, Rule]) -> Rule | None:
    for decision in ("deny", "ask", "allow"):
        if decision in rules:
            return rules[decision]
    return None
