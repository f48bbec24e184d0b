"""Compose: every tool of a toolset in one JSON schema, for structured output.

Models that offer structured output but no tool calling, and planners that want one
response to carry several calls and a final answer, get one schema::

    {"calls": [{"_tool": "read_file", "path": "a.txt"}, ...], "output": {...} | null}

Each item of ``calls`` is one tool's input schema with a ``_tool`` constant naming the
tool; ``output`` is the caller's final-answer schema, or ``null`` while calls are still
needed. :func:`run_composed` reads such a response, runs its calls through
:func:`~toolplug.dispatch.dispatch` and returns the observations and the output.

A *latent* tool (a :class:`~toolplug.ToolDefinition` without an executor) is a schema
whose result the model produces itself: a sentiment, a classification. Its calls are
validated and come back as :class:`~toolplug.dispatch.LatentObservation` data.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from toolplug._text import LIST_LIMIT, cut, cut_list
from toolplug.arguments import unreadable, validate_action
from toolplug.definition import ToolDefinition
from toolplug.dispatch import BatchOptions, LatentObservation, ToolCall, dispatch
from toolplug.errors import ArgumentError, ComposeError
from toolplug.model import Observation
from toolplug.names import NameMap, name_map
from toolplug.schema import clean_schema, to_strict

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "TOOL_KEY",
    "ComposeError",
    "ComposedOptions",
    "ComposedResult",
    "compose",
    "run_composed",
]

AnyTool = ToolDefinition[Any, Any]
OutputSchema = Mapping[str, Any] | type[BaseModel] | None


class ComposedOptions(BatchOptions, total=False):
    """What :func:`run_composed` takes besides the response: the ``output_schema`` and
    ``strict`` that :func:`compose` was given, and the batch's
    :class:`~toolplug.dispatch.BatchOptions`."""

    output_schema: OutputSchema
    strict: bool


#: The key of each call that names its tool.
TOOL_KEY = "_tool"
_DEFS = "#/$defs/"
_MISSING = object()


@dataclass
class ComposedResult:
    """What :func:`run_composed` returns: the calls, their observations, the output.

    ``observations[i]`` answers ``calls[i]``; a latent tool's observation is a
    :class:`~toolplug.dispatch.LatentObservation` whose ``data`` holds its fields.
    ``output`` is the parsed final answer (a model instance when the output schema is
    a pydantic model, JSON data for a JSON schema), or ``None`` when the model has not
    given one yet.
    """

    calls: list[ToolCall] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    output: Any = None

    @property
    def done(self) -> bool:
        """Whether the model gave its final output."""
        return self.output is not None

    def latent(self) -> list[tuple[ToolCall, dict[str, Any]]]:
        """The latent tools' calls with their validated data, in call order."""
        return [
            (call, obs.data)
            for call, obs in zip(self.calls, self.observations)
            if isinstance(obs, LatentObservation) and not obs.is_error
        ]

    def to_prompt(self) -> str:
        """The results as JSON text, to send back to the model for its next response."""
        results = [
            {TOOL_KEY: call.name, "is_error": obs.is_error, "result": obs.text}
            for call, obs in zip(self.calls, self.observations)
        ]
        return json.dumps({"results": results}, ensure_ascii=False, indent=1)


# -- the schema ---------------------------------------------------------------------------


def _moved(node: Any, renames: Mapping[str, str]) -> Any:
    """A copy of ``node`` whose local ``$ref``s point at the renamed definitions."""
    if isinstance(node, list):
        return [_moved(item, renames) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _moved(value, renames) for key, value in node.items()}
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS) and ref[len(_DEFS) :] in renames:
        out["$ref"] = _DEFS + renames[ref[len(_DEFS) :]]
    return out


