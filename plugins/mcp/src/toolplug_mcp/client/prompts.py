"""MCP servers' prompts: listed, and filled in with arguments, from Python.

A server may offer *prompts*: named message templates (``review`` with a ``code``
argument) that a host fills in and puts in front of its model. They are for the host,
not the model, so they are not tools: :class:`Prompts` reaches them over the servers'
connections.

- ``toolplug_mcp.prompts(toolset)`` gives the prompts of the servers whose tools the
  toolset holds, over the connections those tools use (no server is started again);
- ``toolplug_mcp.open_prompts(config)`` starts the configured servers for the prompts
  alone, and ends them when its ``with`` ends (what ``toolplug mcp prompts`` uses).

Each method has an async twin (``alist_prompts``, ``aget_prompt``) that works from any event loop.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolplug import ToolContext, Toolset
from toolplug.loop import arun, run_sync

from toolplug_mcp.client.config import load_config
from toolplug_mcp.client.connection import ServerConnection, ServerPool
from toolplug_mcp.client.executor import ServerExecutor
from toolplug_mcp.client.results import wire
from toolplug_mcp.errors import PromptError, RequestFailed


@dataclass(frozen=True)
class PromptArgument:
    """One argument of a prompt (MCP sends every argument as a string)."""

    name: str
    description: str | None = None
    required: bool = False


@dataclass(frozen=True)
class Prompt:
    """A prompt one server offers."""

    server: str
    name: str
    title: str | None = None
    description: str | None = None
    arguments: tuple[PromptArgument, ...] = ()


@dataclass(frozen=True)
class PromptMessages:
    """A prompt filled in: its messages, in MCP's wire form (``{"role", "content"}``,
    each content a text, image, audio, resource link or embedded resource block)."""

    server: str
    name: str
    description: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)

    def text(self) -> str:
        """The messages as plain text, each under its role (``[user]``); what is not
        text is shown by its type (``<image image/png>``)."""
        parts = []
        for message in self.messages:
            parts.append(f"[{message.get('role', '?')}]\n{_block_text(message.get('content'))}")
        return "\n\n".join(parts)


class Prompts:
    """The prompts of the MCP servers of one or more pools (see the module)."""

    def __init__(self, pools: list[ServerPool], timeout: float = 30.0) -> None:
        self._connections: dict[str, ServerConnection] = {}
        for pool in pools:
            for name, connection in pool.connections.items():
                if not connection.spec.disabled:
                    self._connections.setdefault(name, connection)
        self.timeout = timeout

    @property
    def servers(self) -> list[str]:
        """The servers' keys, as the configuration names them."""
        return list(self._connections)

    def list_prompts(self, server: str | None = None) -> list[Prompt]:
        """Every server's prompts (or one server's); a server that cannot be reached
        is left out of a listing of all (and named by a :class:`PromptError` when it
        was asked for by name)."""
        return run_sync(self.alist_prompts(server), timeout=self.timeout + 30)

    def get_prompt(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, server: str | None = None
    ) -> PromptMessages:
        """The prompt ``name`` filled in with ``arguments`` (values that are not strings
        are sent as JSON). ``server`` is needed only when several servers have a prompt
        of that name. Raises :class:`PromptError` for an unknown server or prompt, a
        missing required argument, or a server that failed."""
        return run_sync(self.aget_prompt(name, arguments, server=server), timeout=self.timeout + 30)

    async def alist_prompts(self, server: str | None = None) -> list[Prompt]:
        """Async :meth:`list_prompts`."""
        return await arun(self._list(server))

    async def aget_prompt(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, server: str | None = None
    ) -> PromptMessages:
        """Async :meth:`get_prompt`."""
        return await arun(self._get(name, dict(arguments or {}), server))

    # -- on the client loop ------------------------------------------------------------

    async def _list(self, server: str | None) -> list[Prompt]:
        found: list[Prompt] = []
        for connection in self._chosen(server):
            try:
                listed = await connection.list_prompts(self.timeout)
            except RequestFailed as exc:
                if server is not None:
                    raise PromptError(str(exc)) from None
                continue
            found += [_prompt(connection.spec.name, prompt) for prompt in listed]
        return found

    async def _get(
        self, name: str, arguments: dict[str, Any], server: str | None
    ) -> PromptMessages:
        prompt = _one(name, server, await self._list(server))
        missing = [a for a in prompt.arguments if a.required and a.name not in arguments]
        if missing:
            needs = ", ".join(
                a.name + (f" ({a.description})" if a.description else "") for a in missing
            )
            raise PromptError(f"prompt '{name}' of MCP server '{prompt.server}' needs: {needs}")
        sent = {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}
        connection = self._connections[prompt.server]
        try:
            result = await connection.get_prompt(name, sent, self.timeout)
        except RequestFailed as exc:
            raise PromptError(str(exc)) from None
        return PromptMessages(
            server=prompt.server,
            name=name,
            description=getattr(result, "description", None),
            messages=[wire(message) for message in result.messages],
        )

    def _chosen(self, server: str | None) -> list[ServerConnection]:
        if server is None:
            return list(self._connections.values())
        if server not in self._connections:
            known = ", ".join(self._connections) or "none"
            raise PromptError(f"there is no MCP server '{server}' here; the servers: {known}")
        return [self._connections[server]]

    # -- making one --------------------------------------------------------------------

    @classmethod
    def of(cls, toolset: Toolset, timeout: float = 30.0) -> Prompts:
        """The prompts of the servers behind the toolset's MCP tools."""
        pools: list[ServerPool] = []
        for tool in toolset.values():
            executor = tool.executor
            if isinstance(executor, ServerExecutor) and executor.pool not in pools:
                pools.append(executor.pool)
        return cls(pools, timeout)


