"""What each provider refuses in a request's tool definitions, checked before the request.

One table, :data:`LIMITS`, holds every cap toolplug knows per export format, each with
where it is documented. A cap no provider documents is not invented: the table says
``None`` and the docs say "not documented". :func:`check` reads the definitions exactly as
:meth:`toolplug.Toolset.export` made them and returns one :class:`Violation` per broken
rule, naming the tool, the rule and what to do (defer it, simplify it, drop it).

Deferred tools (:mod:`toolplug.deferral`) that the provider loads only when its own
tool search finds them (``"defer_loading": true`` for ``anthropic`` and ``responses``)
do not count towards the cap on tools; their schemas are still checked. Neither
provider documents whether deferred tools count towards a cap: this follows what
deferral is for (OpenAI's and Anthropic's tool search guides present it as the way past
large tool sets).

Two rules are heuristics, not provider figures, and say so in their messages: Gemini's
refusals of complex schemas ("too many states") and of deep nesting. Gemini documents
that large or deeply nested schemas may be refused, not where the line is; the
:func:`states` estimate grows with what a constrained decoder must track (enum values,
optional properties, levels of nesting, multiplied) and the threshold is set far above
toolplug's own tools.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from toolplug.errors import LimitError, LimitWarning, limit_report

__all__ = [
    "LIMITS",
    "Check",
    "FormatLimits",
    "LimitError",
    "LimitWarning",
    "Violation",
    "check",
    "definitions",
    "enforce",
    "states",
]

Check = Literal["warn", "error", "off"]


@dataclass(frozen=True)
class FormatLimits:
    """The caps of one export format, each with its source (``None``: not documented)."""

    #: Tools one request may declare.
    max_tools: int | None
    max_tools_source: str
    #: The tool names the provider takes. Exports never break it: names are mapped to
    #: fit every provider (:mod:`toolplug.names`), so it is documented, not checked.
    name_pattern: str
    name_source: str
    #: The description's length cap; no provider documents one.
    description_source: str = "no length cap documented"
    #: Strict mode's schema caps (OpenAI Structured Outputs), applied with ``strict=True``.
    strict_max_properties: int | None = None
    strict_max_depth: int | None = None
    strict_max_enum_values: int | None = None
    strict_source: str = ""
    #: Heuristic schema caps (see :func:`states`); ``None`` where none applies.
    heuristic_max_states: int | None = None
    heuristic_max_depth: int | None = None


_OPENAI_STRICT = (
    "OpenAI Structured Outputs guide, 'Supported schemas': at most 5000 object "
    "properties in total, 10 levels of nesting, 1000 enum values"
)
_OPENAI_NAME = r"[a-zA-Z0-9_-]{1,64}"

_OPENAI_CHAT = FormatLimits(
    max_tools=128,
    max_tools_source="OpenAI API reference, Chat Completions `tools`: "
    "'A max of 128 functions are supported'",
    name_pattern=_OPENAI_NAME,
    name_source="OpenAI API reference, function `name`",
    strict_max_properties=5000,
    strict_max_depth=10,
    strict_max_enum_values=1000,
    strict_source=_OPENAI_STRICT,
)

#: Every known cap, by export format name. Formats not listed (``mcp``, ``toolplug``,
#: a plugin's) are not checked.
LIMITS: Mapping[str, FormatLimits] = {
    "openai": _OPENAI_CHAT,
    # The Responses API takes the same functions under the same caps.
    "responses": replace(
        _OPENAI_CHAT,
        max_tools_source="OpenAI function calling guide: the same 128-function cap "
        "as Chat Completions",
    ),
    "anthropic": FormatLimits(
        max_tools=None,
        max_tools_source="not documented",
        name_pattern=r"[a-zA-Z0-9_-]{1,128}",
        name_source="Anthropic Messages API reference, tool `name`",
    ),
    "gemini": FormatLimits(
        max_tools=512,
        max_tools_source="Gemini API `Tool.functionDeclarations` (google-genai types): "
        "'Maximum 512 function declarations can be provided'",
        name_pattern=r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}",
        name_source="Gemini API `FunctionDeclaration.name`",
        heuristic_max_states=2_000,
        heuristic_max_depth=8,
    ),
    "bedrock": FormatLimits(
        max_tools=None,
        max_tools_source="not documented (the Converse API model sets a minimum of one "
        "tool, no maximum)",
        name_pattern=r"[a-zA-Z0-9_-]{1,64}",
        name_source="Bedrock Converse API model (botocore), `ToolSpecification.name`",
        description_source="no length cap documented; at least one character when sent "
        "(the Converse API model), so an empty description is left out",
    ),
}


@dataclass(frozen=True)
class Violation:
    """One rule one tool (or the whole set, ``tool=None``) breaks for one format."""

    format: str
    tool: str | None
    rule: str
    message: str
    advice: str

    def __str__(self) -> str:
        who = f"{self.tool}: " if self.tool else ""
        return f"{self.format}: {who}{self.message} ({self.rule}); {self.advice}"


def _report(violations: Sequence[Violation]) -> str:
    return limit_report(violations)


def definitions(format: str, exported: Sequence[Any]) -> list[tuple[str, str, Any]]:
    """``(name, description, parameters schema)`` of each tool in an export's list.

    A provider's own tools in the list (Anthropic's and OpenAI's tool search) are not
    definitions and are left out; the functions of an OpenAI ``namespace`` are listed.
    """
    return [(name, description, schema) for name, description, schema, _ in _rows(format, exported)]


def _rows(format: str, exported: Sequence[Any]) -> list[tuple[str, str, Any, bool]]:
    """:func:`definitions`, each with whether the provider loads it only on demand
    (``"defer_loading": true``)."""
    if format == "gemini":
        items = [d for tool in exported for d in tool.get("functionDeclarations", [])]
        return [(d["name"], d.get("description", ""), d.get("parameters"), False) for d in items]
    rows = []
    for item in exported:
        later = bool(item.get("defer_loading"))
        if format == "openai":
            fn = item["function"]
            rows.append((fn["name"], fn.get("description", ""), fn.get("parameters"), later))
        elif format == "responses":
            if item.get("type") == "namespace":
                rows += _rows(format, item.get("tools") or [])
            elif item.get("type", "function") == "function":
                schema = item.get("parameters")
                rows.append((item["name"], item.get("description", ""), schema, later))
        elif format == "anthropic":
            if "input_schema" in item:  # not the tool search tool
                schema = item.get("input_schema")
                rows.append((item["name"], item.get("description", ""), schema, later))
        elif format == "bedrock":
            spec = item["toolSpec"]
            schema = spec.get("inputSchema", {}).get("json")
            rows.append((spec["name"], spec.get("description", ""), schema, later))
    return rows


def _walk(node: Any, depth: int = 1) -> Iterator[tuple[dict[str, Any], int]]:
    """Every schema object below ``node`` with its nesting depth (the root is 1)."""
    if isinstance(node, list):
        for item in node:
            yield from _walk(item, depth)
        return
    if not isinstance(node, dict):
        return
    yield node, depth
    for key, value in node.items():
        if key in ("properties", "$defs", "definitions", "patternProperties"):
            if isinstance(value, dict):
                for child in value.values():
                    yield from _walk(child, depth + 1)
        elif key in ("items", "additionalProperties", "not"):
            yield from _walk(value, depth + 1)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            yield from _walk(value, depth)


@dataclass(frozen=True)
class _Shape:
    """What the schema rules measure, from one walk over a schema."""

    depth: int  # levels of nesting: a flat object of scalars is 2 (the root, its fields)
    properties: int
    optional: int  # properties left out of their object's ``required``
    enum_values: int

    @property
    def states(self) -> int:
        return (self.enum_values + 1) * (self.optional + 1) * max(1, self.depth)


def _shape(schema: Any) -> _Shape:
    depth = properties = optional = enum_values = 0
    for node, level in _walk(schema):
        depth = max(depth, level)
        props = node.get("properties")
        if isinstance(props, dict):
            required = node.get("required") or []
            properties += len(props)
            optional += sum(1 for name in props if name not in required)
        enum = node.get("enum")
        if isinstance(enum, list):
            enum_values += len(enum)
    return _Shape(depth, properties, optional, enum_values)


def states(schema: Any) -> int:
    """A heuristic estimate of a schema's complexity for a constrained decoder.

    ``(enum values + 1) * (optional properties + 1) * depth``: each enum value is a
    branch, each optional property a key the decoder may or may not see, and nesting
    multiplies both. It is a heuristic: no provider publishes its count, and Gemini's
    "too many states" refusals depend on more than this. It ranks schemas and flags the
    ones far past toolplug's own.
    """
    return _shape(schema).states


def check(format: str, exported: Sequence[Any], **options: Any) -> list[Violation]:
    """Every limit the export ``exported`` (as made for ``format``) breaks.

    ``options`` are the export's (``strict=True`` adds OpenAI's strict-mode caps). An
    unknown format has no known limits: the answer is empty.
    """
    limits = LIMITS.get(format)
    if limits is None:
        return []
    every = _rows(format, exported)
    rows = [(name, description, schema) for name, description, schema, _ in every]
    # Deferred tools (``defer_loading``) load only when the provider's tool search finds
    # them, so the cap on tools counts the others (where a format has no search of its
    # own, deferred tools are left out of the export and none is marked).
    loaded = sum(1 for *_, later in every if not later)
    found: list[Violation] = []

    def add(tool: str | None, rule: str, message: str, advice: str) -> None:
        found.append(Violation(format, tool, rule, message, advice))

    if limits.max_tools is not None and loaded > limits.max_tools:
        add(
            None,
            f"at most {limits.max_tools} tools: {limits.max_tools_source}",
            f"{loaded} tools declared, {loaded - limits.max_tools} too many",
            "defer some tools (load them on demand) or drop the ones this task does not need",
        )
    strict = bool(options.get("strict"))
    for name, _description, schema in rows:
        if not strict and limits.heuristic_max_depth is None:
            continue
        shape = _shape(schema)
        if strict and limits.strict_max_depth is not None:
            _check_strict(limits, name, shape, add)
        if limits.heuristic_max_depth is not None and shape.depth > limits.heuristic_max_depth:
            add(
                name,
                f"heuristic, not a documented figure: nesting depth at most "
                f"{limits.heuristic_max_depth}",
                f"the parameters nest {shape.depth} levels deep; deeply nested schemas "
                "may be refused",
                "simplify the schema (flatten nested objects) or defer the tool",
            )
        cap = limits.heuristic_max_states
        if cap is not None and shape.states > cap:
            add(
                name,
                "heuristic, not a documented figure: states estimate (enum values + 1) x "
                f"(optional properties + 1) x depth at most {cap:,}",
                f"the parameters' states estimate is {shape.states:,}: the provider may "
                "refuse the schema as too complex",
                "simplify the schema (fewer optional properties, shorter enums, less "
                "nesting) or defer or drop the tool",
            )
    return found


def _check_strict(limits: FormatLimits, name: str, shape: _Shape, add: Any) -> None:
    advice = "simplify the schema, or export without strict=True"
    rule = f"strict: {limits.strict_source}"
    if limits.strict_max_depth is not None and shape.depth > limits.strict_max_depth:
        add(name, rule, f"the parameters nest {shape.depth} levels deep", advice)
    if limits.strict_max_properties is not None and shape.properties > limits.strict_max_properties:
        add(name, rule, f"the parameters have {shape.properties} properties", advice)
    if (
        limits.strict_max_enum_values is not None
        and shape.enum_values > limits.strict_max_enum_values
    ):
        add(name, rule, f"the parameters have {shape.enum_values} enum values", advice)


def enforce(format: str, exported: Sequence[Any], mode: Check | str, **options: Any) -> None:
    """Act on :func:`check`'s findings: warn (:class:`LimitWarning`), raise
    (:class:`LimitError`) or, with ``"off"``, do nothing."""
    if mode == "off":
        return
    if mode not in ("warn", "error"):
        raise ValueError(f"check must be 'warn', 'error' or 'off', not {mode!r}")
    found = check(format, exported, **options)
    if not found:
        return
    if mode == "error":
        raise LimitError(found)
    warnings.warn(_report(found), LimitWarning, stacklevel=3)
