"""From the JSON a model sent to a validated :class:`~toolplug.Action`.

Models make the same few mistakes with arguments again and again. The ones whose fix
is unambiguous are repaired here, and every repair is reported back as a note so the
model learns; everything else becomes an :class:`ArgumentError` whose message names the
field, what was expected and what was sent.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from toolplug._text import LIST_LIMIT, cut, cut_list, printable
from toolplug.errors import ArgumentError
from toolplug.model import Action
from toolplug.schema import SECURITY_RISK_FIELD

# Validation errors that mean "a JSON string arrived where structured data belongs".
_STRUCTURE_ERRORS = {
    "list_type",
    "dict_type",
    "model_type",
    "model_attributes_type",
    "tuple_type",
    "set_type",
    "frozen_set_type",
    "is_instance_of",
}
_MAX_REPAIR_ROUNDS = 4


def unreadable(exc: BaseException, what: str = "The arguments", plural: bool = True) -> str | None:
    """The message for data that broke the reading itself (``what`` could not be read),
    or ``None`` for any other exception.

    ``json.loads``, ``json.dumps`` and ``str(int)`` raise ``RecursionError`` on very
    deep data and ``ValueError`` on integers over ``sys.get_int_max_str_digits()``;
    pydantic's serializer raises ``ValueError`` ("Maximum serialization depth
    exceeded") on deep data. Those messages are told apart by their text.
    """
    be, hold = ("are", "hold") if plural else ("is", "holds")
    too_deep = (
        f"{what} {be} nested too deeply to read (about 1,000 levels or more). Send flatter JSON."
    )
    if isinstance(exc, RecursionError):
        return too_deep
    if isinstance(exc, ValueError):
        text = str(exc)
        if "integer string conversion" in text:
            return (
                f"{what} {hold} an integer with more digits than can be read "
                "(Python reads at most 4,300). Send it as a string."
            )
        if "depth exceeded" in text:
            return too_deep
    return None


def _loads(text: str) -> Any:
    """``json.loads``; arguments too deep or too long to read are an ArgumentError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except (RecursionError, ValueError) as exc:
        raise ArgumentError(unreadable(exc) or f"The arguments cannot be read: {exc}") from None


def parse_arguments(arguments: Any) -> tuple[dict[str, Any], list[str]]:
    """Decode arguments given as a dict, a JSON string or bytes into a dict.

    Returns the dict and the notes about what had to be repaired (JSON encoded twice).
    """
    notes: list[str] = []
    if type(arguments) is dict:  # the common case, first
        return arguments, notes
    if arguments is None or arguments == "" or arguments == b"":
        return {}, notes
    if isinstance(arguments, (bytes, bytearray)):
        arguments = arguments.decode("utf-8", errors="replace")
    if isinstance(arguments, str):
        try:
            arguments = _loads(arguments)
        except json.JSONDecodeError as exc:
            raise ArgumentError(
                f"The arguments are not valid JSON ({exc.msg} at line {exc.lineno}, "
                f"column {exc.colno}). Send one JSON object, for example "
                '{"name": "value"}.'
            ) from None
        if isinstance(arguments, str):
            try:
                arguments = _loads(arguments)
                notes.append("the arguments were JSON-encoded twice; decoded them once more")
            except json.JSONDecodeError:
                pass
    if not isinstance(arguments, dict):
        raise ArgumentError(
            f"The arguments must be a JSON object with named fields, got {_kind(arguments)}."
        )
    return arguments, notes


def validate_action(
    action_type: type[BaseModel], arguments: dict[str, Any]
) -> tuple[BaseModel, list[str]]:
    """Validate ``arguments`` into ``action_type``, repairing unambiguous mistakes.

    Returns the action and the notes that describe each repair made.
    """
    notes: list[str] = []
    fields = action_type.model_fields
    if SECURITY_RISK_FIELD in arguments and SECURITY_RISK_FIELD not in fields:
        # Added to the exported schema by the host's option; not part of the action,
        # but kept on it for the tool_call hooks (Action.declared_risk).
        declared = arguments[SECURITY_RISK_FIELD]
        arguments = {k: v for k, v in arguments.items() if k != SECURITY_RISK_FIELD}
        action, notes = _validate(action_type, arguments)
        if isinstance(action, Action) and declared is not None:
            shown = "".join(c for c in printable(str(declared)) if c.isprintable())
            action._declared_risk = cut(shown, 40)
        return action, notes
    return _validate(action_type, arguments)


def _validate(
    action_type: type[BaseModel], arguments: dict[str, Any]
) -> tuple[BaseModel, list[str]]:
    notes: list[str] = []
    try:
        return action_type.model_validate(arguments), notes
    except ValidationError as first_error:
        original = error = first_error
    for _ in range(_MAX_REPAIR_ROUNDS):
        try:
            repaired = _repair(action_type, arguments, error, notes)
        except (RecursionError, ValueError):  # data too deep or too long to copy
            repaired = None
        if repaired is None:
            break
        arguments = repaired
        try:
            return action_type.model_validate(arguments), notes
        except ValidationError as next_error:
            error = next_error
    # Report what the model actually sent, not our half-repaired version of it.
    raise ArgumentError(describe_validation_error(action_type, original)) from None


