"""Google Gemini: ``functionDeclarations`` with Gemini's schema subset, ``functionCall``
parts in, ``functionResponse`` parts out (text under ``response``, images as ``parts``).

Gemini's ``parameters`` take an OpenAPI 3.0 subset, and one tool the API refuses fails
every request, so schemas are rewritten into it: references inlined, one ``type`` plus
``nullable`` instead of a list with ``"null"``, a one-value ``enum`` instead of
``const``, string enums, no keys outside the subset, and no empty ``properties`` (the
API refuses them for an OBJECT). A tool without parameters declares none.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from toolplug.content import ImageContent
from toolplug.formats.base import SKIP, NotACall, ToolFormat, plain, require, result_text
from toolplug.model import Observation, ToolCall
from toolplug.schema import inline_refs

# The keys of Gemini's Schema object, by their JSON names.
_KEPT = {
    "anyOf",
    "default",
    "description",
    "enum",
    "example",
    "format",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "nullable",
    "pattern",
    "properties",
    "propertyOrdering",
    "required",
    "title",
    "type",
}
# Formats Gemini documents: "enum" and "date-time" for strings, widths for numbers.
_FORMATS = {"enum", "date-time", "int32", "int64", "float", "double"}
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object"}


#: How many times a recursive definition is unrolled before the rest is left open.
RECURSION_DEPTH = 3


def to_gemini_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema rewritten into the OpenAPI subset Gemini's ``parameters`` take.

    References are inlined; a recursive definition (a tree) is unrolled
    :data:`RECURSION_DEPTH` times, below which it is an open object.
    """
    inlined = inline_refs(schema)
    defs = inlined.pop("$defs", {})
    return _convert(_unroll(inlined, defs, {}))