def _hoist(schema: Mapping[str, Any], prefix: str, defs: dict[str, Any]) -> dict[str, Any]:
    """Move a schema's ``$defs`` into the root's under ``prefix``-ed names.

    Each tool's prefix is ``tool-`` and its provider name (distinct for every tool, even
    ``a.b`` beside ``a_b``), the output's is ``output``: same-named models of different
    tools stay apart.
    """
    local = schema.get("$defs") or {}
    renames = {name: f"{prefix}__{name}" for name in local}
    for name, sub in local.items():
        defs[renames[name]] = _moved(sub, renames)
    body = {key: value for key, value in schema.items() if key != "$defs"}
    moved: dict[str, Any] = _moved(body, renames)
    return moved


def _variant(name: str, tool: AnyTool, names: NameMap, defs: dict[str, Any]) -> dict[str, Any]:
    schema = _hoist(tool.input_schema(), f"tool-{names.external(name)}", defs)
    # A one-value enum rather than "const": every provider's schema subset has enums.
    tag = {"type": "string", "enum": [name], "description": "The tool to call."}
    properties = {TOOL_KEY: tag, **schema.get("properties", {})}
    required = [TOOL_KEY, *schema.get("required", [])]
    variant = {**schema, "type": "object", "properties": properties, "required": required}
    if tool.description:
        variant["description"] = tool.description
    return variant


def _output_schema(output_schema: OutputSchema) -> dict[str, Any] | None:
    if output_schema is None:
        return None
    if isinstance(output_schema, type) and issubclass(output_schema, BaseModel):
        return clean_schema(output_schema.model_json_schema())
    return copy.deepcopy(dict(output_schema))


def compose(
    tools: Mapping[str, AnyTool], output_schema: OutputSchema = None, *, strict: bool = False
) -> dict[str, Any]:
    """One JSON schema for a response holding tool calls and a final output.

    ``calls`` is an array whose items are any of the tools' input schemas, each with a
    required ``_tool`` naming its tool; ``output`` follows ``output_schema`` (a JSON
    schema or a pydantic model) or is ``null``, which is also how the model says it
    needs the calls' results first. Every tool's ``$defs`` move to the root.

    ``strict=True`` rewrites the whole schema for OpenAI's strict structured outputs
    (every object closed, every property required, optional ones nullable); give
    :func:`run_composed` the same ``strict`` so that a null means "not given" and the
    field's default applies.
    """
    defs: dict[str, Any] = {}
    names = name_map(tools)
    variants = [_variant(name, tool, names, defs) for name, tool in tools.items()]
    calls: dict[str, Any] = {
        "type": "array",
        "description": "Tool calls to run now, in order; each names its tool in '_tool'.",
    }
    if variants:
        # anyOf, not oneOf (which strict structured outputs reject); the distinct
        # "_tool" values make the variants exclusive all the same.
        calls["items"] = {"anyOf": variants}
    else:
        calls["maxItems"] = 0
    wanted = _output_schema(output_schema)
    if wanted is None:
        output: dict[str, Any] = {"type": "null", "description": "Always null: no output."}
    else:
        answer = _hoist(wanted, "output", defs)
        output = {
            "anyOf": [answer, {"type": "null"}],
            "description": "The final answer, or null while you still need tool results.",
        }
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"calls": calls, "output": output},
        "required": ["calls", "output"],
        "additionalProperties": False,
    }
    if defs:
        schema["$defs"] = defs
    return to_strict(schema) if strict else schema


# -- running a response -------------------------------------------------------------------


