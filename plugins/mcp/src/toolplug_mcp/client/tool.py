"""MCP server tools as toolplug tools: the definition, and the ``mcp`` factory."""

from __future__ import annotations

import copy
import json
from typing import Any

from toolplug import (
    SECURITY_RISK_FIELD,
    ArgumentError,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolError,
    Toolset,
    describe_schema,
    parse_arguments,
    with_security_risk,
)
from toolplug.loop import run_sync

from toolplug_mcp.client.changes import ToolsFollower
from toolplug_mcp.client.config import MAX_SERVER_REQUESTS, load_config
from toolplug_mcp.client.connection import ServerConnection, ServerPool
from toolplug_mcp.client.executor import McpExecutor
from toolplug_mcp.client.names import META_KEY, exported_name, exported_names, full_name
from toolplug_mcp.client.resources import resource_tools
from toolplug_mcp.client.results import wire as to_wire
from toolplug_mcp.client.schemas import (
    allows_null,
    describe_errors,
    dialect,
    expects_structure,
    export_output_schema,
    export_schema,
    make_validator,
)
from toolplug_mcp.client.types import McpArguments, McpObservation

#: The names of the two resource tools of a server (before any prefix).
RESOURCE_TOOL_NAMES = ("list_resources", "read_resource")


class McpTool(ToolDefinition[McpArguments, McpObservation]):
    """One tool of one MCP server.

    The exported input schema is the server's own (cleaned only of what providers
    reject); arguments are validated against it with ``jsonschema`` before the call.
    """

    def __init__(
        self, *, name: str, remote: Any, connection: ServerConnection, pool: ServerPool
    ) -> None:
        wire = to_wire(remote)
        raw_input = wire.get("inputSchema") or {"type": "object", "properties": {}}
        exported = export_schema(raw_input)
        action_type = type(f"McpArguments_{name}", (McpArguments,), {"server_schema": exported})
        meta = {
            **(wire.get("_meta") or {}),
            META_KEY: {"server": connection.spec.name, "tool": remote.name},
        }
        super().__init__(
            name=name,
            description=wire.get("description")
            or f"Tool '{remote.name}' of MCP server '{connection.spec.name}'.",
            action_type=action_type,
            observation_type=McpObservation,
            executor=McpExecutor(pool, connection, remote.name, name),
            annotations=_annotations(wire.get("annotations")),
            title=wire.get("title"),
            meta=meta,
        )
        self.server = connection.spec.name
        self.remote_name: str = remote.name
        self.pool = pool
        #: The server's listing of the tool (MCP's wire form), to tell when it changed.
        self.listing: dict[str, Any] = wire
        self.origin = f"tool '{remote.name}' of MCP server '{self.server}'"
        self._input_schema = exported
        self._output_schema = export_output_schema(wire.get("outputSchema"))
        self._validator = make_validator(raw_input, self.origin)
        #: The ``$schema`` the server declared (the MCP export gives it back).
        self.schema_dialect = dialect(raw_input)

    # -- following the server's tool list (see toolplug_mcp.client.changes) -------------

    def added_to(self, toolset: Toolset) -> None:
        """The core's call when a toolset takes this tool: the toolset is followed."""
        if self.pool.follower is not None:
            self.pool.follower.follow(toolset, self)

    def like(self, name: str, remote: Any, connection: ServerConnection) -> McpTool:
        """Another tool of the pool, made as this one was (the same ``tool_call`` hooks)."""
        tool = McpTool(name=name, remote=remote, connection=connection, pool=self.pool)
        bound = tool.bind_hooks(self._hooks, self._context)
        assert isinstance(bound, McpTool)  # a copy of the tool
        return bound

    def differs(self, connection: ServerConnection, remote: Any) -> bool:
        """Whether ``remote`` (a listed tool) is another tool than this, or changed."""
        same = connection.spec.name == self.server and remote.name == self.remote_name
        return not same or to_wire(remote) != self.listing

    def input_schema(self, *, security_risk: bool = False) -> dict[str, Any]:
        """The server's input schema, as every provider accepts it."""
        schema = copy.deepcopy(self._input_schema)
        if security_risk and not self.read_only:
            schema = with_security_risk(schema)
        return schema

    def output_schema(self) -> dict[str, Any] | None:
        """The server's ``outputSchema``, if it declared one."""
        return copy.deepcopy(self._output_schema)

    def parse_action(self, arguments: Any) -> tuple[McpArguments, list[str]]:
        """Decode, repair what is unambiguous, and validate against the server's schema."""
        data, notes = parse_arguments(arguments)
        data.pop(SECURITY_RISK_FIELD, None)
        data = self._repair(data, notes)
        problems = describe_errors(self._validator, data)
        if problems:
            raise ArgumentError(
                "\n".join(
                    [
                        "Invalid arguments:",
                        *problems,
                        "The parameters are:",
                        describe_schema(self._input_schema),
                    ]
                )
            )
        return self.action_type.model_validate(data), notes

    def _repair(self, data: dict[str, Any], notes: list[str]) -> dict[str, Any]:
        """Fix the mistakes whose fix is certain, saying so in ``notes``.

        A ``null`` for an optional field that takes no null means "not given" (that is
        how OpenAI strict mode sends it); a JSON string where an object or array belongs
        is decoded; an unknown key is dropped when the schema allows no extra keys.
        """
        props: dict[str, Any] = self._input_schema.get("properties", {})
        required = set(self._input_schema.get("required", []))
        closed = self._input_schema.get("additionalProperties") is False
        fixed: dict[str, Any] = {}
        for key, value in data.items():
            prop = props.get(key)
            if prop is None and props and closed:
                notes.append(f"ignored the unknown argument '{key}'")
                continue
            if value is None and key not in required and not allows_null(prop):
                notes.append(f"'{key}' was null; left it out so the server uses its default")
                continue
            if isinstance(value, str) and expects_structure(prop):
                try:
                    decoded = json.loads(value)
                except json.JSONDecodeError:
                    decoded = None
                if isinstance(decoded, (dict, list)):
                    notes.append(f"'{key}' was a JSON string; parsed it")
                    value = decoded
            fixed[key] = value
        return fixed


