"""One toolset per MCP client session: created on its first call, closed at its end.

A session ends with the client's ``DELETE``, its idle timeout, or the server's
shutdown; its tools (a bash session, an undo history...) close with it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from toolplug import Tool as ToolSpec, ToolContext, ToolError, ToolRegistry, Toolset

from toolplug_mcp.server.security import TOKEN_ENV_VAR

DEFAULT_IDLE_TIMEOUT = 1800.0  # seconds a session may stay unused before its tools close


@dataclass
class _Session:
    toolset: Toolset
    last_used: float = field(default_factory=time.monotonic)


def client_context(context: ToolContext) -> ToolContext:
    """The context a client session's tools get: the server's token is never in its
    environment, and tools that start programs (bash) give them a minimal environment
    (``extra["inherit_env"] = False``) unless the host's context says otherwise."""
    env = {name: value for name, value in context.env.items() if name != TOKEN_ENV_VAR}
    return replace(context, env=env, extra={"inherit_env": False, **context.extra})


class SessionToolsets:
    """One :class:`~toolplug.Toolset` per MCP session, created on first use."""

    def __init__(
        self,
        registry: ToolRegistry,
        specs: Sequence[ToolSpec],
        context: ToolContext,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    ) -> None:
        self.registry = registry
        self.specs = list(specs)
        self.context = client_context(context)
        self.idle_timeout = idle_timeout
        #: Set for stdio, where the process serves exactly one client: one session.
        self.single_client = False
        self._sessions: dict[str, _Session] = {}
        self._creating: dict[str, asyncio.Future[Toolset]] = {}
        self._closed = False  # set by close_all: no session gets tools after it

    def __len__(self) -> int:
        return len(self._sessions)

    async def get(self, session_id: str) -> Toolset:
        """The session's toolset, created (off the event loop) on its first call.

        Raises :class:`~toolplug.ToolError` once the server is shutting down.
        """
        if self._closed:
            raise ToolError("the server is shutting down")
        session = self._sessions.get(session_id)
        if session is not None:
            session.last_used = time.monotonic()
            return session.toolset
        pending = self._creating.get(session_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Toolset] = asyncio.get_running_loop().create_future()
        self._creating[session_id] = future
        try:
            await self.reap_idle()
            toolset = await asyncio.to_thread(
                Toolset.load, self.specs, registry=self.registry, context=self.context
            )
            if self._closed:  # shut down while the tools were being created
                await toolset.aclose()
                raise ToolError("the server is shutting down")
            self._sessions[session_id] = _Session(toolset)
            future.set_result(toolset)
            return toolset
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters, if any, get it through shield
            raise
        finally:
            del self._creating[session_id]

    async def end(self, session_id: str) -> None:
        """Close a session's tools (nothing happens for an unknown session)."""
        session = self._sessions.pop(session_id, None)
        if session is not None:
            await session.toolset.aclose()

    async def reap_idle(self) -> None:
        """Close the tools of sessions unused for longer than the idle timeout."""
        now = time.monotonic()
        idle = [s for s, v in self._sessions.items() if now - v.last_used > self.idle_timeout]
        for session_id in idle:
            await self.end(session_id)

    async def close_all(self) -> None:
        """Close every session's tools (at shutdown); later calls get none."""
        self._closed = True
        await asyncio.gather(*(self.end(s) for s in list(self._sessions)))
