"""A server's JSON schemas: exported without losing information, and used to validate.

The exported input schema is the server's own, with only what providers reject taken
out or rewritten: ``$schema`` and ``$id`` go, draft-07 ``definitions`` become ``$defs``
(and their ``$ref``s follow), and the root is always an object with ``properties``.
Defaults, bounds, formats, ``additionalProperties``, titles and descriptions all stay.
The declared ``$schema`` is kept apart (:func:`dialect`): the MCP export gives it back.

A listed tool whose schema cannot be used (not a valid JSON schema, or nested deeper
than :data:`MAX_DEPTH`, even past what the MCP SDK reads: :mod:`~toolplug_mcp.client.wire`
cuts those out before the SDK reads the list) is left out alone, with a warning naming
it (:func:`usable_tools`); the server's other tools stay. Arguments are validated with
the server's regular expressions run by RE2 (:mod:`~toolplug_mcp.client.patterns`).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator

from toolplug_mcp.client.patterns import linear_validator, prepare
from toolplug_mcp.client.wire import TOO_DEEP

log = logging.getLogger("toolplug.mcp")

#: How deep a server's schema may nest (dicts and lists) before its tool is left out:
#: far beyond any real tool, well within what validating and exporting it can walk.
MAX_DEPTH = 64

_DROPPED_KEYS = ("$schema", "$id", "id")
_OLD_DEFS = "#/definitions/"


def export_schema(schema: Any) -> dict[str, Any]:
    """The server's input schema, in a shape every provider accepts."""
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    out = copy.deepcopy(schema)
    for key in _DROPPED_KEYS:
        if not isinstance(out.get(key), dict):  # "id" could be a property name elsewhere
            out.pop(key, None)
    if "definitions" in out and isinstance(out["definitions"], dict):
        old = out.pop("definitions")
        out["$defs"] = {**old, **out.get("$defs", {})}
        out = _rewrite_refs(out)
    if out.get("type") is None and "properties" in out:
        out["type"] = "object"
    if out.get("type") == "object":
        out.setdefault("properties", {})
    else:
        # Providers want an object root; wrap anything else (rare) as one argument.
        out = {"type": "object", "properties": {}, "additionalProperties": True}
    return out


def export_output_schema(schema: Any) -> dict[str, Any] | None:
    """The server's output schema, cleaned the same way (``None`` when it has none)."""
    if not isinstance(schema, dict):
        return None
    return export_schema(schema) if schema.get("type", "object") == "object" else schema


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, list):
        return [_rewrite_refs(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _rewrite_refs(value) for key, value in node.items()}
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith(_OLD_DEFS):
        out["$ref"] = "#/$defs/" + ref[len(_OLD_DEFS) :]
    return out


def dialect(schema: Any) -> str | None:
    """The ``$schema`` the server declared at the root of a schema, if any."""
    declared = schema.get("$schema") if isinstance(schema, dict) else None
    return declared if isinstance(declared, str) else None


def _validator_class(schema: dict[str, Any]) -> Any:
    """The draft the server declared (2020-12 otherwise)."""
    declared = dialect(schema) or ""
    if "draft-07" in declared or "draft-06" in declared:
        return Draft7Validator
    return Draft202012Validator


def make_validator(schema: dict[str, Any], origin: str = "a tool") -> Validator:
    """A validator for arguments, in the draft the server declared (2020-12 otherwise),
    whose regular expressions run in RE2 (``origin`` names the tool in warnings)."""
    cls = linear_validator(_validator_class(schema))
    return cls(prepare(schema, origin), format_checker=FormatChecker())


def depth(node: Any) -> int:
    """How deep dicts and lists nest in ``node`` (walked without recursion)."""
    deepest = 0
    stack = [(node, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            values = item.values() if isinstance(item, dict) else item
            stack.extend((value, level + 1) for value in values)
    return deepest


def schema_problem(schema: Any) -> str | None:
    """Why a listed schema cannot be used, or ``None`` when it can."""
    if schema is None:
        return None
    if not isinstance(schema, dict):
        return f"its schema is a {type(schema).__name__}, not an object"
    if TOO_DEEP in schema:  # cut from a list the MCP SDK could not read (see wire)
        return f"its listing nests deeper than {MAX_DEPTH} levels, past what the MCP SDK reads"
    if depth(schema) > MAX_DEPTH:
        return f"its schema nests deeper than {MAX_DEPTH} levels"
    try:
        _validator_class(schema).check_schema(schema, format_checker=None)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.absolute_path) or "(root)"
        return f"its schema is not a valid JSON schema (at {where}: {exc.message})"
    return None


def usable_tools(server: str, tools: list[Any]) -> tuple[list[Any], list[str]]:
    """The listed tools whose input and output schemas can be used, and a note (also
    logged as a warning) for each tool left out."""
    kept: list[Any] = []
    notes: list[str] = []
    for remote in tools:
        problem = schema_problem(getattr(remote, "input_schema", None))
        kind = "input"
        if problem is None:
            problem = schema_problem(getattr(remote, "output_schema", None))
            kind = "output"
        if problem is None:
            kept.append(remote)
            continue
        note = (
            f"tool '{remote.name}' of MCP server '{server}' left out: {problem} "
            f"({kind} schema); the server's other tools are offered"
        )
        log.warning("%s", note)
        notes.append(note)
    return kept, notes


def describe_errors(validator: Validator, arguments: dict[str, Any]) -> list[str]:
    """One line per problem: where, and what was wrong (empty when the arguments are valid)."""
    lines = []
    for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path)):
        path = ".".join(str(p) for p in error.absolute_path) or "(arguments)"
        message = error.message
        if len(message) > 300:
            message = message[:297] + "..."
        lines.append(f"- {path}: {message}")
    return lines


def allows_null(schema: Any) -> bool:
    """Whether a (sub)schema accepts ``null`` (checked by validating it, refs and all)."""
    if not isinstance(schema, dict):
        return True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    options = schema.get("anyOf") or schema.get("oneOf") or []
    return any(allows_null(o) for o in options if isinstance(o, dict))


def expects_structure(schema: Any) -> bool:
    """Whether a (sub)schema wants an object or an array (not a string)."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if "string" in kinds:
        return False
    if kinds & {"object", "array"} or "properties" in schema or "items" in schema:
        return True
    return "$ref" in schema and "string" not in kinds
