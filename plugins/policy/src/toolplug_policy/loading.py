"""Reading a policy file: TOML in, a checked :class:`Policy` out, or a `PolicyError`
that names the file, the line and the problem.

TOML parsers do not say where a value was written, so the line of a rule is found from
its ``[[rules]]`` header in the text (the n-th header is rule n), and the line of a key
from the first line inside that rule's block that assigns it.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from toolplug import PolicyError

from toolplug_policy.paths import GlobError, compile_paths
from toolplug_policy.policy import Policy
from toolplug_policy.rules import (
    RISK_LEVELS,
    ArgumentMatch,
    ArgumentPathError,
    Decision,
    Rule,
    parse_argument_path,
)
from toolplug_policy.shell import Limits

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the same parser, before it joined the standard library
    import tomli as tomllib

DECISIONS: tuple[Decision, ...] = ("allow", "ask", "deny")
TOP_KEYS = ("default", "audit_log", "limits", "rules")
RULE_KEYS = (
    *("decision", "tool", "command", "env", "path", "arguments", "security_risk", "reason"),
)
LIMIT_KEYS = ("command_chars", "parse_seconds")
_VARIABLE_PATTERN = re.compile(r"[A-Za-z_*?\[][A-Za-z0-9_*?\[\]!-]*")

_HEADER = re.compile(r"^\s*\[\[\s*rules\s*\]\]")
_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


def load(path: str | Path) -> Policy:
    """Read and check the policy file at ``path``; raises `PolicyError`."""
    name = str(path)
    try:
        text = Path(path).expanduser().read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise PolicyError(f"{name}: no such policy file") from None
    except UnicodeDecodeError as exc:
        raise PolicyError(f"{name}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except OSError as exc:
        raise PolicyError(f"{name}: cannot be read: {exc.strerror or exc}") from None
    return loads(text, file=name, base=Path(path).expanduser().resolve().parent)


def loads(text: str, *, file: str = "<policy>", base: Path | None = None) -> Policy:
    """Check a policy given as TOML text; ``base`` anchors a relative ``audit_log``."""
    return _Reader(text, file).policy(base if base is not None else Path.cwd())


class _Reader:
    """One file's text, for reading it and for naming lines in errors."""

    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.file = file
        self.lines = text.splitlines()
        self.headers = [i + 1 for i, line in enumerate(self.lines) if _HEADER.match(line)]
        #: How many rules the TOML holds: when the headers found are as many, the n-th
        #: header is rule n (else the rules are written inline, and have no header).
        self._rule_count = 0

    # -- errors ----------------------------------------------------------------------

    def fail(self, line: int | None, message: str) -> NoReturn:
        where = f"{self.file}, line {line}" if line else self.file
        raise PolicyError(f"{where}: {message}")

    def key_line(self, key: str, start: int = 1, end: int | None = None) -> int | None:
        """The first line in ``start..end`` that assigns ``key`` (``key =``, ``key.x =``)."""
        name = re.escape(key)
        pattern = re.compile(rf"""^\s*(?:{name}|"{name}"|'{name}')\s*[=.]""")
        stop = end if end is not None else len(self.lines)
        for number in range(start, stop + 1):
            if number - 1 < len(self.lines) and pattern.match(self.lines[number - 1]):
                return number
        return None

    def rule_span(self, index: int) -> tuple[int | None, int | None]:
        """The lines of rule ``index`` (from 0): its header and the last line before the
        next header, or ``(None, None)`` when the rules are not written as headers."""
        if len(self.headers) != self._rule_count or index >= len(self.headers):
            return None, None
        start = self.headers[index]
        end = self.headers[index + 1] - 1 if index + 1 < len(self.headers) else None
        return start, end

    # -- reading ---------------------------------------------------------------------

    def policy(self, base: Path) -> Policy:
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            found = _TOML_LINE.search(message)
            line = int(found[1]) if found else None
            self.fail(line, f"not valid TOML: {_TOML_LINE.sub('', message).strip()}")
        for key in data:
            if key not in TOP_KEYS:
                self.fail(
                    self.key_line(key),
                    f"unknown key '{key}' (a policy has {', '.join(TOP_KEYS)})",
                )
        default = data.get("default", "ask")
        if default not in DECISIONS:
            self.fail(
                self.key_line("default"),
                f"default: unknown decision {default!r} ({_either(DECISIONS)})",
            )
        audit_log = self.audit_path(data.get("audit_log"), base)
        limits = self.limits(data.get("limits"))
        raw_rules = data.get("rules", [])
        if not isinstance(raw_rules, list):
            self.fail(self.key_line("rules"), "rules must be an array of tables ([[rules]])")
        self._rule_count = len(raw_rules)
        rules = [self.rule(i, raw) for i, raw in enumerate(raw_rules)]
        return Policy(
            rules=rules, default=default, audit_log=audit_log, limits=limits, file=self.file
        )

    def audit_path(self, value: Any, base: Path) -> Path | None:
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip() or "\0" in value:
            self.fail(self.key_line("audit_log"), "audit_log must be a file path (a string)")
        path = Path(value).expanduser()
        return path if path.is_absolute() else base / path

    def limits(self, value: Any) -> Limits:
        """The ``[limits]`` table: how long a command may be, and how long reading it."""
        if value is None:
            return Limits()
        line = self.key_line("limits") or self.table_line("limits")
        if not isinstance(value, dict):
            self.fail(line, "limits must be a table ([limits] followed by key = value lines)")
        for key in value:
            if key not in LIMIT_KEYS:
                self.fail(line, f"limits: unknown key '{key}' (limits has {', '.join(LIMIT_KEYS)})")
        chars = value.get("command_chars", Limits.command_chars)
        if isinstance(chars, bool) or not isinstance(chars, int) or chars < 1:
            self.fail(line, "limits: command_chars must be a whole number of characters, 1 or more")
        seconds = value.get("parse_seconds", Limits.parse_seconds)
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
            self.fail(line, "limits: parse_seconds must be a number of seconds above 0")
        return Limits(command_chars=chars, parse_seconds=float(seconds))

    def table_line(self, name: str) -> int | None:
        """The line of a ``[name]`` table header."""
        header = re.compile(rf"^\s*\[\s*{re.escape(name)}\s*\]")
        for number, line in enumerate(self.lines, start=1):
            if header.match(line):
                return number
        return None

    def rule(self, index: int, raw: Any) -> Rule:
        number = index + 1
        start, end = self.rule_span(index)
        fallback = start or self.key_line("rules")

        def fail(key: str | None, message: str) -> NoReturn:
            line = self.key_line(key, start, end) if key and start else None
            if line and line != start:  # the key's own line, and where its rule starts
                self.fail(line, f"rule {number} ([[rules]] at line {start}): {message}")
            self.fail(line or fallback, f"rule {number}: {message}")

        if not isinstance(raw, dict):
            fail(None, "a rule is a table of keys ([[rules]] followed by key = value lines)")
        for key in raw:
            if key not in RULE_KEYS:
                fail(key, f"unknown key '{key}' (a rule has {', '.join(RULE_KEYS)})")
        if "decision" not in raw:
            fail(None, 'no decision (add decision = "allow", "ask" or "deny")')
        decision = raw["decision"]
        if decision not in DECISIONS:
            fail("decision", f"unknown decision {decision!r} ({_either(DECISIONS)})")
        reason = raw.get("reason")
        if reason is not None and not isinstance(reason, str):
            fail("reason", "reason must be a string")
        tools = _strings(raw.get("tool", "*"), lambda m: fail("tool", f"tool {m}"))
        commands = None
        if "command" in raw:
            commands = _strings(raw["command"], lambda m: fail("command", f"command {m}"))
            for pattern in commands:
                problem = _command_problem(pattern)
                if problem:
                    fail("command", f"command pattern {pattern!r}: {problem}")
        env = None
        if "env" in raw:
            env = _strings(raw["env"], lambda m: fail("env", f"env {m}"))
            for name in env:
                if not _VARIABLE_PATTERN.fullmatch(name):
                    fail("env", f"env: {name!r} is not a variable name or a pattern of names")
            if commands is None:
                fail("env", "env names the variables a rule's commands may set; add command")
            if decision != "allow":
                fail(
                    "env",
                    "env is for allow rules (a deny or ask rule matches a command whatever "
                    "it sets)",
                )
        paths = None
        if "path" in raw:
            globs = _strings(raw["path"], lambda m: fail("path", f"path {m}"))
            try:
                paths = compile_paths(globs)
            except GlobError as exc:
                fail("path", f"path: {exc}")
        arguments = self.arguments(raw.get("arguments"), lambda m: fail("arguments", m))
        risk = None
        if "security_risk" in raw:
            levels = _strings(
                raw["security_risk"], lambda m: fail("security_risk", f"security_risk {m}")
            )
            lowered = frozenset(level.lower() for level in levels)
            unknown = sorted(lowered - set(RISK_LEVELS))
            if unknown:
                fail(
                    "security_risk",
                    f"unknown security_risk level {unknown[0]!r} ({_either(RISK_LEVELS)})",
                )
            risk = lowered
        return Rule(
            number=number,
            decision=decision,
            tools=tuple(tools),
            commands=tuple(commands) if commands is not None else None,
            env=tuple(env) if env is not None else None,
            paths=paths,
            arguments=arguments,
            security_risk=risk,
            reason=reason,
            file=self.file,
            line=start,
        )

    def arguments(self, value: Any, fail: Callable[[str], NoReturn]) -> tuple[ArgumentMatch, ...]:
        if value is None:
            return ()
        if not isinstance(value, dict) or not value:
            fail('arguments must be a table such as { "$.url" = "http://*" }')
        matches = []
        for path, wanted in value.items():
            try:
                steps = parse_argument_path(path)
            except ArgumentPathError as exc:
                fail(f"arguments: {exc}")
            values = wanted if isinstance(wanted, list) else [wanted]
            if not values or any(isinstance(v, (dict, list)) for v in values):
                fail(
                    f"arguments: {path!r} must be a value (a string pattern, a number, a "
                    "boolean) or a list of them"
                )
            matches.append(ArgumentMatch(path, steps, tuple(values)))
        return tuple(matches)


def _strings(value: Any, fail: Callable[[str], NoReturn]) -> list[str]:
    """A string or a non-empty list of non-empty strings, as a list."""
    values = value if isinstance(value, list) else [value]
    if not values:
        fail("is an empty list; give at least one pattern")
    for item in values:
        if not isinstance(item, str):
            fail(f"must be a string or a list of strings, not {_toml_type(item)}")
        if not item.strip():
            fail("holds an empty pattern")
    return values


def _command_problem(pattern: str) -> str | None:
    """What keeps a command pattern from being read as words, or ``None``."""
    try:
        words = shlex.split(pattern)
    except ValueError as exc:
        return f"cannot be split into words ({exc})"
    if not words:
        return "has no words"
    return None


def _either(choices: tuple[str, ...]) -> str:
    """``allow, ask or deny``."""
    return ", ".join(choices[:-1]) + " or " + choices[-1]


def _toml_type(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", dict: "a table"}
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    return "a list" if isinstance(value, list) else type(value).__name__