@contextmanager
def open_prompts(
    config: Any = None, *, workspace: str | Path | None = None, timeout: float = 30.0
) -> Iterator[Prompts]:
    """Start the configured MCP servers (``config`` as the ``mcp`` factory reads it)
    and give their prompts; the servers end with the ``with`` block."""
    context = ToolContext(workspace=Path(workspace)) if workspace else ToolContext()
    loaded = load_config(
        config, env=context.env, workspace=context.workspace, timeout=timeout, init_timeout=timeout
    )
    if loaded is None:
        yield Prompts([], timeout)
        return
    pool = ServerPool(loaded.servers, loaded.source, workspace=context.workspace)
    try:
        run_sync(pool.start(resources=False), timeout=timeout + 30)
        yield Prompts([pool], timeout)
    finally:
        pool.close()


def _one(name: str, server: str | None, prompts: list[Prompt]) -> Prompt:
    """The one prompt of that name, or a :class:`PromptError` that lists what exists."""
    matching = [p for p in prompts if p.name == name]
    if len(matching) == 1:
        return matching[0]
    if matching:
        servers = ", ".join(p.server for p in matching)
        raise PromptError(f"several MCP servers have a prompt '{name}' ({servers}); name one")
    where = f"MCP server '{server}'" if server else "no MCP server here"
    known = ", ".join(sorted({p.name for p in prompts})) or "none"
    if server:
        raise PromptError(f"{where} has no prompt '{name}'; its prompts: {known}")
    raise PromptError(f"{where} has a prompt '{name}'; the prompts: {known}")


def _prompt(server: str, prompt: Any) -> Prompt:
    arguments = tuple(
        PromptArgument(a.name, getattr(a, "description", None), bool(getattr(a, "required", False)))
        for a in (prompt.arguments or [])
    )
    return Prompt(
        server=server,
        name=prompt.name,
        title=getattr(prompt, "title", None),
        description=prompt.description,
        arguments=arguments,
    )


def _block_text(block: Any) -> str:
    if not isinstance(block, dict):
        return str(block)
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "resource":
        resource = block.get("resource") or {}
        if "text" in resource:
            return str(resource["text"])
        return f"<resource {resource.get('uri', '')}>"
    if kind == "resource_link":
        return f"<resource link {block.get('uri', '')}>"
    return f"<{kind} {block.get('mimeType', '')}>".replace(" >", ">")