def _unroll(node: Any, defs: dict[str, Any], depth: dict[str, int]) -> Any:
    """Replace the references ``inline_refs`` kept (recursive ones), to a fixed depth."""
    if isinstance(node, list):
        return [_unroll(item, defs, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref[len("#/$defs/") :]
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if depth.get(name, 0) >= RECURSION_DEPTH or name not in defs:
            return {"type": "object", **siblings}
        inner = _unroll(defs[name], defs, {**depth, name: depth.get(name, 0) + 1})
        return {**inner, **siblings}
    return {key: _unroll(value, defs, depth) for key, value in node.items()}


def _convert(node: Any) -> dict[str, Any]:
    if not isinstance(node, dict):
        return {}
    node = copy.copy(node)
    if "const" in node:
        node["enum"] = [node.pop("const")]
    node, nullable = _merge_options(node)
    null_type = _split_type_list(node)
    nullable = nullable or null_type
    if "enum" in node:
        node["enum"] = [v if isinstance(v, str) else str(v) for v in node["enum"] if v is not None]
        node["type"] = "string"
        node["format"] = "enum"
    if node.get("format") not in _FORMATS:
        node.pop("format", None)
    out = _kept(node)
    if out.get("type") == "array" and "items" not in out:
        out["items"] = {"type": "string"}  # Gemini needs items; any JSON value has none
    if out.get("type") not in _JSON_TYPES and "anyOf" not in out:
        out["type"] = "string" if "enum" in out else "object"
    if nullable:
        out["nullable"] = True
    return out


def _merge_options(node: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Take ``anyOf``/``oneOf`` out of a node: ``X | None`` becomes X; other options
    stay as ``anyOf``. Returns the node and whether null was one of the options."""
    options = node.pop("anyOf", None) or node.pop("oneOf", None)
    if not isinstance(options, list):
        return node, False
    others = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
    if len(others) == 1:  # X | None: X, nullable
        node = {**others[0], **{k: v for k, v in node.items() if k != "type"}}
    elif others:
        node["anyOf"] = [_convert(o) for o in others]
    return node, len(others) < len(options)


def _split_type_list(node: dict[str, Any]) -> bool:
    """Turn a list of types into one type or an ``anyOf`` of them, in place; whether
    null was one of them."""
    kind = node.get("type")
    if not isinstance(kind, list):
        return False
    kinds = [k for k in kind if k != "null"]
    if len(kinds) == 1:
        node["type"] = kinds[0]
    else:
        node.pop("type")
        node["anyOf"] = [{"type": k} for k in kinds]
    return len(kinds) < len(kind)


def _kept(node: dict[str, Any]) -> dict[str, Any]:
    """The keywords Gemini reads, with the schemas under them converted."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key not in _KEPT:
            continue
        if key == "properties":
            if value:
                out[key] = {name: _convert(sub) for name, sub in value.items()}
        elif key == "items":
            out[key] = _convert(value)
        elif key == "required":
            props = node.get("properties") or {}
            kept = [name for name in value if name in props]
            if kept:
                out[key] = kept
        else:
            out[key] = value
    return out


class GeminiFormat(ToolFormat):
    """Google Gemini (the ``google-genai`` SDK, the Gemini API and Vertex AI)."""

    name = "gemini"
    title = "Google Gemini"

    def export_tool(
        self, tool: Any, *, name: str | None = None, security_risk: bool = False, **options: Any
    ) -> dict[str, Any]:
        """One ``FunctionDeclaration`` (several go in one ``Tool``: see :meth:`export_tools`)."""
        declaration: dict[str, Any] = {"name": name or tool.name}
        if tool.description:
            declaration["description"] = tool.description
        params = to_gemini_schema(tool.input_schema(security_risk=security_risk))
        if params.get("properties"):
            declaration["parameters"] = params
        return declaration

    def export_tools(
        self, tools: Sequence[tuple[str, Any]], **options: Any
    ) -> list[dict[str, Any]]:
        """One Gemini ``Tool`` holding every declaration (the request's ``tools`` list)."""
        declarations = [self.export_tool(tool, name=name, **options) for name, tool in tools]
        return [{"functionDeclarations": declarations}] if declarations else []

    def unwrap(self, data: Any) -> list[Any] | None:
        if not isinstance(data, dict):
            return None
        candidates = data.get("candidates")
        if isinstance(candidates, list):  # a whole GenerateContentResponse
            first = plain(candidates[0]) if candidates else None
            content = plain(first.get("content")) if isinstance(first, dict) else None
            data = content if isinstance(content, dict) else {}
        parts = data.get("parts")
        if isinstance(parts, list):  # a Content
            return list(parts)
        return None

    def read_call(self, item: Any, index: int) -> ToolCall | NotACall | None:
        call = item.get("functionCall")
        if isinstance(call, dict):
            return ToolCall(str(call.get("id") or ""), call["name"], call.get("args"))
        if "text" in item or "thought" in item or "thoughtSignature" in item:
            return SKIP
        return None

    def render_result(self, call: ToolCall, observation: Observation) -> dict[str, Any]:
        key = "error" if observation.is_error else "output"
        response: dict[str, Any] = {"name": call.name, "response": {key: result_text(observation)}}
        if call.id:
            response["id"] = call.id  # echoed when the call had one; else matched by order
        images = [b for b in observation.llm_content if isinstance(b, ImageContent)]
        if images:
            response["parts"] = [
                {"inlineData": {"mimeType": image.mimeType, "data": image.data}} for image in images
            ]
        return {"functionResponse": response}

    def results_message(self, results: Sequence[Any]) -> dict[str, Any]:
        return {"role": "user", "parts": list(results)}

    def check_tool(self, exported: dict[str, Any]) -> None:
        types = require("google.genai.types", "google-genai", self.title)
        types.Tool.model_validate(exported)
        for declaration in exported["functionDeclarations"]:
            _check_name(declaration["name"])
            if "parameters" in declaration:
                _check_schema(declaration["parameters"], declaration["name"])

    def check_result(self, result: Any, observation: Observation) -> None:
        types = require("google.genai.types", "google-genai", self.title)
        part = types.Part.model_validate(result)
        assert part.function_response is not None
        assert isinstance(part.function_response.response, dict)


def _check_name(name: str) -> None:
    import re

    assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}", name), (
        f"'{name}' is not a Gemini function name (a letter or _, then letters, digits, _.:-)"
    )


def _check_schema(schema: dict[str, Any], where: str) -> None:
    """The API's rules that the SDK's types do not check."""
    kind = schema.get("type")
    assert kind is None or kind in _JSON_TYPES, f"{where}: type {kind!r} is not one type"
    if kind == "object":
        assert schema.get("properties") != {}, f"{where}: empty properties for an OBJECT"
    if kind == "array":
        assert "items" in schema, f"{where}: an array needs items"
    if "enum" in schema:
        assert all(isinstance(v, str) for v in schema["enum"]), f"{where}: enums are strings"
    for name, sub in (schema.get("properties") or {}).items():
        _check_schema(sub, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        _check_schema(schema["items"], f"{where}[]")
    for i, sub in enumerate(schema.get("anyOf") or []):
        _check_schema(sub, f"{where}.anyOf[{i}]")
