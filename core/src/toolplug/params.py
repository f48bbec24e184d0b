"""What params a registered tool takes, read once per factory: :class:`FactoryParams`.

A stateful tool's params are the keyword arguments of its ``create(context, **params)``
(a factory's: of the factory after the context). :func:`factory_params` reads them once
and keeps what it read (per factory): the names, which are required, whether it takes
``**params``, a JSON schema of them, and a strict pydantic model that checks the values a
host gives. The registry checks params with it before the factory runs, and ``toolplug
tools --params`` prints its schema.

A param is described in its annotation, the way an ``Action``'s fields are::

    timeout: Annotated[float, Field(description="Seconds a call may take.")] = 30.0

The docstring is the fallback for a param without such a description: a Google
``Args:`` section, reST ``:param name:`` fields, or ``- ``name``: text`` bullets.
"""

from __future__ import annotations

import copy
import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo

from toolplug._text import LIST_LIMIT, cut, cut_list
from toolplug.arguments import _short
from toolplug.errors import ToolParamsError
from toolplug.functions import _as_written, _type_hints, parse_docstring

# "- ``name``: text" (or "* ``name``: text"), the bullets some create() docstrings use;
# one bullet may go on to describe another ("...; ``other``: text").
_BULLET = re.compile(r"^[-*]\s+``(\w+)``\s*:\s*(.*)$")
_NEXT_IN_BULLET = re.compile(r"(?:(?<=[;.])\s+)``(\w+)``\s*:\s*")


@dataclass(frozen=True)
class FactoryParams:
    """The params one factory takes after the context, as its signature declares them.

    Made by :func:`factory_params`, once per factory.
    """

    #: The params it takes by name, in the order of the signature.
    names: tuple[str, ...]
    #: Those without a default.
    required: tuple[str, ...]
    #: Whether it also takes ``**params`` (or its signature cannot be read).
    takes_any: bool
    #: A JSON object schema of the params (``tools --params`` shows it).
    schema: dict[str, Any]
    #: A strict model of the annotated params (``None``: none, or none pydantic can build).
    model: type[BaseModel] | None

    def check(self, tool: str, params: dict[str, Any]) -> dict[str, Any]:
        """The params ``tool`` is created with, checked before its factory runs.

        Params it does not take and required ones missing are refused; the values are
        checked against the annotations, strictly: no value is converted to another type
        (``"yes"`` is not ``True``), as params carry settings such as how far a tool may
        reach; an ``int`` is accepted for a ``float``, and a dict for a model. Only the
        params given are returned: the factory's own defaults still apply to the others.
        Params the annotations cannot describe pass unchecked.

        Raises :class:`~toolplug.errors.ToolParamsError` saying what is wrong and what
        the tool takes.
        """
        unknown = [p for p in params if p not in self.names]
        if unknown and not self.takes_any:
            takes = ", ".join(self.names) if self.names else "no params"
            raise ToolParamsError(
                f"tool '{tool}' does not take the param(s) {cut_list(unknown)}; it takes: {takes}"
            )
        missing = [p for p in self.required if p not in params]
        if missing:
            raise ToolParamsError(f"tool '{tool}' needs the param(s): {', '.join(missing)}")
        if self.model is None or not params:
            return params
        given = {k: v for k, v in params.items() if k in self.model.model_fields}
        try:
            checked = self.model.model_validate(given)
        except ValidationError as error:
            raise ToolParamsError(_describe(tool, error)) from None
        return {**params, **{k: getattr(checked, k) for k in given}}


#: Nothing to check: what an instance (no factory) takes.
NO_PARAMS = FactoryParams(
    (), (), False, {"type": "object", "properties": {}, "additionalProperties": False}, None
)

_read: dict[Any, FactoryParams] = {}


