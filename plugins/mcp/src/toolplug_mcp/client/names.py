"""Provider-safe tool names for MCP tools, and the way back.

MCP allows dots in names and up to 128 characters; OpenAI takes ``[A-Za-z0-9_-]`` and
at most 64. Each MCP tool gets one exported name that every provider accepts, and the
mapping remembers which server tool that name calls.
"""

from __future__ import annotations

import hashlib
import re

#: The ``_meta`` key under which an exported tool names its server (and original tool).
META_KEY = "toolplug/mcp"
MAX_NAME = 64
SEPARATOR = "__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def exported_name(server: str | None, tool: str, taken: set[str]) -> str:
    """A unique provider-safe name for ``tool`` of ``server`` (prefixed when given).

    Unsafe characters become ``_``; a name too long or already taken is cut and given a
    short hash of the original, so that two tools never share a name.
    """
    original = f"{server}{SEPARATOR}{tool}" if server else tool
    name = _UNSAFE.sub("_", original) or "tool"
    if len(name) > MAX_NAME or name in taken:
        digest = hashlib.sha1(original.encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME - 9]}_{digest}"
        while name in taken:  # a hash collision: practically never, but never a clash
            digest = hashlib.sha1(digest.encode()).hexdigest()[:8]
            name = f"{name[: MAX_NAME - 9]}_{digest}"
    taken.add(name)
    return name
