"""Provider-safe tool names for MCP tools, and the way back.

MCP allows dots in names and up to 128 characters; OpenAI takes ``[A-Za-z0-9_-]`` and
at most 64. Each MCP tool gets one exported name that every provider accepts, and the
mapping remembers which server tool that name calls.
"""

from __future__ import annotations

from toolplug import unique_name

#: The ``_meta`` key under which an exported tool names its server (and original tool).
META_KEY = "toolplug/mcp"
SEPARATOR = "__"


def exported_name(server: str | None, tool: str, taken: set[str]) -> str:
    """A unique provider-safe name for ``tool`` of ``server`` (prefixed when given).

    The core's one naming scheme (:func:`toolplug.unique_name`): unsafe characters
    become ``_``; a name too long or already taken is cut and given a short hash of the
    original, so that two tools never share a name. The name is added to ``taken``.
    """
    original = f"{server}{SEPARATOR}{tool}" if server else tool
    name = unique_name(original, taken)
    taken.add(name)
    return name
