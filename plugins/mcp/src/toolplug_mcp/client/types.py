"""The types of an MCP tool: its arguments (the server's own) and its observation.

Each MCP tool has its server's input schema and output schema rather than fixed
fields: :class:`McpArguments` keeps the arguments as extra fields and exports the
server's schema, :class:`McpObservation` keeps the ``structuredContent`` as it came.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from pydantic import ConfigDict, Field
from toolplug import Action, Observation


class McpArguments(Action):
    """The arguments of an MCP tool, validated against the server's ``inputSchema``.

    The fields are the server's, so they are kept as extra fields; each tool gets a
    subclass whose :meth:`model_json_schema` is that server schema.
    """

    model_config = ConfigDict(extra="allow")
    server_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The server's input schema (as exported)."""
        return copy.deepcopy(cls.server_schema)

    def arguments(self) -> dict[str, Any]:
        """The arguments as they are sent to the server."""
        return dict(self.model_extra or {})


class McpObservation(Observation):
    """The result of an MCP tool: its content blocks, plus its ``structuredContent``."""

    structured: dict[str, Any] | None = Field(
        default=None, description="The server's structuredContent, as it sent it."
    )

    def structured_content(self) -> dict[str, Any] | None:
        """The server's ``structuredContent`` unchanged (also on errors, if it sent one)."""
        return self.structured

    @classmethod
    def output_schema(cls) -> dict[str, Any] | None:
        """Not known per class: each MCP tool carries its server's ``outputSchema``."""
        return None
