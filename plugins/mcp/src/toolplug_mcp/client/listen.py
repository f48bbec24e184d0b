"""Change events of a 2026-07-28 server, heard on a ``subscriptions/listen`` stream.

At the 2026-07-28 revision a server no longer sends ``notifications/tools/list_changed``
by itself: the client opens a ``subscriptions/listen`` request, whose answer is a
stream of the events it asked for. :func:`listening` keeps such a stream open for as
long as a connection lives, when the server says it has tool list changes to tell
(``tools.listChanged``); at earlier revisions the notifications come on their own and
nothing is opened.

Imports the MCP SDK: loaded only when a server is opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from mcp.client.subscriptions import listen
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger("toolplug.mcp")

#: How long closing the stream may take before its task is left to end on its own.
CLOSE_TIMEOUT = 5.0


@contextlib.asynccontextmanager
async def listening(client: Any, server: str, changed: Callable[[], None]) -> AsyncIterator[None]:
    """While the block runs, call ``changed()`` for each tool list change the server
    announces on a listen stream (opened only when the connection and server have
    one to give)."""
    capabilities = getattr(getattr(client, "server_capabilities", None), "tools", None)
    wanted = client.protocol_version in MODERN_PROTOCOL_VERSIONS and bool(
        getattr(capabilities, "list_changed", False)
    )
    if not wanted:
        yield
        return
    task = asyncio.create_task(_hear(client, server, changed), name=f"mcp-{server}-listen")
    try:
        yield
    finally:
        task.cancel()
        await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)


async def _hear(client: Any, server: str, changed: Callable[[], None]) -> None:
    try:
        async with listen(client.session, tools_list_changed=True) as events:
            async for _event in events:
                changed()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the stream is a convenience: a call still works without it
        log.info("MCP server '%s': its tool list changes are not heard: %s", server, exc)
