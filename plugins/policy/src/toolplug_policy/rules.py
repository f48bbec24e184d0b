"""One rule of a policy, and what it matches in a call.

A rule matches a call when every key it has matches: ``tool`` (fnmatch patterns on the
tool's name, and for a tool of an MCP server also on ``server.tool``, see
:func:`tool_names`), ``path`` (see `toolplug_policy.paths`),
``arguments`` (a value at a JSON-path-style location of the arguments), and
``security_risk`` (the level the model declared). ``command`` is matched part by part
by the policy (`toolplug_policy.policy`), since a script holds several commands.
"""

from __future__ import annotations

import enum
import fnmatch
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

# (ArgumentPathError re-exported: the loading imports it from here.)
from toolplug_policy.errors import (
    ArgumentPathError as ArgumentPathError,
    ShellParseError,
    ShellTimeout,
)
from toolplug_policy.paths import PathPatterns, ResolvedPath, resolve, workspace_of
from toolplug_policy.shell import Command, Limits, parse_commands

Decision = Literal["allow", "ask", "deny"]

#: How strong each decision is: the strongest of the rules that match wins.
SEVERITY: Mapping[str, int] = {"allow": 0, "ask": 1, "deny": 2}

#: The levels a model may declare in ``security_risk`` (toolplug exports LOW, MEDIUM, HIGH).
RISK_LEVELS = ("low", "medium", "high")

#: One step of an argument path: a key, an index, or ``None`` for every element (``[*]``).
Step = str | int | None

_STEP = re.compile(
    r"""\.(?P<key>[A-Za-z_][\w-]*)"""  # .name
    r"""|\[(?P<index>\d+|\*)\]"""  # [0] or [*]
    r"""|\[(?P<q>["'])(?P<quoted>.*?)(?P=q)\]"""  # ["any name"]
)


def parse_argument_path(text: str) -> tuple[Step, ...]:
    """Split ``$.a.b[0]["c d"][*]`` into its steps; raises :class:`ArgumentPathError`."""
    if not text.startswith("$"):
        raise ArgumentPathError(f"the argument path {text!r} must start with '$' (as in '$.url')")
    steps: list[Step] = []
    at = 1
    while at < len(text):
        found = _STEP.match(text, at)
        if found is None:
            raise ArgumentPathError(
                f"the argument path {text!r} cannot be read at {text[at:]!r}; write keys as "
                "'.name' or '[\"any name\"]', list items as '[0]' or '[*]'"
            )
        if found["key"] is not None:
            steps.append(found["key"])
        elif found["quoted"] is not None:
            steps.append(found["quoted"])
        else:
            steps.append(None if found["index"] == "*" else int(found["index"]))
        at = found.end()
    if not steps:
        raise ArgumentPathError(f"the argument path {text!r} names no argument (as in '$.url')")
    return tuple(steps)


def values_at(data: Any, steps: Sequence[Step]) -> list[Any]:
    """Every value found at ``steps`` in ``data`` (several through ``[*]``, none if absent)."""
    current = [data]
    for step in steps:
        found: list[Any] = []
        for value in current:
            if step is None:
                if isinstance(value, list):
                    found.extend(value)
            elif isinstance(step, int):
                if isinstance(value, list) and step < len(value):
                    found.append(value[step])
            elif isinstance(value, dict) and step in value:
                found.append(value[step])
        current = found
    return current


@dataclass(frozen=True)
class ArgumentMatch:
    """One entry of a rule's ``arguments`` table: a path and the values it may hold.

    A string is an fnmatch pattern for string values; any other value (a number, a
    boolean) must be equal, of the same type. Several values: any of them.
    """

    path: str
    steps: tuple[Step, ...]
    values: tuple[Any, ...]

    def matches(self, arguments: Any, *, every: bool) -> bool:
        """Whether the values at the path match: any of them, or ``every`` one (allow rules
        must hold for every value a ``[*]`` finds). No value at all never matches."""
        found = values_at(arguments, self.steps)
        if not found:
            return False
        test = all if every else any
        return test(any(_value_matches(v, want) for want in self.values) for v in found)


