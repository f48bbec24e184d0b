"""JSON Schema clean-up for export: the same schema, in a shape every provider accepts."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from toolplug.errors import SchemaError

# Keys whose value maps names to sub-schemas (so a key called "title" there is a name).
_NAME_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
# Keys whose value is one sub-schema or a list of them.
_SUBSCHEMA_KEYS = (
    "items",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "prefixItems",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
)
# Formats OpenAI's strict mode accepts; others are dropped there (the text stays valid).
_STRICT_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
}

SECURITY_RISK_FIELD = "security_risk"
SECURITY_RISK_SCHEMA: dict[str, Any] = {
    "type": "string",
    "enum": ["LOW", "MEDIUM", "HIGH"],
    "description": (
        "Your estimate of this call's risk: LOW (reads or harmless), MEDIUM (changes files "
        "in the workspace), HIGH (deletes data, touches the system or the network)."
    ),
}


def _walk(node: Any, fn: Any) -> Any:
    """Apply ``fn`` to every sub-schema, bottom-up, keeping property names intact."""
    if isinstance(node, list):
        return [_walk(item, fn) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _NAME_MAPS and isinstance(value, dict):
            out[key] = {name: _walk(sub, fn) for name, sub in value.items()}
        elif key in _SUBSCHEMA_KEYS:
            out[key] = _walk(value, fn)
        else:
            out[key] = value
    return fn(out)


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's generated titles and ``$schema``; give the root ``properties``."""

    def strip(node: dict[str, Any]) -> dict[str, Any]:
        node.pop("title", None)
        node.pop("$schema", None)
        return node

    cleaned: dict[str, Any] = _walk(copy.deepcopy(schema), strip)
    if cleaned.get("type") == "object" and "properties" not in cleaned:
        cleaned["properties"] = {}
    return prune_defs(cleaned)


def prune_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop ``$defs`` entries that nothing reachable from the root refers to."""
    defs = schema.get("$defs")
    if not isinstance(defs, dict):
        return schema
    prefix = "#/$defs/"
    body = {k: v for k, v in schema.items() if k != "$defs"}
    wanted = {r[len(prefix) :] for r in _refs_in(body) if r.startswith(prefix)}
    seen: set[str] = set()
    while wanted - seen:
        name = (wanted - seen).pop()
        seen.add(name)
        wanted |= {r[len(prefix) :] for r in _refs_in(defs.get(name, {})) if r.startswith(prefix)}
    kept = {name: sub for name, sub in defs.items() if name in seen}
    return {**body, "$defs": kept} if kept else body


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null" and len(node) == 1


def _without_null(node: dict[str, Any]) -> dict[str, Any] | None:
    """``node`` with its ``null`` alternative taken out; ``None`` when it has none."""
    kind = node.get("type")
    if isinstance(kind, list) and "null" in kind:
        rest = [k for k in kind if k != "null"]
        return {**node, "type": rest[0] if len(rest) == 1 else rest} if rest else None
    options = node.get("anyOf")
    if not isinstance(options, list) or not any(_is_null(o) for o in options):
        return None
    rest = [o for o in options if not _is_null(o)]
    if not rest:
        return None
    outer = {k: v for k, v in node.items() if k != "anyOf"}
    if len(rest) > 1:
        return {**outer, "anyOf": rest}
    only = rest[0]
    if not isinstance(only, dict) or set(only) & set(outer):
        return {**outer, "anyOf": rest}  # merging would overwrite a key: keep the wrapper
    return {**only, **outer}


def omit_null_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """Optional fields whose default is ``null`` as their plain type, left out of ``required``.

    ``x: int | None = None`` gives ``{"anyOf": [{"type": "integer"}, {"type": "null"}],
    "default": null}``: a model never needs to send the null, since leaving the field out
    means the same, so the schema says just ``{"type": "integer"}`` (the action still
    accepts an explicit null). A field whose default is something else keeps ``null`` in
    its type: there it means something. OpenAI's strict mode, which needs every field
    required, makes optional fields nullable again (:func:`to_strict`).
    """

    def fix(node: dict[str, Any]) -> dict[str, Any]:
        props = node.get("properties")
        if not isinstance(props, dict):
            return node
        required = set(node.get("required", []))
        for name, sub in props.items():
            if name in required or not isinstance(sub, dict):
                continue
            if "default" not in sub or sub["default"] is not None:
                continue
            plain = _without_null(sub)
            if plain is not None:
                plain.pop("default")
                props[name] = plain
        return node

    return _walk(copy.deepcopy(schema), fix)  # type: ignore[no-any-return]


def with_security_risk(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of an input schema with a required ``security_risk`` field added."""
    schema = copy.deepcopy(schema)
    schema.setdefault("properties", {})[SECURITY_RISK_FIELD] = dict(SECURITY_RISK_SCHEMA)
    required = schema.setdefault("required", [])
    if SECURITY_RISK_FIELD not in required:
        required.append(SECURITY_RISK_FIELD)
    return schema


