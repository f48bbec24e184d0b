"""What params a registered tool takes: names, types, defaults and descriptions.

A stateful tool's params are the keyword arguments of its ``create(context, **params)``
(a factory's: of the factory after the context). :func:`params_schema` reads them as a
JSON schema, the way `ToolDefinition.from_function` reads a function's parameters: types
from the annotations, defaults from the signature, descriptions from the docstring
(a Google ``Args:`` section, reST ``:param name:`` fields, or ``- ``name``: text``
bullets). ``toolplug tools --params`` prints it.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter

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