def _load(response: Any) -> dict[str, Any]:
    if isinstance(response, (str, bytes, bytearray)):
        try:
            response = json.loads(response)
        except json.JSONDecodeError as exc:
            raise ComposeError(
                f"The response is not valid JSON ({exc.msg} at line {exc.lineno}, column "
                f"{exc.colno}). Send one JSON object with 'calls' and 'output'."
            ) from None
        except (RecursionError, ValueError) as exc:  # too deep, or an integer too long
            message = unreadable(exc, "The response", plural=False)
            raise ComposeError(message or f"The response cannot be read: {exc}") from None
    if not isinstance(response, dict):
        raise ComposeError(
            f"The response must be a JSON object with 'calls' and 'output', "
            f"not {type(response).__name__}."
        )
    unknown = sorted(set(response) - {"calls", "output"})
    if unknown:
        raise ComposeError(
            f"Unknown keys in the response: {cut_list(unknown)}. "
            "It takes only 'calls' (an array) and 'output'."
        )
    calls = response.get("calls", [])
    if not isinstance(calls, list):
        raise ComposeError("'calls' must be an array of tool calls (use [] for none).")
    return response


def _check_output(value: Any, output_schema: OutputSchema, *, strict: bool) -> Any:
    """Validate the final output against its schema; ``None`` means not given yet.

    A null for an optional field that does not take null means "not given": a pydantic
    model gets the field's default (as tool arguments do). With ``strict`` (whose
    schema makes such fields nullable), a JSON-schema output gets the same: the null is
    dropped and the field's ``default``, where the schema gives one, fills its place,
    at any depth; then the value is checked against the schema as given.
    """
    if value is None or output_schema is None:
        return value
    if isinstance(output_schema, type) and issubclass(output_schema, BaseModel):
        if not isinstance(value, dict):
            raise ComposeError(
                f"Invalid 'output': it must be an object with the fields of "
                f"{output_schema.__name__}, or null while you still need tool results."
            )
        try:
            return validate_action(output_schema, value)[0]
        except ArgumentError as exc:
            message = str(exc).replace("Invalid arguments:", "Invalid 'output':", 1)
            raise ComposeError(message) from None
    try:
        import jsonschema
    except ImportError:
        raise ComposeError(
            "checking 'output' against a JSON schema needs the jsonschema package: "
            "install it, or pass a pydantic model as the output schema"
        ) from None
    wanted = dict(output_schema)
    validator = jsonschema.Draft202012Validator(wanted)
    if strict:
        value = _Nulls(wanted, validator).drop(value, wanted)
    try:
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    except RecursionError as exc:
        raise ComposeError(unreadable(exc, "The 'output'", plural=False) or "") from None
    problems = [
        cut(f"- output{''.join(f'[{p!r}]' for p in err.absolute_path)}: {err.message}", 300)
        for err in errors[:LIST_LIMIT]
    ]
    if len(errors) > LIST_LIMIT:
        problems.append(f"- ... ({len(errors) - LIST_LIMIT:,} more problems not shown)")
    if problems:
        raise ComposeError("Invalid 'output':\n" + "\n".join(problems))
    return value