def _refs_in(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.add(ref)
        for value in node.values():
            found |= _refs_in(value)
    elif isinstance(node, list):
        for item in node:
            found |= _refs_in(item)
    return found


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace local ``$ref``s by their definitions; recursive ones stay as references."""
    schema = copy.deepcopy(schema)
    defs: dict[str, Any] = schema.pop("$defs", {})
    prefix = "#/$defs/"

    def recursive(name: str, seen: frozenset[str]) -> bool:
        for ref in _refs_in(defs.get(name, {})):
            target = ref.removeprefix(prefix)
            if target in seen or recursive(target, seen | {target}):
                return True
        return False

    kept = {name for name in defs if recursive(name, frozenset({name}))}

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [resolve(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(prefix) and ref[len(prefix) :] not in kept:
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            return {**resolve(defs[ref[len(prefix) :]]), **resolve(siblings)}
        return {key: resolve(value) for key, value in node.items()}

    out: dict[str, Any] = resolve(schema)
    if kept:
        out["$defs"] = {name: resolve(defs[name]) for name in sorted(kept)}
    return out


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    kind = node.get("type")
    if isinstance(kind, str) and "enum" not in node:
        return {**node, "type": [kind, "null"]} if kind != "null" else node
    if isinstance(kind, list):
        return node if "null" in kind else {**node, "type": [*kind, "null"]}
    options = node.get("anyOf")
    if isinstance(options, list):
        if any(o.get("type") == "null" for o in options if isinstance(o, dict)):
            return node
        return {**node, "anyOf": [*options, {"type": "null"}]}
    description = node.get("description")
    inner = {k: v for k, v in node.items() if k != "description"}
    wrapped: dict[str, Any] = {"anyOf": [inner, {"type": "null"}]}
    if description:
        wrapped["description"] = description
    return wrapped


def to_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """Rewrite an input schema to satisfy OpenAI's strict mode.

    Every object closes (``additionalProperties: false``) and lists all its properties
    as required; a field that was optional becomes nullable, so a model sends ``null``
    for "not given" (the safe entry point turns that back into the default).
    """

    def fix(node: dict[str, Any]) -> dict[str, Any]:
        node.pop("default", None)
        if "format" in node and node["format"] not in _STRICT_FORMATS:
            node.pop("format")
        is_object = node.get("type") == "object" or "properties" in node
        if not is_object:
            return node
        props: dict[str, Any] = node.setdefault("properties", {})
        extra = node.get("additionalProperties")
        if not props and extra not in (None, False):
            raise SchemaError(
                "OpenAI strict mode cannot express an object with free-form keys; "
                "export with strict=False or give the object fixed properties"
            )
        required = set(node.get("required", []))
        node["properties"] = {
            name: sub if name in required else _nullable(sub) for name, sub in props.items()
        }
        node["required"] = list(props)
        node["additionalProperties"] = False
        return node

    return _walk(inline_refs(clean_schema(schema)), fix)  # type: ignore[no-any-return]


def check_openai_strict(schema: Mapping[str, Any], path: str = "parameters") -> None:
    """Raise AssertionError where a schema breaks OpenAI's strict-mode rules."""
    assert "$schema" not in schema, f"{path}: $schema is rejected"
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties", {})
        assert schema.get("additionalProperties") is False, (
            f"{path}: strict objects need additionalProperties: false"
        )
        assert sorted(schema.get("required", [])) == sorted(props), (
            f"{path}: strict objects must list every property as required"
        )
        for name, sub in props.items():
            check_openai_strict(sub, f"{path}.{name}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for i, sub in enumerate(schema.get(key, [])):
            check_openai_strict(sub, f"{path}.{key}[{i}]")
    if isinstance(schema.get("items"), Mapping):
        check_openai_strict(schema["items"], f"{path}.items")
    for name, sub in schema.get("$defs", {}).items():
        check_openai_strict(sub, f"{path}.$defs.{name}")
    assert "default" not in schema, f"{path}: strict mode takes no defaults"
