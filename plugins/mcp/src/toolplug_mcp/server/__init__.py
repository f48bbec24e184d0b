"""The server role: toolplug tools served over MCP (``toolplug mcp serve``).

:mod:`~toolplug_mcp.server.serve` builds and runs the server,
:mod:`~toolplug_mcp.server.sessions` keeps one toolset per client session,
:mod:`~toolplug_mcp.server.security` guards HTTP, and
:mod:`~toolplug_mcp.server.deadlines` times out clients that send their requests slowly.
Nothing here is imported until the command runs.
"""
