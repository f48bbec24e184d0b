"""Reading a typed function as a tool, for `ToolDefinition.from_function` and ``@tool``.

```python
from toolplug import tool

@tool(annotations=ToolAnnotations(readOnlyHint=True))
def word_count(text: str) -> str:
    \"\"\"Count the words in a text.

    Args:
        text: The text whose words to count.
    \"\"\"
    return str(len(text.split()))
```

The function's parameters become the tool's `Action` (a pydantic model built with
``create_model``; unknown arguments are refused), its docstring the description, and the
docstring's parameter sections (Google ``Args:``, or reST ``:param name:``) the fields'
descriptions; ``Annotated[int, Field(description=...)]`` on a parameter also works and
wins over the docstring. Defaults stay defaults (a parameter without one is required),
and ``int | None = None`` is an optional field that may be null.

The function may be sync or ``async def``. It returns a string, an `Observation`, a
content block or a list of content blocks; the runner turns each into an observation.
A function whose only parameter is an `Action` subclass is used as the executor as is.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, create_model
from pydantic.fields import FieldInfo

from toolplug.model import Action, Observation

#: Google-style section headers; the parameter sections are the first group.
_PARAM_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args"}
_OTHER_SECTIONS = {
    "returns",
    "return",
    "yields",
    "raises",
    "examples",
    "example",
    "note",
    "notes",
    "see also",
    "warning",
    "warnings",
    "attributes",
    "todo",
}
_SECTION = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")  # at column 0, as getdoc leaves it
_GOOGLE_PARAM = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_REST_FIELD = re.compile(r"^:(\w+)(?:\s+([^:]+?))?:\s*(.*)$")
_REST_PARAM_KINDS = {"param", "parameter", "arg", "argument", "key", "keyword"}


@dataclass(frozen=True)
class FunctionTool:
    """What a function says about the tool it would be: everything but the hints."""

    name: str
    description: str
    action_type: type[Action]
    observation_type: type[Observation]
    executor: Callable[..., Any]


def read_function(
    fn: Callable[..., Any], *, name: str | None = None, description: str | None = None
) -> FunctionTool:
    """Read a typed function as a tool (see the module's docs for the rules).

    ``name`` defaults to the function's name, ``description`` to its docstring (without
    the parameter sections). Raises ``TypeError`` for a function that cannot be a tool
    (``*args``, an annotation that does not resolve) and ``ValueError`` when there is
    no description at all. `ToolDefinition.from_function` builds the tool from it.
    """
    if not callable(fn):
        raise TypeError(f"from_function() needs a function, got {type(fn).__name__}")
    summary, param_docs = parse_docstring(inspect.getdoc(fn) or "")
    tool_name: str = name or getattr(fn, "__name__", None) or ""
    if not tool_name.isidentifier():
        raise ValueError(f"a tool made from {fn!r} needs a name: pass name=")
    text = description if description is not None else summary
    if not text:
        raise ValueError(
            f"function {tool_name!r} has no docstring: give it one (the model reads it as "
            "the tool's description) or pass description="
        )
    hints = _type_hints(fn)
    action_type = _single_action(fn, hints)
    if action_type is not None:
        executor: Callable[..., Any] = fn
    else:
        action_type, executor = _action_and_executor(fn, tool_name, hints, param_docs)
    returned = hints.get("return")
    observation_type = (
        returned
        if isinstance(returned, type) and issubclass(returned, Observation)
        else Observation
    )
    return FunctionTool(tool_name, text, action_type, observation_type, executor)


# -- the signature ------------------------------------------------------------------------


def _type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The resolved annotations, as written (see :func:`_as_written`); types defined in
    the caller's function resolve too."""
    return {name: _as_written(hint) for name, hint in _resolved(fn).items()}


def _as_written(hint: Any) -> Any:
    """``hint`` without the ``Optional[...]`` that Python 3.10's ``get_type_hints`` wraps
    around a param whose default is None, where the ``Annotated`` inside already takes
    None: the wrapping hid that ``Annotated`` (and its ``Field``, with the description)."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is not typing.Union or len(args) != 2 or type(None) not in args:
        return hint
    (inner,) = (arg for arg in args if arg is not type(None))
    if typing.get_origin(inner) is not typing.Annotated:
        return hint
    base = typing.get_args(inner)[0]
    takes_none = base is None or base is type(None) or type(None) in typing.get_args(base)
    return inner if takes_none else hint


def _resolved(fn: Callable[..., Any]) -> dict[str, Any]:
    """The resolved annotations; types defined in the caller's function resolve too."""
    target = fn if inspect.isfunction(fn) or inspect.ismethod(fn) else type(fn).__call__
    try:
        return typing.get_type_hints(target, include_extras=True)
    except NameError:
        pass  # a string annotation naming a local type (``from __future__ import annotations``)
    local_names: dict[str, Any] = {}
    frame = inspect.currentframe()
    for _ in range(8):  # the decorator's or from_function's callers, inner names first
        frame = frame.f_back if frame is not None else None
        if frame is None:
            break
        local_names = {**frame.f_locals, **local_names}
    del frame
    try:
        return typing.get_type_hints(target, localns=local_names, include_extras=True)
    except Exception as exc:
        raise TypeError(
            f"the annotations of {getattr(fn, '__name__', fn)!r} do not resolve ({exc}); "
            "define the types they name where the function can see them"
        ) from exc