def _value_matches(value: Any, want: Any) -> bool:
    if isinstance(want, str):
        return isinstance(value, str) and fnmatch.fnmatchcase(value, want)
    return type(value) is type(want) and bool(value == want)


@dataclass(frozen=True)
class Rule:
    """One ``[[rules]]`` entry, checked and compiled."""

    #: Its position in the file, from 1.
    number: int
    decision: Decision
    #: fnmatch patterns for the tool's name; ``("*",)`` when the rule has no ``tool``.
    tools: tuple[str, ...] = ("*",)
    #: Command patterns (`toolplug_policy.shell.command_matches`), or ``None``.
    commands: tuple[str, ...] | None = None
    #: fnmatch patterns of the variables an allow rule's commands may set in the
    #: environment (``LANG=C sort``, ``export LANG=C``); ``None``: none.
    env: tuple[str, ...] | None = None
    paths: PathPatterns | None = None
    arguments: tuple[ArgumentMatch, ...] = ()
    #: Lower-case levels, or ``None``.
    security_risk: frozenset[str] | None = None
    #: Why, in the policy author's words: shown to the model and the approver.
    reason: str | None = None
    #: The file and the line of its ``[[rules]]`` header, for messages.
    file: str = "<policy>"
    line: int | None = None
    #: The tool-name and variable-name patterns compiled once.
    _tool_regex: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _env_regex: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        joined = "|".join(fnmatch.translate(p) for p in self.tools)
        object.__setattr__(self, "_tool_regex", re.compile(joined))
        env = "|".join(fnmatch.translate(p) for p in self.env) if self.env else None
        object.__setattr__(self, "_env_regex", re.compile(env) if env else None)

    def allows_env(self, names: Sequence[str]) -> bool:
        """Whether the ``env`` key names every one of these variables (none: yes)."""
        if not names:
            return True
        regex = self._env_regex
        return regex is not None and all(regex.match(name) for name in names)

    def applies_to(self, names: Sequence[str]) -> bool:
        """Whether the ``tool`` key matches one of the tool's names (:func:`tool_names`)."""
        return any(self._tool_regex.match(name) is not None for name in names)

    def matches(self, facts: CallFacts) -> bool:
        """Whether every key except ``tool`` and ``command`` matches the call."""
        if self.security_risk is not None and facts.risk not in self.security_risk:
            return False
        if self.paths is not None:
            target = facts.path
            if target is None or not self.paths.matches(target):
                return False
        if self.arguments:
            every = self.decision == "allow"
            data = facts.arguments
            if not all(m.matches(data, every=every) for m in self.arguments):
                return False
        return True

    def label(self) -> str:
        """``rule 3 (policy.toml, line 12)``: how messages name it."""
        where = f"{self.file}, line {self.line}" if self.line else self.file
        return f"rule {self.number} ({where})"

    def __str__(self) -> str:
        """The label and the reason: what an approver shows a person."""
        return self.label() + (f": {self.reason}" if self.reason else "")


#: The ``meta`` key under which toolplug-mcp names a tool's server and its own name.
MCP_META = "toolplug/mcp"


def tool_names(tool: Any) -> tuple[str, ...]:
    """The names rules match a tool by: its toolplug name and, for a tool of an MCP
    server (toolplug-mcp names it ``server__tool`` for providers' sake), ``server.tool``."""
    name: str = tool.name
    meta = getattr(tool, "meta", None)
    origin = meta.get(MCP_META) if isinstance(meta, Mapping) else None
    if not isinstance(origin, Mapping) or not isinstance(origin.get("server"), str):
        return (name,)
    server = origin["server"]
    remote = origin.get("tool")
    if not isinstance(remote, str):  # a server's resource tools: "time__read_resource"
        remote = name.removeprefix(f"{server}__")
    return (name, f"{server}.{remote}")


