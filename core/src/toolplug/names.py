"""Tool names every provider accepts, and the way back to the toolset's own names.

OpenAI takes ``^[a-zA-Z0-9_-]{1,64}$``, Anthropic the same up to 128 characters, MCP
also allows dots. One mapping serves every format: a name providers accept stays as it
is; any other name has each run of other characters replaced by ``_`` and, when that
is still too long or collides with another tool's name, is cut and given a short hash
of the original name. The mapping is deterministic (it depends only on the set of
names, not their order) and :class:`NameMap` reverses it.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

MAX_LENGTH = 64
_VALID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_INVALID_RUN = re.compile(r"[^A-Za-z0-9_-]+")
_HASH_LENGTH = 8


def _hashed(name: str) -> str:
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_HASH_LENGTH]
    readable = _INVALID_RUN.sub("_", name)[: MAX_LENGTH - _HASH_LENGTH - 1]
    return f"{readable}_{digest}"


def provider_name(name: str) -> str:
    """The name to show providers for one tool name, on its own.

    ``"github.create_issue"`` becomes ``"github_create_issue"``; a name over 64
    characters is cut and given a hash of the original. Use :class:`NameMap` for a set
    of names: it also settles collisions (``a.b`` next to ``a_b``).
    """
    if _VALID.fullmatch(name):
        return name
    readable = _INVALID_RUN.sub("_", name)
    return readable if len(readable) <= MAX_LENGTH else _hashed(name)


class NameMap:
    """The provider names of a set of tool names, both ways.

    ``external(name)`` is the name to export; ``internal(provider_name)`` is the tool's
    own name again (``None`` for a name that is not in the map).
    """

    def __init__(self, names: Iterable[str]) -> None:
        names = list(names)
        proposed = {name: provider_name(name) for name in names}
        counts = Counter(proposed.values())
        self._out: dict[str, str] = {}
        for name in names:
            external = proposed[name]
            if external != name and counts[external] > 1:
                external = _hashed(name)
            self._out[name] = external
        self._in = {external: name for name, external in self._out.items()}

    def external(self, name: str) -> str:
        """The name providers see for the tool ``name``."""
        return self._out.get(name) or provider_name(name)

    def internal(self, external: str) -> str | None:
        """The tool's own name for a provider name, or ``None`` if none maps to it."""
        return self._in.get(external)

    def __repr__(self) -> str:
        changed = {k: v for k, v in self._out.items() if k != v}
        return f"NameMap({changed})"


@functools.lru_cache(maxsize=128)
def _cached(names: tuple[str, ...]) -> NameMap:
    return NameMap(names)


def name_map(tools: Mapping[str, Any] | Iterable[str]) -> NameMap:
    """The :class:`NameMap` of a toolset's names (cached for the same set of names)."""
    return _cached(tuple(sorted(tools)))


def rename_tool(spec: dict[str, Any], name: str) -> dict[str, Any]:
    """Set the name in one exported tool (Chat Completions' nested shape or a flat one)."""
    function = spec.get("function")
    if isinstance(function, dict):
        spec["function"] = {**function, "name": name}
    else:
        spec["name"] = name
    return spec


def unknown_tool_message(name: str, known: Iterable[str], *, aliases: Iterable[str] = ()) -> str:
    """The one message for a tool name that is not there, for a model or a person.

    It suggests the closest of ``known`` and ``aliases`` (difflib's ratio, as a
    spelling checker would) and lists the ``known`` names; aliases are only suggested,
    not listed, since every alias leads to a listed tool.
    """
    import difflib

    known = list(known)
    close = difflib.get_close_matches(name, [*known, *aliases], n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    return f"There is no tool named '{name}'.{hint} Available tools: {', '.join(known) or 'none'}."