class _Nulls:
    """Reads a JSON-schema value as pydantic would: a null for a property that is not
    required, and that does not take null, is dropped and the default fills its place.
    """

    def __init__(self, root: Mapping[str, Any], validator: Any) -> None:
        self.root = root
        self.validator = validator  # knows the root, so it resolves "$ref"s

    def drop(self, value: Any, node: Any) -> Any:
        """``value`` (as sent for schema ``node``) without its "not given" nulls."""
        schema = self._schema_for(value, node)
        if isinstance(value, dict):
            properties, required = self._fields(schema)
            out: dict[str, Any] = {}
            for key, item in value.items():
                sub = properties.get(key)
                if not isinstance(sub, dict):  # not a property, or a boolean schema
                    out[key] = item
                elif item is None and key not in required and not self._takes_null(sub):
                    default = sub.get("default", self._resolved(sub).get("default", _MISSING))
                    if default is not _MISSING:
                        out[key] = copy.deepcopy(default)
                else:
                    out[key] = self.drop(item, sub)
            return out
        if isinstance(value, list):
            first = schema.get("prefixItems") or []
            rest = schema.get("items")
            return [
                self.drop(item, first[i] if i < len(first) else rest)
                for i, item in enumerate(value)
            ]
        return value

    def _takes_null(self, node: Any) -> bool:
        return bool(self.validator.evolve(schema=node).is_valid(None))

    def _resolved(self, node: Any) -> dict[str, Any]:
        """``node`` with its local ``$ref`` followed (a chain of them, too)."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if not ref.startswith("#") or ref in seen:
                break
            seen.add(ref)
            target: Any = self.root
            for part in ref[1:].split("/")[1:]:
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
            node = target
        return node if isinstance(node, dict) else {}

    def _schema_for(self, value: Any, node: Any) -> dict[str, Any]:
        """The schema that ``value`` follows: through ``$ref``s, and into the one branch
        of an ``anyOf``/``oneOf`` of its kind (an object or an array)."""
        schema = self._resolved(node)
        branches = schema.get("anyOf") or schema.get("oneOf")
        if not isinstance(branches, list) or not isinstance(value, (dict, list)):
            return schema
        kind = "object" if isinstance(value, dict) else "array"
        fits = [b for b in map(self._resolved, branches) if self._kind(b) == kind]
        return self._schema_for(value, fits[0]) if len(fits) == 1 else schema

    @staticmethod
    def _kind(schema: dict[str, Any]) -> str | None:
        if schema.get("type") in ("object", "array"):
            return str(schema["type"])
        if "properties" in schema:
            return "object"
        if "items" in schema or "prefixItems" in schema:
            return "array"
        return None

    def _fields(self, schema: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
        """The properties of an object schema and the required ones, ``allOf`` merged."""
        properties: dict[str, Any] = {}
        required: set[str] = set()
        for part in [schema, *map(self._resolved, schema.get("allOf") or [])]:
            properties.update(part.get("properties") or {})
            required.update(part.get("required") or [])
        return properties, required


def _as_call(index: int, item: Any) -> ToolCall:
    """A composed call as a :class:`ToolCall`; a malformed one names no tool."""
    call_id = f"call_{index}"
    if not isinstance(item, dict):
        return ToolCall(call_id, "", item)
    name = item.get(TOOL_KEY)
    arguments = {key: value for key, value in item.items() if key != TOOL_KEY}
    return ToolCall(call_id, name if isinstance(name, str) else "", arguments)


def run_composed(
    tools: Mapping[str, AnyTool],
    response: Any,
    *,
    output_schema: OutputSchema = None,
    strict: bool = False,
    **options: Unpack[BatchOptions],
) -> ComposedResult:
    """Check a composed response, run its calls, and return results and output.

    ``response`` is the model's JSON (text or parsed). Its ``output`` is checked
    against ``output_schema`` first (a pydantic model, or a JSON schema checked with
    the ``jsonschema`` package); a response that is not usable as a whole raises
    :class:`ComposeError` and nothing runs. Each call's arguments are validated by its
    tool, and a bad call becomes an error observation for that call alone. ``strict``
    must be what :func:`compose` was given: with it, a null for an optional field of
    the output means "not given", for a pydantic model and a JSON schema alike; the
    field's default takes its place (a JSON schema's ``default``, where it gives one;
    without one the field is left out), at any depth. ``options`` go to
    :func:`~toolplug.dispatch.dispatch` (``max_concurrency``, ``allow_parallel``,
    ``timeout``).
    """
    data = _load(response)
    output = _check_output(data.get("output"), output_schema, strict=strict)
    calls = [_as_call(i, item) for i, item in enumerate(data.get("calls") or [])]
    results = dispatch(tools, calls, format="toolplug", **options)
    observations = [obs for _, obs in results]
    for i, call in enumerate(calls):
        if not call.name:  # dispatch reported an unknown tool; say what was wrong
            observations[i] = Observation.error(
                f"Call {i} must be an object whose '{TOOL_KEY}' names one of the tools: "
                f"{', '.join(tools) or 'none'}."
            )
    return ComposedResult(calls, observations, output)