def _repair(
    action_type: type[BaseModel],
    arguments: dict[str, Any],
    error: ValidationError,
    notes: list[str],
) -> dict[str, Any] | None:
    """One round of repairs; ``None`` when no error can be repaired unambiguously."""
    fixed = json.loads(json.dumps(arguments, default=str))  # a deep, plain copy
    changed = False
    for err in error.errors():
        loc = err["loc"]
        value = err.get("input")
        path = cut(".".join(str(part) for part in loc))
        if err["type"] == "extra_forbidden" and _delete(fixed, loc):
            notes.append(f"ignored the unknown argument '{path}'")
            changed = True
        elif err["type"] in _STRUCTURE_ERRORS and isinstance(value, str):
            try:
                decoded = json.loads(value)
            except json.JSONDecodeError:
                continue
            if isinstance(decoded, (list, dict)) and _assign(fixed, loc, decoded):
                notes.append(f"'{path}' was a JSON string; parsed it as {_kind(decoded)}")
                changed = True
        elif value is None and loc and isinstance(loc[-1], str):
            # OpenAI's strict mode makes optional fields nullable, at any depth: a null
            # there means "not given", so the field's default applies.
            owner, where = _model_at(action_type, loc[:-1])
            field = owner.model_fields.get(loc[-1]) if owner is not None else None
            data_loc = (*where, loc[-1])
            if field is not None and not field.is_required() and _delete(fixed, data_loc):
                shown = cut(".".join(str(part) for part in data_loc))
                notes.append(f"'{shown}' was null; used its default instead")
                changed = True
    return fixed if changed else None


def _model_at(
    model: type[BaseModel], loc: tuple[Any, ...]
) -> tuple[type[BaseModel] | None, tuple[Any, ...]]:
    """The model whose fields sit at ``loc`` (a validation error's location) in
    ``model``, and where that is in the data.

    Steps through fields, list items, dict values and ``X | None``. Inside a union of
    several models, pydantic's location names the member (``("shape", "Circle")``),
    which is no key of the data. The model is None when the location leads elsewhere.
    """
    current: Any = model
    where: list[Any] = []
    for part in loc:
        current = _strip_optional(current)
        origin, args = typing.get_origin(current), typing.get_args(current)
        if isinstance(part, int) and origin in (list, tuple, set, frozenset) and args:
            current = args[0]
        elif isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                return None, ()
            current = field.annotation
        elif origin is dict and len(args) == 2:
            current = args[1]
        elif origin in (typing.Union, types.UnionType):
            members = [arg for arg in args if getattr(arg, "__name__", None) == part]
            if len(members) != 1:
                return None, ()
            current = members[0]
            continue  # the member's name is not in the data
        else:
            return None, ()
        where.append(part)
    current = _strip_optional(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return current, tuple(where)
    return None, ()


def _strip_optional(annotation: Any) -> Any:
    """``X`` for ``X | None`` and ``Annotated[X, ...]``; anything else as it is."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def _container(data: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc[:-1]:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _delete(data: dict[str, Any], loc: tuple[Any, ...]) -> bool:
    parent = _container(data, loc)
    if isinstance(parent, dict) and loc and loc[-1] in parent:
        del parent[loc[-1]]
        return True
    return False


def _assign(data: dict[str, Any], loc: tuple[Any, ...], value: Any) -> bool:
    parent = _container(data, loc)
    if isinstance(parent, (dict, list)) and loc:
        try:
            parent[loc[-1]] = value
        except (IndexError, TypeError):
            return False
        return True
    return False


def _kind(value: Any) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _short(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):  # too deep, or an integer too long to print
        return f"{_kind(value)} too large to show"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_of(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return " | ".join(json.dumps(v) for v in prop["enum"])
    if "const" in prop:
        return json.dumps(prop["const"])
    kind = prop.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"array of {_type_of(prop['items'])}"
    if kind:
        return str(kind)
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list):
        return " | ".join(_type_of(o) for o in options if isinstance(o, dict))
    if "$ref" in prop:
        return "object"
    return "any"


def notes_text(notes: list[str]) -> str:
    """The note an observation carries about repaired arguments (at most ``LIST_LIMIT``)."""
    return "Note: " + cut_list(notes, sep="; ") + "."


def describe_schema(schema: dict[str, Any]) -> str:
    """One line per parameter of an object schema: name, type, required, default.

    What error messages and ``toolplug tools`` show; plugins whose tools carry a JSON
    schema of their own (an MCP server's) use it too.
    """
    required = set(schema.get("required", []))
    lines = []
    for name, prop in schema.get("properties", {}).items():
        kind = _type_of(prop) if isinstance(prop, dict) else "any"
        need = "required" if name in required else "optional"
        default = ""
        if isinstance(prop, dict) and "default" in prop:
            default = f", default {_short(prop['default'], 40)}"
        lines.append(f"  {name} ({kind}, {need}{default})")
    return "\n".join(lines) or "  (no parameters)"


def describe_parameters(action_type: type[BaseModel]) -> str:
    """:func:`describe_schema` of an action model."""
    return describe_schema(action_type.model_json_schema())


def describe_validation_error(action_type: type[BaseModel], error: ValidationError) -> str:
    """A message a model can act on: each bad field, what was expected, what came.

    At most ``LIST_LIMIT`` fields are described, each path cut to a bounded length; a
    last line says how many more there were.
    """
    lines = ["Invalid arguments:"]
    errors = error.errors(include_url=False)
    for err in errors[:LIST_LIMIT]:
        path = cut(".".join(str(part) for part in err["loc"]) or "(arguments)")
        if err["type"] == "missing":
            lines.append(f"- {path}: this required field is missing")
        elif err["type"] == "extra_forbidden":
            lines.append(f"- {path}: not a parameter of this tool")
        else:
            lines.append(f"- {path}: {err['msg']} (got {_short(err.get('input'))})")
    if len(errors) > LIST_LIMIT:
        lines.append(f"- ... ({len(errors) - LIST_LIMIT:,} more problems not shown)")
    lines.append("The parameters are:")
    lines.append(describe_parameters(action_type))
    return "\n".join(lines)
