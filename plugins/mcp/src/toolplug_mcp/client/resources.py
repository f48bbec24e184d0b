"""An MCP server's resources as two tools: list them, and read one by its URI.

MCP servers offer *resources* (files, records, settings, named by URIs) beside their
tools. A model reaches them through two tools per server that offers any, named as
its tools are (``list_resources`` and ``read_resource``, prefixed with the server's
key when several servers are configured): the listing gives every resource and
resource template, and a read returns the contents as content blocks (text as text,
images and audio as such, other binary data as an embedded resource).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from toolplug import (
    Action,
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    Observation,
    TextContent,
    ToolAnnotations,
    ToolDefinition,
)
from toolplug.loop import arun

from toolplug_mcp.client.connection import ServerConnection, ServerPool
from toolplug_mcp.client.executor import ServerExecutor
from toolplug_mcp.client.names import META_KEY
from toolplug_mcp.client.results import wire
from toolplug_mcp.errors import RequestFailed

#: Reading a resource changes nothing; what it returns comes from outside.
RESOURCE_ANNOTATIONS = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=True
)


class ListResourcesAction(Action):
    """No arguments: the listing is the whole of the server's resources."""


class ReadResourceAction(Action):
    """Which resource to read."""

    uri: str = Field(
        description="The resource's URI, as the listing gives it; for a template, "
        "its {placeholders} filled in."
    )


class ResourceListing(Observation):
    """The resources and resource templates of one server."""

    resources: list[dict[str, Any]] = Field(
        default_factory=list, description="Each resource: uri, name, and what else it has."
    )
    templates: list[dict[str, Any]] = Field(
        default_factory=list, description="Each resource template: uriTemplate, name..."
    )


class ListResources(ServerExecutor):
    """Lists the server's resources and resource templates."""

    async def __call__(self, action: ListResourcesAction) -> Observation:
        return await arun(self._list())

    async def _list(self) -> Observation:
        try:
            resources, templates = await self.connection.list_resources(
                self.connection.spec.timeout
            )
        except RequestFailed as exc:
            return Observation.error(str(exc))
        listed = [wire(resource) for resource in resources]
        patterns = [wire(template) for template in templates]
        return ResourceListing.from_text(
            _listing_text(self.connection.spec.name, listed, patterns),
            resources=listed,
            templates=patterns,
        )


class ReadResource(ServerExecutor):
    """Reads one resource of the server."""

    async def __call__(self, action: ReadResourceAction) -> Observation:
        return await arun(self._read(action.uri))

    async def _read(self, uri: str) -> Observation:
        try:
            result = await self.connection.read_resource(uri, self.connection.spec.timeout)
        except RequestFailed as exc:
            return Observation.error(
                f"{exc}. List the resources to see which URIs this server has."
            )
        contents = [wire(item) for item in getattr(result, "contents", None) or []]
        if not contents:
            return Observation.from_text(f"The resource '{uri}' is empty.")
        return Observation(content=[_block(item) for item in contents])


def resource_tools(
    list_name: str, read_name: str, pool: ServerPool, connection: ServerConnection
) -> list[ToolDefinition[Any, Any]]:
    """The listing and reading tools of one server, under the two given names."""
    server = connection.spec.name
    meta = {META_KEY: {"server": server, "resources": True}}
    listing: ToolDefinition[Any, Any] = ToolDefinition(
        name=list_name,
        description=f"List the resources (files, records, documents) that MCP server "
        f"'{server}' offers, with their URIs, and its resource templates. Read one with "
        f"{read_name}.",
        action_type=ListResourcesAction,
        observation_type=ResourceListing,
        executor=ListResources(pool, connection),
        annotations=RESOURCE_ANNOTATIONS,
        meta=meta,
    )
    reading: ToolDefinition[Any, Any] = ToolDefinition(
        name=read_name,
        description=f"Read a resource of MCP server '{server}' by its URI (see "
        f"{list_name} for the URIs and templates).",
        action_type=ReadResourceAction,
        executor=ReadResource(pool, connection),
        annotations=RESOURCE_ANNOTATIONS,
        meta=meta,
    )
    for tool in (listing, reading):
        tool.origin = f"resources of MCP server '{server}'"
    return [listing, reading]


def _listing_text(
    server: str, resources: list[dict[str, Any]], templates: list[dict[str, Any]]
) -> str:
    if not resources and not templates:
        return f"MCP server '{server}' lists no resources."
    noun = "resource" if len(resources) == 1 else "resources"
    lines = [f"{len(resources)} {noun} of MCP server '{server}':"]
    lines += [_entry(item, "uri") for item in resources]
    if templates:
        lines.append("Resource templates (fill in the {placeholders} to get a URI to read):")
        lines += [_entry(item, "uriTemplate") for item in templates]
    return "\n".join(lines)


def _entry(item: dict[str, Any], key: str) -> str:
    line = f"- {item.get(key, '?')}"
    name, mime = item.get("title") or item.get("name"), item.get("mimeType")
    if name and name != item.get(key):
        line += f" ({name})"
    if mime:
        line += f" [{mime}]"
    if item.get("description"):
        line += f": {item['description']}"
    return line


def _block(item: dict[str, Any]) -> Any:
    """One item of a resource's contents as a content block."""
    mime = str(item.get("mimeType") or "")
    if "text" in item:
        return TextContent(text=str(item["text"]))
    blob = str(item.get("blob", ""))
    if mime.startswith("image/"):
        return ImageContent(data=blob, mimeType=mime)
    if mime.startswith("audio/"):
        return AudioContent(data=blob, mimeType=mime)
    return EmbeddedResource(
        resource=BlobResourceContents(uri=item.get("uri", ""), blob=blob, mimeType=mime or None)
    )