def factory_params(factory: Callable[..., Any] | None) -> FactoryParams:
    """The params ``factory`` takes after its first argument (the context), read once.

    ``None`` (an instance, which takes no params) gives :data:`NO_PARAMS`.
    """
    if factory is None:
        return NO_PARAMS
    key = getattr(factory, "__func__", factory)  # a classmethod: its function
    try:
        return _read[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable callable: read, not kept
        return _read_params(factory)
    found = _read[key] = _read_params(factory)
    return found


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
    return copy.deepcopy(factory_params(factory).schema)


def validate_params(
    name: str, factory: Callable[..., Any], params: dict[str, Any]
) -> dict[str, Any]:
    """``params`` checked as the registry checks them: see :meth:`FactoryParams.check`."""
    return factory_params(factory).check(name, params)


def _read_params(factory: Callable[..., Any]) -> FactoryParams:
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin, say: anything goes, nothing is checked
        return FactoryParams((), (), True, {**NO_PARAMS.schema, "additionalProperties": True}, None)
    hints = _resolved_hints(factory)
    docs: dict[str, str] | None = None  # read only when a param has no description
    names: list[str] = []
    required: list[str] = []
    takes_any = False
    properties: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    for index, (name, param) in enumerate(signature.parameters.items()):
        if index == 0 and param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            continue  # the context
        if param.kind is param.VAR_KEYWORD:
            takes_any = True
            continue
        if param.kind not in (param.KEYWORD_ONLY, param.POSITIONAL_OR_KEYWORD):
            continue
        names.append(name)
        hint = hints.get(name, Any)
        prop = _type_schema(hint)
        if param.default is param.empty:
            required.append(name)
        else:
            prop["default"] = _jsonable(param.default)
        if not prop.get("description"):
            docs = _param_docs(inspect.getdoc(factory) or "") if docs is None else docs
            if docs.get(name):
                prop["description"] = docs[name]
        properties[name] = prop
        if name in hints:
            fields[name] = (hint, ... if param.default is param.empty else param.default)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": takes_any,
    }
    if required:
        schema["required"] = required
    title = getattr(factory, "__qualname__", type(factory).__qualname__)
    return FactoryParams(
        tuple(names), tuple(required), takes_any, schema, _strict_model(title, fields)
    )


def _resolved_hints(factory: Callable[..., Any]) -> dict[str, Any]:
    """The factory's resolved annotations; when some do not resolve (the context's type,
    imported only for type checking), each of the others on its own."""
    try:
        return _type_hints(factory)
    except TypeError:
        pass
    target = getattr(factory, "__func__", factory)
    if not inspect.isfunction(target):
        return {}
    hints: dict[str, Any] = {}
    for name, annotation in inspect.get_annotations(target).items():
        alone = SimpleNamespace(__annotations__={name: annotation}, __globals__=target.__globals__)
        try:
            resolved = typing.get_type_hints(alone, include_extras=True)
            hints.update({key: _as_written(hint) for key, hint in resolved.items()})
        except Exception:  # this one names a type it cannot see: read as any value
            continue
    return hints


def _strict_model(title: str, fields: dict[str, Any]) -> type[BaseModel] | None:
    """A strict pydantic model of the annotated params (``None``: none, or unbuildable)."""
    if not fields:
        return None
    try:
        config = ConfigDict(arbitrary_types_allowed=True, strict=True)
        return create_model(f"{title}_params", __config__=config, **fields)
    except Exception:  # annotations pydantic cannot build a model of: not checked
        return None


def _type_schema(hint: Any) -> dict[str, Any]:
    """The JSON schema of one annotation, with its ``Field(description=...)`` if any."""
    try:
        return dict(TypeAdapter(hint).json_schema())
    except Exception:  # an annotation pydantic cannot describe: any value, its description
        described = [m.description for m in _metadata(hint) if isinstance(m, FieldInfo)]
        return {"description": described[-1]} if any(described) else {}


def _metadata(hint: Any) -> tuple[Any, ...]:
    return tuple(getattr(hint, "__metadata__", ())) if typing.get_origin(hint) else ()


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
