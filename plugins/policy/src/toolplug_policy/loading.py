"""Reading a policy file: TOML in, a checked :class:`Policy` out, or a `PolicyError`
that names the file, the line and the problem.

What the file may hold is checked by the pydantic models of :mod:`toolplug_policy.model`;
this module reads the text and says where a problem is. TOML parsers do not say where a
value was written, so the line of a rule is found from its ``[[rules]]`` header in the
text (the n-th header is rule n), and the line of a key from the first line inside that
rule's block that assigns it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import NoReturn

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from toolplug import PolicyError

from toolplug_policy.model import PolicyFile, RuleTable, first, problem
from toolplug_policy.policy import Policy
from toolplug_policy.rules import Rule
from toolplug_policy.shell import Limits

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the same parser, before it joined the standard library
    import tomli as tomllib

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

    # -- reading ---------------------------------------------------------------------

    def policy(self, base: Path) -> Policy:
        """Parse the text, check it against :class:`PolicyFile`, and build the policy."""
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            found = _TOML_LINE.search(message)
            line = int(found[1]) if found else None
            self.fail(line, f"not valid TOML: {_TOML_LINE.sub('', message).strip()}")
        rules = data.get("rules")
        self._rule_count = len(rules) if isinstance(rules, list) else 0
        try:
            checked = PolicyFile.model_validate(data)
        except ValidationError as exc:
            self.refuse(first(exc.errors()))
        audit_log = None
        if checked.audit_log is not None:
            path = Path(checked.audit_log).expanduser()
            audit_log = path if path.is_absolute() else base / path
        limits = checked.limits
        return Policy(
            rules=[self.rule(i, table) for i, table in enumerate(checked.rules)],
            default=checked.default,
            audit_log=audit_log,
            limits=Limits(limits.command_chars, float(limits.parse_seconds)),
            file=self.file,
        )

    def rule(self, index: int, table: RuleTable) -> Rule:
        """The checked ``[[rules]]`` table ``index`` (from 0) as a :class:`Rule`."""
        return Rule(
            number=index + 1,
            decision=table.decision,
            tools=table.tool,
            commands=table.command,
            env=table.env,
            paths=table.path,
            arguments=table.arguments or (),
            security_risk=table.security_risk,
            reason=table.reason,
            file=self.file,
            line=self.rule_span(index)[0],
        )

    # -- errors ----------------------------------------------------------------------

    def fail(self, line: int | None, message: str) -> NoReturn:
        where = f"{self.file}, line {line}" if line else self.file
        raise PolicyError(f"{where}: {message}")

    def refuse(self, error: ErrorDetails) -> NoReturn:
        """Raise the `PolicyError` for a pydantic error: its line, then the problem."""
        loc = error["loc"]
        if loc[:1] == ("rules",) and len(loc) > 1 and isinstance(loc[1], int):
            key = loc[2] if len(loc) > 2 and error["type"] != "missing" else None
            self.fail_in_rule(loc[1], str(key) if key is not None else None, problem(error))
        top = str(loc[0]) if loc else ""
        line = (self.key_line(top) or self.table_line(top)) if top else None
        self.fail(line, problem(error))

    def fail_in_rule(self, index: int, key: str | None, message: str) -> NoReturn:
        """Name the line of ``key`` in rule ``index`` and the rule's own line, or the
        rule's line alone when the key's is not found (or is the rule's)."""
        number = index + 1
        start, end = self.rule_span(index)
        line = self.key_line(key, start, end) if key and start else None
        if line and line != start:  # the key's own line, and where its rule starts
            self.fail(line, f"rule {number} ([[rules]] at line {start}): {message}")
        self.fail(line or start or self.key_line("rules"), f"rule {number}: {message}")

    def key_line(self, key: str, start: int = 1, end: int | None = None) -> int | None:
        """The first line in ``start..end`` that assigns ``key`` (``key =``, ``key.x =``)."""
        name = re.escape(key)
        pattern = re.compile(rf"""^\s*(?:{name}|"{name}"|'{name}')\s*[=.]""")
        stop = end if end is not None else len(self.lines)
        for number in range(start, stop + 1):
            if number - 1 < len(self.lines) and pattern.match(self.lines[number - 1]):
                return number
        return None

    def table_line(self, name: str) -> int | None:
        """The line of a ``[name]`` table header."""
        header = re.compile(rf"^\s*\[\s*{re.escape(name)}\s*\]")
        for number, line in enumerate(self.lines, start=1):
            if header.match(line):
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