class CallFacts:
    """What rules look at in one call, each worked out once and only when a rule asks."""

    __slots__ = ("_arguments", "_commands", "_named_path", "_path", "action", "limits", "workspace")

    _UNSET: Any = object()

    def __init__(
        self,
        action: Any,
        workspace: Path | None,
        limits: Limits | None = None,
        *,
        path: str | None = None,
    ) -> None:
        self.action = action
        self.workspace = workspace
        self.limits = limits
        self._arguments: Any = self._UNSET
        self._path: Any = self._UNSET
        self._commands: Any = self._UNSET
        #: One of the paths the action names in its own form (``touched_paths``), taken
        #: for its ``path`` field.
        self._named_path = path

    @property
    def risk(self) -> str | None:
        """The ``security_risk`` the model declared, lower-cased, if it declared one: the
        core keeps it on the action (``Action.declared_risk``) when the tool was exported
        with ``security_risk=True``; an action may also have the field itself."""
        value = getattr(self.action, "declared_risk", None)
        if value is None:
            value = _plain(getattr(self.action, "security_risk", None))
        return value.lower() if isinstance(value, str) else None

    @property
    def arguments(self) -> Any:
        """The action as JSON data (what the model sent, after validation)."""
        if self._arguments is self._UNSET:
            dump = getattr(self.action, "model_dump", None)
            self._arguments = dump(mode="json") if dump is not None else {}
        return self._arguments

    @property
    def path(self) -> ResolvedPath | None:
        """The resolved ``path`` of the action: ``None`` when it has no such field; an
        empty or null path is the workspace itself (a search of the whole workspace)."""
        if self._path is self._UNSET:
            named = self._named_path
            raw = named if named is not None else _plain(getattr(self.action, "path", self._UNSET))
            if raw is self._UNSET or not isinstance(raw, (str, type(None))):
                self._path = None
            else:
                self._path = resolve(raw or ".", workspace_of(self.workspace))
        result: ResolvedPath | None = self._path
        return result

    @property
    def commands(self) -> list[Command] | ShellParseError | None:
        """The commands the action's ``command`` field would run, the reason they could
        not be read, or ``None`` when the action has no ``command`` text."""
        if self._commands is self._UNSET:
            text = _plain(getattr(self.action, "command", None))
            self._commands = parsed(text, self.limits) if isinstance(text, str) else None
        result: list[Command] | ShellParseError | None = self._commands
        return result


@functools.lru_cache(maxsize=512)
def _parse_cached(script: str, limits: Limits) -> tuple[Command, ...] | ShellParseError:
    try:
        return tuple(parse_commands(script, limits))
    except ShellTimeout:
        raise  # not cached: another time the machine may be less busy
    except ShellParseError as exc:
        return exc
    except (RecursionError, ValueError) as exc:  # never "allowed" for want of a parse
        return ShellParseError(f"the command could not be parsed ({type(exc).__name__})")


def parsed(script: str, limits: Limits | None = None) -> list[Command] | ShellParseError:
    """The commands of a script (cached: an agent repeats its commands), or the reason
    it could not be read (too long, too slow to read, or unreadable)."""
    limits = limits or Limits()
    try:
        if len(script) > min(16_384, limits.command_chars):  # not worth keeping in the cache
            return _unwrap(_parse_cached.__wrapped__(script, limits))
        return _unwrap(_parse_cached(script, limits))
    except ShellTimeout as exc:
        return exc


def _unwrap(result: tuple[Command, ...] | ShellParseError) -> list[Command] | ShellParseError:
    return result if isinstance(result, ShellParseError) else list(result)


def _plain(value: Any) -> Any:
    """An enum's value, anything else as it is."""
    return value.value if isinstance(value, enum.Enum) else value
