"""A server schema's regular expressions, run by an engine that cannot backtrack.

A server's ``pattern`` (or ``patternProperties`` key) is text a stranger wrote. Run by
Python's ``re``, a pattern such as ``^(a+)+$`` takes exponential time on a short
argument, holding the GIL: every thread of the host stops, and no timeout can end the
check. So arguments are checked here with RE2 (``google-re2``), whose matching time
is linear in the argument.

RE2 does not run backreferences or lookarounds. A pattern it refuses is not checked by
the client at all (the server still checks its own arguments), with a warning naming
the tool; it is never handed to the backtracking engine. ``unevaluatedProperties``
would match ``patternProperties`` keys with ``re`` inside jsonschema, so in a schema
that has both it is left to the server too.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from typing import Any

import re2
from jsonschema import ValidationError, validators

log = logging.getLogger("toolplug.mcp")

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a refused pattern is reported once, by us, not on stderr


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> Any | None:
    """The pattern compiled by RE2, or ``None`` when RE2 cannot run it."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error:
        return None


def _matches(pattern: str, text: str) -> bool:
    """Whether ``pattern`` is found in ``text``; a pattern RE2 refuses matches anything
    (it is the server's to check)."""
    compiled = compile_pattern(pattern)
    return compiled is None or compiled.search(text) is not None


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _matches(str(pattern), instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        if compile_pattern(pattern) is None:
            continue
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = sorted(
        key
        for key in instance
        if key not in known and not any(_matches(pattern, key) for pattern in patterns)
    )
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif allowed is False and extras:
        verb = "was" if len(extras) == 1 else "were"
        names = ", ".join(repr(extra) for extra in extras)
        yield ValidationError(f"Additional properties are not allowed ({names} {verb} unexpected)")


def linear_validator(cls: Any) -> Any:
    """``cls`` with ``pattern``, ``patternProperties`` and ``additionalProperties``
    matched by RE2."""
    return validators.extend(
        cls,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )


def prepare(schema: dict[str, Any], origin: str) -> dict[str, Any]:
    """The schema arguments are validated against, with a warning (naming ``origin``)
    for each pattern left to the server; ``unevaluatedProperties`` is taken out when
    the schema also has ``patternProperties`` (see the module)."""
    found: list[str] = []
    pattern_properties = False
    for node in _subschemas(schema):
        if isinstance(node.get("pattern"), str):
            found.append(node["pattern"])
        if isinstance(node.get("patternProperties"), dict):
            pattern_properties = True
            found.extend(str(key) for key in node["patternProperties"])
    for pattern in dict.fromkeys(found):
        if compile_pattern(pattern) is None:
            log.warning(
                "%s: the pattern %r is not one RE2 runs (a backreference or a lookaround?); "
                "arguments are not checked against it here, the server checks them",
                origin,
                pattern,
            )
    if not pattern_properties or not any("unevaluatedProperties" in n for n in _subschemas(schema)):
        return schema
    log.warning(
        "%s: unevaluatedProperties beside patternProperties is not checked here; the "
        "server checks it",
        origin,
    )
    return _without_unevaluated(schema)  # type: ignore[no-any-return]


def _subschemas(node: Any) -> Iterator[dict[str, Any]]:
    """Every dict in the schema (a superset of its subschemas, which is enough here)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _without_unevaluated(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_unevaluated(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: _without_unevaluated(value)
        for key, value in node.items()
        if key != "unevaluatedProperties"
    }
