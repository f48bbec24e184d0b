"""Tool names every provider accepts, and the way back to the tools' own names.

One scheme serves every format and every part of toolplug (export, dispatch, compose,
the MCP plugin's prefixed server tools). A provider-safe name matches
``^[A-Za-z_][A-Za-z0-9_-]{0,63}$``: OpenAI's rule (at most 64 of ``[A-Za-z0-9_-]``),
which is also within Anthropic's and Bedrock's, plus Gemini's first character (a letter
or ``_``). A name that already matches stays as it is; any other has each run of other
characters replaced by ``_`` (and ``_`` put first where needed). When that is still too
long, or gives a name another tool already has, it is cut and ends in ``_`` and eight hex
digits of the SHA-256 of the original name.

:class:`NameMap` maps a set of names both ways; the mapping depends only on the set of
names, not their order, so a tool keeps its exported name from one request to the next.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from toolplug._text import VALUE_LIMIT, cut, cut_list

__all__ = [
    "MAX_LENGTH",
    "NameMap",
    "name_map",
    "provider_name",
    "unique_name",
    "unknown_tool_message",
]

MAX_LENGTH = 64
_VALID = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_INVALID_RUN = re.compile(r"[^A-Za-z0-9_-]+")
_HASH_LENGTH = 8
_LISTED = 100  # tool names an unknown-tool message lists: a model picks from them


def _readable(name: str) -> str:
    readable = _INVALID_RUN.sub("_", name) or "_"
    return readable if re.match(r"[A-Za-z_]", readable) else f"_{readable}"


def _hashed(name: str, salt: int = 0) -> str:
    """The readable name cut short, then ``_`` and a hash of the original."""
    digest = hashlib.sha256(f"{name}#{salt}".encode() if salt else name.encode()).hexdigest()
    readable = _readable(name)[: MAX_LENGTH - _HASH_LENGTH - 1]
    return f"{readable}_{digest[:_HASH_LENGTH]}"


def provider_name(name: str) -> str:
    """The provider-safe name for one tool name, on its own.

    ``"github.create_issue"`` becomes ``"github_create_issue"``; a name over 64
    characters is cut and given a hash of the original. Use :class:`NameMap` for a set
    of names: it also settles collisions (``a.b`` next to ``a_b``).
    """
    if _VALID.fullmatch(name):
        return name
    readable = _readable(name)
    return readable if len(readable) <= MAX_LENGTH else _hashed(name)


def unique_name(name: str, taken: Collection[str]) -> str:
    """A provider-safe name for ``name`` that is not in ``taken``.

    For names given one at a time (an MCP server's tools, as they are listed): the
    :func:`provider_name` when it is free, else a hashed one.
    """
    candidate = provider_name(name)
    salt = 0
    while candidate in taken:  # a hash collision needs a second try: practically never
        candidate = _hashed(name, salt)
        salt += 1
    return candidate


class NameMap:
    """The provider names of a set of tool names, both ways.

    ``external(name)`` is the name to export; ``internal(provider_name)`` is the tool's
    own name again (``None`` for a name that is not in the map).
    """

    def __init__(self, names: Iterable[str]) -> None:
        names = sorted(set(names))
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


def unknown_tool_message(name: str, known: Iterable[str], *, aliases: Iterable[str] = ()) -> str:
    """The one message for a tool name that is not there, for a model or a person.

    It suggests the closest of ``known`` and ``aliases`` (difflib's ratio, as a
    spelling checker would) and lists the ``known`` names; aliases are only suggested,
    not listed, since every alias leads to a listed tool. The name echoed is cut to a
    bounded length, and at most 100 names are listed, with a note for the rest.
    """
    known = list(known)
    close = []
    if len(name) <= VALUE_LIMIT:  # a long name is like no tool's, and slow to compare
        close = difflib.get_close_matches(name, [*known, *aliases], n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    listed = cut_list(known, _LISTED) or "none"
    return f"There is no tool named '{cut(name)}'.{hint} Available tools: {listed}."