def _annotations(raw: Any) -> ToolAnnotations | None:
    if not isinstance(raw, dict):
        return None
    known = {k: v for k, v in raw.items() if k in ToolAnnotations.model_fields}
    return ToolAnnotations(**known)


def plan(pool: ServerPool, taken: set[str]) -> list[tuple[str, ServerConnection, Any]]:
    """The exported name, connection and listed tool of each tool of the pool's servers.

    Names are prefixed as each server's ``prefix`` says: by default with the server's
    key when several servers are configured (see :meth:`ServerSpec.tool_prefix`). No
    name in ``taken`` is given; the names given are added to it.
    """
    enabled = [c for c in pool.connections.values() if not c.spec.disabled]
    several = len(enabled) > 1
    listed = [(conn, remote) for conn in enabled for remote in conn.tools]
    names = exported_names(
        [full_name(conn.spec.tool_prefix(several), remote.name) for conn, remote in listed],
        taken,
    )
    return [(name, conn, remote) for name, (conn, remote) in zip(names, listed)]


def build_tools(pool: ServerPool, *, resources: bool = True) -> list[ToolDefinition[Any, Any]]:
    """One definition per tool of every connected server in the pool (see :func:`plan`
    for the names), and, with ``resources``, the two resource tools of each server that
    offers resources.
    """
    enabled = [c for c in pool.connections.values() if not c.spec.disabled]
    several = len(enabled) > 1
    taken: set[str] = set()
    tools: list[ToolDefinition[Any, Any]] = [
        McpTool(name=name, remote=remote, connection=conn, pool=pool)
        for name, conn, remote in plan(pool, taken)
    ]
    # After every server's own tools, so that those keep their names.
    for conn in enabled:
        if resources and conn.offers_resources:
            prefix = conn.spec.tool_prefix(several)
            list_name, read_name = (exported_name(prefix, n, taken) for n in RESOURCE_TOOL_NAMES)
            tools += resource_tools(list_name, read_name, pool, conn)
    return tools


def mcp_tools(
    context: ToolContext,
    *,
    config: Any = None,
    timeout: float = 60.0,
    init_timeout: float = 30.0,
    resources: bool = True,
    max_server_requests: int = MAX_SERVER_REQUESTS,
) -> list[ToolDefinition[Any, Any]]:
    """The ``mcp`` factory: one tool per tool of every configured MCP server.

    ``config`` is an ``{"mcpServers": {...}}`` mapping or a JSON file's path; without
    it, ``TOOLPLUG_MCP_CONFIG`` names the file, else ``.toolplug/mcp.json`` in the
    workspace is read, else there are no servers and no tools. ``timeout`` is the
    default per-call timeout in seconds (a server's own ``timeout``, in milliseconds as
    the format has it, wins); ``init_timeout`` bounds each server's start. With
    ``resources`` (the default), a server that offers resources also gets a
    ``list_resources`` and a ``read_resource`` tool. ``max_server_requests`` is how many
    sampling and elicitation requests a server may send during one call (a server's own
    ``maxServerRequests`` wins); past it each is refused.

    The host's handlers (``context.handlers``) are served to the servers (sampling,
    questions, roots, progress, logs: see :mod:`~toolplug_mcp.client.handlers`), and
    a toolset holding these tools follows the servers' tool lists
    (:mod:`~toolplug_mcp.client.changes`).
    """
    if timeout <= 0 or init_timeout <= 0:
        raise ValueError("timeout and init_timeout must be positive numbers of seconds")
    loaded = load_config(
        config,
        env=context.env,
        workspace=context.workspace,
        timeout=timeout,
        init_timeout=init_timeout,
        max_server_requests=max_server_requests,
    )
    if loaded is None:
        return []
    pool = ServerPool(
        loaded.servers, loaded.source, handlers=context.handlers, workspace=context.workspace
    )
    pool.follower = ToolsFollower(pool, plan)
    try:
        # A server signed in to with OAuth may wait for a person in a browser.
        start = max((s.start_timeout for s in loaded.servers), default=init_timeout)
        run_sync(pool.start(resources=resources), timeout=start + 30)
        tools = build_tools(pool, resources=resources)
    except BaseException:
        pool.close()
        raise
    if not tools:
        failed = [c for c in pool.connections.values() if c.status == "failed"]
        pool.close()
        if failed:
            reasons = "\n".join(f"- {c.spec.name}: {c.error}" for c in failed)
            raise ToolError(f"no MCP server of {loaded.source} could be started:\n{reasons}")
    return list(tools)
