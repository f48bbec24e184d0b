"""The client role: every configured MCP server's tools as toolplug tools.

:mod:`~toolplug_mcp.client.config` reads the ``mcpServers`` configuration,
:mod:`~toolplug_mcp.client.connection` keeps the server connections (and
:mod:`~toolplug_mcp.client.stderr` a stdio server's last words,
:mod:`~toolplug_mcp.client.oauth` the OAuth sign-in of a remote server,
:mod:`~toolplug_mcp.client.unauthorized` what its HTTP 401 means,
:mod:`~toolplug_mcp.client.wire` what it reads before the MCP SDK does,
:mod:`~toolplug_mcp.client.tasks` and :mod:`~toolplug_mcp.client.tasks_2025` the
tools that run as tasks, :mod:`~toolplug_mcp.client.handlers` the host's handlers a
server may turn to, :mod:`~toolplug_mcp.client.changes` and :mod:`~toolplug_mcp.client.listen` the
tool list changes it announces), :mod:`~toolplug_mcp.client.prompts` gives the servers' prompts,
:mod:`~toolplug_mcp.client.types`, :mod:`~toolplug_mcp.client.executor` and
:mod:`~toolplug_mcp.client.tool` are the plugin shape (the ``mcp`` factory is in
``tool``), with :mod:`~toolplug_mcp.client.schemas`, :mod:`~toolplug_mcp.client.results`,
:mod:`~toolplug_mcp.client.resources` and :mod:`~toolplug_mcp.client.names` beside them.
Nothing here is imported until a server is configured or ``toolplug mcp list`` runs.
"""
