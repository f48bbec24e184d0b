"""What a policy file may hold, as pydantic models: the one check of its keys and types,
and the source of its JSON Schema (``docs/reference/policy.schema.json``).

Each model says what its keys take; :func:`problem` turns a pydantic error into the
sentence a person reads (:mod:`toolplug_policy.loading` adds the file and the line).
The models are built once, at import.

Regenerate the published schema with ``python tools/schemas.py``.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StringConstraints,
    ValidationInfo,
)
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import ErrorDetails, core_schema

from toolplug_policy.paths import GlobError, PathPatterns, compile_paths
from toolplug_policy.rules import (
    RISK_LEVELS,
    ArgumentMatch,
    ArgumentPathError,
    parse_argument_path,
)
from toolplug_policy.shell import Limits

#: Where the published schema lives, as its ``$id``.
SCHEMA_ID = (
    "https://raw.githubusercontent.com/toolplug/toolplug/main/docs/reference/policy.schema.json"
)

_VARIABLE_PATTERN = re.compile(r"[A-Za-z_*?\[][A-Za-z0-9_*?\[\]!-]*")

# -- the types of the values, for the schema: what an editor may check ------------------

_Pattern = Annotated[str, StringConstraints(pattern=r"\S")]
_OneOrMore = _Pattern | Annotated[list[_Pattern], Field(min_length=1)]
_Variable = Annotated[str, StringConstraints(pattern=rf"^{_VARIABLE_PATTERN.pattern}$")]
_Level = Annotated[
    str,
    StringConstraints(
        pattern="^("
        + "|".join("".join(f"[{c.upper()}{c}]" for c in level) for level in RISK_LEVELS)
        + ")$"
    ),
]
#: A path: some text that is not blank, and no NUL byte.
_FilePath = Annotated[str, StringConstraints(pattern=r"^[^\x00]*[^\s\x00][^\x00]*$")]
_Scalar = str | int | float | bool
_Argument = _Scalar | Annotated[list[_Scalar], Field(min_length=1)]
_ArgumentPath = Annotated[str, StringConstraints(pattern=r"^\$")]
_Arguments = Annotated[
    dict[_ArgumentPath, _Argument],
    Field(min_length=1, json_schema_extra={"additionalProperties": False}),
]


# -- the checks a type cannot say, each raising the sentence a person reads ----------------


def _patterns(value: Any, info: ValidationInfo) -> tuple[str, ...]:
    """A string or a non-empty list of non-empty strings, as a tuple."""
    key = info.field_name
    values = value if isinstance(value, list) else [value]
    if not values:
        raise ValueError(f"{key} is an empty list; give at least one pattern")
    for item in values:
        if not isinstance(item, str):
            raise ValueError(f"{key} must be a string or a list of strings, not {_toml_type(item)}")
        if not item.strip():
            raise ValueError(f"{key} holds an empty pattern")
    return tuple(values)


def _commands(value: Any, info: ValidationInfo) -> tuple[str, ...]:
    """Command patterns, each one that splits into words."""
    commands = _patterns(value, info)
    for pattern in commands:
        try:
            words = shlex.split(pattern)
        except ValueError as exc:
            raise ValueError(
                f"command pattern {pattern!r}: cannot be split into words ({exc})"
            ) from None
        if not words:
            raise ValueError(f"command pattern {pattern!r}: has no words")
    return commands


def _variables(value: Any, info: ValidationInfo) -> tuple[str, ...]:
    """Variable names (or patterns of them), on an allow rule that has commands."""
    names = _patterns(value, info)
    for name in names:
        if not _VARIABLE_PATTERN.fullmatch(name):
            raise ValueError(f"env: {name!r} is not a variable name or a pattern of names")
    # The keys before this one, checked: a key that failed is absent (its error is shown).
    if info.data.get("command", ...) is None:
        raise ValueError("env names the variables a rule's commands may set; add command")
    if info.data.get("decision", "allow") != "allow":
        raise ValueError(
            "env is for allow rules (a deny or ask rule matches a command whatever it sets)"
        )
    return names


def _paths(value: Any, info: ValidationInfo) -> PathPatterns:
    """Path globs, compiled."""
    try:
        return compile_paths(_patterns(value, info))
    except GlobError as exc:
        raise ValueError(f"path: {exc}") from None


def _levels(value: Any, info: ValidationInfo) -> frozenset[str]:
    """Risk levels, lower-cased."""
    lowered = frozenset(level.lower() for level in _patterns(value, info))
    unknown = sorted(lowered - set(RISK_LEVELS))
    if unknown:
        raise ValueError(f"unknown security_risk level {unknown[0]!r} ({_either(RISK_LEVELS)})")
    return lowered


def _arguments(value: Any) -> tuple[ArgumentMatch, ...]:
    """A table of JSON paths to the values wanted there."""
    if not isinstance(value, dict) or not value:
        raise ValueError('arguments must be a table such as { "$.url" = "http://*" }')
    matches = []
    for path, wanted in value.items():
        try:
            steps = parse_argument_path(path)
        except ArgumentPathError as exc:
            raise ValueError(f"arguments: {exc}") from None
        values = wanted if isinstance(wanted, list) else [wanted]
        if not values or any(isinstance(v, (dict, list)) for v in values):
            raise ValueError(
                f"arguments: {path!r} must be a value (a string pattern, a number, a "
                "boolean) or a list of them"
            )
        matches.append(ArgumentMatch(path, steps, tuple(values)))
    return tuple(matches)


# -- the models ------------------------------------------------------------------------

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True, arbitrary_types_allowed=True)


class LimitsTable(BaseModel):
    """How much the policy reads of one command before it refuses it."""

    model_config = _STRICT

    command_chars: Annotated[int, Field(ge=1)] = Field(
        default=Limits.command_chars,
        description="The longest command read, in characters; a longer one is refused "
        "before it is parsed.",
    )
    parse_seconds: Annotated[float, Field(gt=0)] = Field(
        default=Limits.parse_seconds,
        description="The longest time spent reading one command, in seconds.",
    )


class RuleTable(BaseModel):
    """One [[rules]] entry: it matches a call when every key it has matches."""

    model_config = _STRICT

    decision: Literal["allow", "ask", "deny"] = Field(
        description="What the rule decides for a call it matches."
    )
    tool: Annotated[
        tuple[str, ...], PlainValidator(_patterns, json_schema_input_type=_OneOrMore)
    ] = Field(
        default=("*",),
        description="fnmatch patterns of the tool's name (an MCP server's tool also by "
        "`server.tool`); none: every tool.",
    )
    command: Annotated[
        tuple[str, ...] | None, PlainValidator(_commands, json_schema_input_type=_OneOrMore)
    ] = Field(
        default=None,
        description="Word patterns matched against each command the action's `command` "
        "text would run.",
    )
    env: Annotated[
        tuple[str, ...] | None,
        PlainValidator(
            _variables,
            json_schema_input_type=_Variable | Annotated[list[_Variable], Field(min_length=1)],
        ),
    ] = Field(
        default=None,
        description="(Allow rules with `command` only.) fnmatch patterns of the "
        "variables the allowed commands may set.",
    )
    path: Annotated[
        PathPatterns | None, PlainValidator(_paths, json_schema_input_type=_OneOrMore)
    ] = Field(
        default=None,
        description="Globs of the path the call would touch; `!` excludes.",
    )
    arguments: Annotated[
        tuple[ArgumentMatch, ...] | None,
        PlainValidator(
            _arguments,
            json_schema_input_type=_Arguments,
        ),
    ] = Field(
        default=None,
        description="JSON paths into the call's arguments and the values wanted there, "
        'as { "$.url" = "http://*" }.',
    )
    security_risk: Annotated[
        frozenset[str] | None,
        PlainValidator(
            _levels, json_schema_input_type=_Level | Annotated[list[_Level], Field(min_length=1)]
        ),
    ] = Field(
        default=None,
        description="The risk levels the model declared with the call (any case).",
    )
    reason: str | None = Field(
        default=None, description="Why: shown to the model in a refusal, and to the approver."
    )


class PolicyFile(BaseModel):
    """A policy file: each call of a tool is allowed, asked about or denied by its rules."""

    model_config = ConfigDict(
        **_STRICT,
        title="toolplug policy",
        json_schema_extra={"$id": SCHEMA_ID},
    )

    default: Literal["allow", "ask", "deny"] = Field(
        default="ask", description="What calls no rule matches get."
    )
    audit_log: _FilePath | None = Field(
        default=None,
        description="A JSON Lines file every decision is written to; relative to the policy file.",
    )
    limits: LimitsTable = Field(
        default_factory=LimitsTable,
        description="How much of one command is read before it is refused.",
    )
    rules: list[RuleTable] = Field(
        default_factory=list, description="The rules, in the order they are written."
    )


# -- what a pydantic error means, in words -----------------------------------------------

#: The order in which a person is told about problems: a file's first problem in
#: reading order of the keys as the checks have always gone (unknown keys first).
_ORDER = {
    **{key: i for i, key in enumerate(PolicyFile.model_fields)},
    **{key: i for i, key in enumerate(LimitsTable.model_fields)},
    **{
        key: i
        for i, key in enumerate(
            ("decision", "reason", "tool", "command", "env", "path", "arguments", "security_risk")
        )
    },
}
#: The sentence for an error at a place, whatever pydantic found wrong there ('#': a
#: position in a list).
_AT = {
    "default": "default: unknown decision {input!r} (allow, ask or deny)",
    "audit_log": "audit_log must be a file path (a string)",
    "limits": "limits must be a table ([limits] followed by key = value lines)",
    "limits.command_chars": "limits: command_chars must be a whole number of characters, 1 or more",
    "limits.parse_seconds": "limits: parse_seconds must be a number of seconds above 0",
    "rules": "rules must be an array of tables ([[rules]])",
    "rules.#": "a rule is a table of keys ([[rules]] followed by key = value lines)",
    "rules.#.decision": "unknown decision {input!r} (allow, ask or deny)",
    "rules.#.reason": "reason must be a string",
}
#: The keys each table has, for an unknown one.
_UNKNOWN = {
    "": "unknown key '{key}' (a policy has {keys})",
    "limits": "limits: unknown key '{key}' (limits has {keys})",
    "rules.#": "unknown key '{key}' (a rule has {keys})",
}
_KEYS = {
    "": tuple(PolicyFile.model_fields),
    "limits": tuple(LimitsTable.model_fields),
    "rules.#": tuple(RuleTable.model_fields),
}


def first(errors: list[ErrorDetails]) -> ErrorDetails:
    """The error to report of several: the first in the order of the checks."""

    def rank(error: ErrorDetails) -> tuple[int, ...]:
        return tuple(p if isinstance(p, int) else _ORDER.get(p, -1) for p in error["loc"])

    return min(errors, key=rank)


def problem(error: ErrorDetails) -> str:
    """What is wrong, in words (without the file and the line)."""
    loc = error["loc"]
    if error["type"] == "value_error":
        return str(error.get("ctx", {})["error"])
    if error["type"] == "missing":
        return 'no decision (add decision = "allow", "ask" or "deny")'
    if error["type"] == "extra_forbidden":
        table = place(loc[:-1])
        known = _UNKNOWN[table].format(key=loc[-1], keys=", ".join(_KEYS[table]))
        close = difflib.get_close_matches(str(loc[-1]), _KEYS[table], n=1)
        return f"{known}; did you mean '{close[0]}'?" if close else known
    return _AT[place(loc)].format(input=error["input"])


def place(loc: tuple[int | str, ...]) -> str:
    """A location as a key of the tables above: ``rules.#.decision``."""
    return ".".join("#" if isinstance(p, int) else p for p in loc)


def _either(choices: tuple[str, ...]) -> str:
    """``allow, ask or deny``."""
    return ", ".join(choices[:-1]) + " or " + choices[-1]


def _toml_type(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", dict: "a table"}
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    return "a list" if isinstance(value, list) else type(value).__name__


# -- the published schema ------------------------------------------------------------------


class _TomlSchema(GenerateJsonSchema):
    """TOML has no null: an optional key is one left out, so ``null`` is not offered."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        json_schema = super().default_schema(schema)
        if json_schema.get("default", ...) is None:
            del json_schema["default"]
        return json_schema


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a policy file (``$schema``, ``$id``, title and description set)."""
    schema = PolicyFile.model_json_schema(schema_generator=_TomlSchema)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    """:func:`json_schema` as the committed file holds it."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
