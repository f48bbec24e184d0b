"""A server's JSON schemas: exported without losing information, and used to validate.

The exported input schema is the server's own, with only what providers reject taken
out or rewritten: ``$schema`` and ``$id`` go, draft-07 ``definitions`` become ``$defs``
(and their ``$ref``s follow), and the root is always an object with ``properties``.
Defaults, bounds, formats, ``additionalProperties``, titles and descriptions all stay.
"""

from __future__ import annotations

import copy
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker
from jsonschema.protocols import Validator

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


def make_validator(schema: dict[str, Any]) -> Validator:
    """A validator for arguments, in the draft the server declared (2020-12 otherwise)."""
    declared = str(schema.get("$schema", ""))
    cls = (
        Draft7Validator
        if "draft-07" in declared or "draft-06" in declared
        else Draft202012Validator
    )
    return cls(schema, format_checker=FormatChecker())


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
