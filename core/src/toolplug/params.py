"""What params a registered tool takes: names, types, defaults and descriptions.

A stateful tool's params are the keyword arguments of its ``create(context, **params)``
(a factory's: of the factory after the context). :func:`params_schema` reads them as a
JSON schema, the way `ToolDefinition.from_function` reads a function's parameters: types
from the annotations, defaults from the signature, descriptions from the docstring
(a Google ``Args:`` section, reST ``:param name:`` fields, or ``- ``name``: text``
bullets). ``toolplug tools --params`` prints it.

:func:`validate_params` checks the values a host gives against those annotations, with
a pydantic model made from the same signature, before the factory runs.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from toolplug._text import LIST_LIMIT, cut
from toolplug.arguments import _short
from toolplug.errors import ToolParamsError
from toolplug.functions import _type_hints, parse_docstring

# "- ``name``: text" (or "* ``name``: text"), the bullets some create() docstrings use;
# one bullet may go on to describe another ("...; ``other``: text").
_BULLET = re.compile(r"^[-*]\s+``(\w+)``\s*:\s*(.*)$")
_NEXT_IN_BULLET = re.compile(r"(?:(?<=[;.])\s+)``(\w+)``\s*:\s*")


def factory_of(target: Any, kind: str) -> Callable[..., Any] | None:
    """The callable that takes a registration's params (``None`` for an instance)."""
    if kind == "instance":
        return None
    return target.create if kind == "class" else target  # type: ignore[no-any-return]


def params_schema(factory: Callable[..., Any] | None) -> dict[str, Any]:
    """A JSON object schema of the params ``factory`` takes after the context.

    ``additionalProperties`` is true when it also takes ``**params``. A param whose
    annotation has no JSON schema is listed with an empty schema (any value).
    """
    schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
    if factory is None:
        return schema
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        schema["additionalProperties"] = True
        return schema
    try:
        hints = _type_hints(factory)
    except TypeError:
        hints = {}
    docs = _param_docs(inspect.getdoc(factory) or "")
    required = []
    for index, (name, param) in enumerate(signature.parameters.items()):
        if index == 0 and param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            continue  # the context
        if param.kind is param.VAR_KEYWORD:
            schema["additionalProperties"] = True
            continue
        if param.kind not in (param.KEYWORD_ONLY, param.POSITIONAL_OR_KEYWORD):
            continue
        prop = _type_schema(hints.get(name, Any))
        if param.default is param.empty:
            required.append(name)
        else:
            prop["default"] = _jsonable(param.default)
        if docs.get(name):
            prop["description"] = docs[name]
        schema["properties"][name] = prop
    if required:
        schema["required"] = required
    return schema


def _type_schema(hint: Any) -> dict[str, Any]:
    try:
        return dict(TypeAdapter(hint).json_schema())
    except Exception:  # an annotation pydantic cannot describe: any value
        return {}


def _jsonable(value: Any) -> Any:
    """A default as JSON shows it (a tuple as a list); other objects as their repr."""
    try:
        return TypeAdapter(type(value)).dump_python(value, mode="json")
    except Exception:
        return repr(value)


def _param_docs(doc: str) -> dict[str, str]:
    """Param descriptions from a docstring: sections and fields win over bullets."""
    _, found = parse_docstring(doc)
    bullets: dict[str, str] = {}
    current: str | None = None
    for line in doc.splitlines():
        stripped = line.strip()
        bullet = _BULLET.match(stripped)
        if bullet:
            current = bullet.group(1)
            bullets[current] = bullet.group(2).strip()
        elif current and stripped and not stripped.startswith(("-", "*")):
            bullets[current] = f"{bullets[current]} {stripped}"  # the bullet goes on
        else:
            current = None
    for name, text in list(bullets.items()):
        parts = _NEXT_IN_BULLET.split(text)  # [text, name2, text2, name3, text3, ...]
        bullets[name] = parts[0].strip().rstrip(";")
        for other, more in zip(parts[1::2], parts[2::2]):
            bullets.setdefault(other, more.strip())
    return {**bullets, **found}


def validate_params(
    name: str, factory: Callable[..., Any], params: dict[str, Any]
) -> dict[str, Any]:
    """The params, checked against the factory's annotations, strictly: no value is
    converted to another type (``"yes"`` is not ``True``), as params carry settings such
    as how far a tool may reach; an ``int`` is accepted for a ``float``, and a dict for
    a model.

    Only the params given are returned: the factory's own defaults still apply to the
    others. Raises :class:`~toolplug.errors.ToolParamsError` naming each bad param, what
    it should be and what came. Params the annotations cannot describe pass unchecked.
    """
    model = _params_model(factory)
    if model is None or not params:
        return params
    given = {k: v for k, v in params.items() if k in model.model_fields}
    try:
        checked = model.model_validate(given)
    except ValidationError as error:
        raise ToolParamsError(_describe(name, error)) from None
    return {**params, **{k: getattr(checked, k) for k in given}}


_models: dict[Any, type[BaseModel] | None] = {}


def _params_model(factory: Callable[..., Any]) -> type[BaseModel] | None:
    """A pydantic model of the factory's annotated params (cached; ``None``: none)."""
    key = getattr(factory, "__func__", factory)
    if key in _models:
        return _models[key]
    model: type[BaseModel] | None = None
    try:
        signature = inspect.signature(factory)
        hints = _type_hints(factory)
    except (TypeError, ValueError):
        hints = {}
    fields: dict[str, Any] = {}
    for index, (pname, param) in enumerate(signature.parameters.items() if hints else ()):
        if index == 0 and param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            continue  # the context
        if pname in hints and param.kind in (param.KEYWORD_ONLY, param.POSITIONAL_OR_KEYWORD):
            default = ... if param.default is param.empty else param.default
            fields[pname] = (hints[pname], default)
    if fields:
        try:
            config = ConfigDict(arbitrary_types_allowed=True, strict=True)
            model = create_model(f"{key.__qualname__}_params", __config__=config, **fields)
        except Exception:  # annotations pydantic cannot build a model of: not checked
            model = None
    _models[key] = model
    return model


def _describe(name: str, error: ValidationError) -> str:
    lines = [f"Invalid params for tool '{name}':"]
    errors = error.errors(include_url=False)
    for err in errors[:LIST_LIMIT]:
        path = cut(".".join(str(part) for part in err["loc"]))
        lines.append(f"- {path}: {err['msg']} (got {_short(err.get('input'))})")
    if len(errors) > LIST_LIMIT:
        lines.append(f"- ... ({len(errors) - LIST_LIMIT:,} more problems not shown)")
    lines.append(f"`toolplug tools --params` lists the params of '{name}'.")
    return "\n".join(lines)
