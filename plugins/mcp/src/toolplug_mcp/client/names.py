"""Provider-safe tool names for MCP tools, and the way back.

MCP allows dots in names and up to 128 characters; OpenAI takes ``[A-Za-z0-9_-]`` and
at most 64. Each MCP tool gets one exported name that every provider accepts, and the
mapping remembers which server tool that name calls.

A name that is already provider-safe is kept as it is; only a name that has to be
rewritten can be given a hash suffix. So ``files.read`` never takes the name of a
``files_read`` beside it, whichever of the two the server lists first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from toolplug import provider_name, unique_name

#: The ``_meta`` key under which an exported tool names its server (and original tool).
META_KEY = "toolplug/mcp"
SEPARATOR = "__"


def full_name(prefix: str | None, tool: str) -> str:
    """The tool's name behind its server's prefix (``time__get_current_time``)."""
    return f"{prefix}{SEPARATOR}{tool}" if prefix else tool


def exported_names(originals: Sequence[str], taken: set[str]) -> list[str]:
    """A unique provider-safe name for each of ``originals`` (each prefixed already).

    In two passes, so that the result does not depend on the order of the names:
    first every name that providers accept as it is keeps it (when two are equal, the
    first keeps it); then each rewritten name (``files.read`` -> ``files_read``) takes
    its rewrite if no other name has it or wants it, else the core's hashed form
    (:func:`toolplug.unique_name`). Names in ``taken`` are never given, and the names
    given are added to it.
    """
    names: list[str | None] = [None] * len(originals)
    rewritten: list[int] = []
    for i, original in enumerate(originals):
        if provider_name(original) == original and original not in taken:
            names[i] = original
            taken.add(original)
        else:
            rewritten.append(i)
    wanted = Counter(provider_name(originals[i]) for i in rewritten)
    for i in rewritten:
        proposed = provider_name(originals[i])
        if wanted[proposed] == 1 and proposed not in taken:
            name = proposed
        else:  # shared or already taken: the hash of the original tells them apart
            name = unique_name(originals[i], taken | {proposed})
        names[i] = name
        taken.add(name)
    return [name for name in names if name is not None]


def exported_name(prefix: str | None, tool: str, taken: set[str]) -> str:
    """A unique provider-safe name for one tool of a server (prefixed when given).

    For names given one at a time after the servers' own (the resource tools); the
    name is added to ``taken``.
    """
    name = unique_name(full_name(prefix, tool), taken)
    taken.add(name)
    return name