def _single_action(fn: Callable[..., Any], hints: dict[str, Any]) -> type[Action] | None:
    """The Action subclass of a function that takes one action (an executor already)."""
    params = list(inspect.signature(fn).parameters.values())
    if len(params) != 1:
        return None
    hint = hints.get(params[0].name)
    return hint if isinstance(hint, type) and issubclass(hint, Action) else None


def _action_and_executor(
    fn: Callable[..., Any], tool_name: str, hints: dict[str, Any], param_docs: dict[str, str]
) -> tuple[type[Action], Callable[[Any], Any]]:
    """The Action model of the parameters, and an executor calling ``fn`` with them."""
    fields: dict[str, Any] = {}
    positional: list[str] = []  # field names passed positionally, in order
    keywords: dict[str, str] = {}  # parameter name -> field name
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(
                f"{tool_name!r} takes *{param.name}: a tool's parameters must be named, so "
                "that the model knows what to send"
            )
        hint = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        field_name = _field_name(param.name)
        doc = param_docs.get(param.name)
        has_own = any(
            isinstance(m, FieldInfo) and m.description for m in getattr(hint, "__metadata__", ())
        )
        extra: dict[str, Any] = {}  # only what is set: a None would win over Annotated's
        if doc and not has_own:
            extra["description"] = doc
        if field_name != param.name:
            extra["alias"] = param.name
        info: FieldInfo = Field(default, **extra)
        fields[field_name] = (hint, info)
        if param.kind is param.POSITIONAL_ONLY:
            positional.append(field_name)
        else:
            keywords[param.name] = field_name
    model_name = "".join(part.capitalize() for part in tool_name.split("_")) or "Function"
    action_type: type[Action] = create_model(
        f"{model_name}Action",
        __base__=Action,
        __module__=getattr(fn, "__module__", __name__),
        **fields,
    )

    if inspect.iscoroutinefunction(fn):

        async def run_async(action: Any) -> Any:
            args = [getattr(action, f) for f in positional]
            return await fn(*args, **{p: getattr(action, f) for p, f in keywords.items()})

        return action_type, run_async

    def run(action: Any) -> Any:
        args = [getattr(action, f) for f in positional]
        return fn(*args, **{p: getattr(action, f) for p, f in keywords.items()})

    return action_type, run


def _field_name(param: str) -> str:
    """A field name pydantic accepts for a parameter (``json`` would shadow a method)."""
    if param.startswith("_") or param.startswith("model_") or hasattr(BaseModel, param):
        return "param_" + param.lstrip("_")
    return param


# -- the docstring ------------------------------------------------------------------------


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The description and the parameter descriptions of a cleaned docstring.

    Reads Google-style sections (``Args:`` with ``name (type): text`` entries, the text
    continued on more-indented lines) and reST fields (``:param name: text``,
    ``:param int name: text``). The description is the text before the first section
    or field; other sections (``Returns:``, ``Raises:``, ...) are left out. ``doc`` is
    dedented, as `inspect.getdoc` returns it.
    """
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None  # None (the description), "params", "fields" or "other"
    current: str | None = None  # the parameter whose text may continue
    entry_indent: int | None = None  # of the entries in a Google parameter section
    for line in doc.expandtabs().splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        header = _SECTION.match(line)
        if header and header.group(1).lower() in _PARAM_SECTIONS | _OTHER_SECTIONS:
            section = "params" if header.group(1).lower() in _PARAM_SECTIONS else "other"
            current, entry_indent = None, None
            continue
        field = _REST_FIELD.match(line)
        if field:
            section, current = "fields", None
            kind, target, text = field.groups()
            if kind in _REST_PARAM_KINDS and target:
                current = target.split()[-1]
                params[current] = text.strip()
            continue
        if section is None:
            description.append(line)
        elif not stripped or section == "other":
            continue
        elif section == "params" and indent <= (entry_indent or indent):
            entry_indent = indent
            entry = _GOOGLE_PARAM.match(stripped)
            current = entry.group(1) if entry else None
            if current is not None and entry is not None:
                params[current] = entry.group(2).strip()
        elif current is not None and indent > (entry_indent or 0):
            params[current] = f"{params[current]} {stripped}".strip()
    return "\n".join(description).strip(), params
