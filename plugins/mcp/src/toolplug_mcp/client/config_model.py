"""What an MCP configuration may hold, as pydantic models: the one check of its keys and
types, and the source of its JSON Schema (``docs/reference/mcp-config.schema.json``).

A server is a stdio server (a ``command``) or a remote one (a ``url``, over http or
sse): :func:`server_kind` reads which from the entry, and only that kind's keys are
checked (keys of other clients' formats are left alone, as the format has it).
:func:`problem` turns a pydantic error into the sentence a person reads. The models are
built once, at import, which :mod:`toolplug_mcp.client.config` does only when a
configuration is found; neither imports an MCP library.

Regenerate the published schema with ``python tools/schemas.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PlainValidator,
    StringConstraints,
    Tag,
    model_validator,
)
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import ErrorDetails, core_schema

#: Where the published schema lives, as its ``$id``.
SCHEMA_ID = (
    "https://raw.githubusercontent.com/toolplug/toolplug/main/docs/reference/mcp-config.schema.json"
)
#: Seconds a person has to finish an OAuth sign-in in the browser (the default).
OAUTH_LOGIN_TIMEOUT = 300.0
#: The ``transport`` (or ``type``) values, and the transport each names.
TRANSPORTS = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "sse": "sse",
}
_OAUTH_KEYS = ("scopes", "callback_port", "login_timeout", "cache_dir")


def server_kind(entry: Any) -> str | None:
    """``stdio``, ``http`` or ``sse`` for a server entry, or ``None`` when it says none
    (or names a transport there is not)."""
    if not isinstance(entry, Mapping):
        return None
    kind = entry.get("transport") or entry.get("type")
    if kind is None:
        if "command" in entry:
            return "stdio"
        if "url" not in entry:
            return None
        url = entry.get("url")
        return "sse" if isinstance(url, str) and re.search(r"/sse(/|\?|$)", url) else "http"
    return TRANSPORTS.get(kind) if isinstance(kind, str) else None


def _as_is(value: Any) -> Any:
    """Leave the value as it is: the transport was read from the entry by
    :func:`server_kind` before validation, and is declared for the schema only."""
    return value


def _strings(value: Any) -> dict[str, str]:
    """An object whose values are made strings (``None``: empty)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError("must be an object of strings")
    return {str(k): str(v) for k, v in value.items()}


def _scopes(value: Any) -> Any:
    """Scopes as a list: a space-separated string is split, nothing is none."""
    if not value:
        return []
    return value.split() if isinstance(value, str) else value


def _names(value: Any) -> Any:
    """Server names as strings."""
    return {str(k): v for k, v in value.items()} if isinstance(value, Mapping) else value


_NonEmpty = Annotated[str, StringConstraints(min_length=1)]
_StringMap = Annotated[
    dict[str, str], PlainValidator(_strings, json_schema_input_type=dict[str, str] | None)
]
_Strict = ConfigDict(strict=True, frozen=True)


class OAuthEntry(BaseModel):
    """How a server with "auth": "oauth" is signed in to."""

    model_config = ConfigDict(**_Strict, extra="forbid")

    scopes: Annotated[
        list[str], BeforeValidator(_scopes, json_schema_input_type=str | list[str] | None)
    ] = Field(
        default_factory=list,
        description="The scopes asked for: a list, or one space-separated string.",
    )
    callback_port: Annotated[int, Field(gt=0, lt=65536)] | None = Field(
        default=None, description="The port of the local callback (none: a free one)."
    )
    login_timeout: Annotated[float, Field(gt=0)] = Field(
        default=OAUTH_LOGIN_TIMEOUT,
        description="Seconds a person has to finish signing in in the browser.",
    )
    cache_dir: _NonEmpty | None = Field(
        default=None,
        description="The directory of the cached tokens (default: "
        "$XDG_CACHE_HOME/toolplug/mcp-oauth).",
    )

    @model_validator(mode="before")
    @classmethod
    def _known(cls, value: Any) -> Any:
        """Every unknown setting named at once, with the known ones."""
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ValueError("'oauth' must be an object")
        unknown = set(value) - set(_OAUTH_KEYS)
        if unknown:
            raise ValueError(
                f"unknown 'oauth' setting(s) {', '.join(sorted(unknown))}; "
                f"known: {', '.join(_OAUTH_KEYS)}"
            )
        return value


class _Server(BaseModel):
    """What every server may have."""

    model_config = _Strict

    timeout: Annotated[float, Field(gt=0)] | None = Field(
        default=None,
        description="How long one call may take, in milliseconds (the factory's "
        "`timeout` when left out).",
    )
    disabled: Annotated[bool, BeforeValidator(bool)] = Field(
        default=False, description="Leave this server out."
    )
    prefix: bool | _NonEmpty | None = Field(
        default=None,
        description="What its tool names are prefixed with: true (the server's key), "
        "false (nothing) or a prefix; left out: the key when several servers are "
        "configured.",
    )
    max_server_requests: Annotated[int, Field(ge=0)] | None = Field(
        default=None,
        validation_alias="maxServerRequests",
        title="maxServerRequests",
        description="How many sampling and elicitation requests the server may send "
        "during one call.",
    )


class StdioServer(_Server):
    """A server run as a command, spoken to over its stdin and stdout."""

    kind: ClassVar[str] = "stdio"

    transport: Annotated[
        Any, PlainValidator(_as_is, json_schema_input_type=Literal["stdio"] | None)
    ] = Field(
        default=None,
        validation_alias=AliasChoices("transport", "type"),
        description="How it is reached (`type` is read too); left out: from `command` or `url`.",
    )
    command: _NonEmpty = Field(description="The program to run.")
    args: Annotated[
        list[str], BeforeValidator(lambda v: v or [], json_schema_input_type=list[str] | None)
    ] = Field(default_factory=list, description="Its arguments.")
    env: _StringMap = Field(
        default_factory=dict,
        description="Its environment, besides HOME, PATH and a few others; ${VAR} is "
        "replaced by the host's value.",
    )
    cwd: Annotated[str | None, BeforeValidator(lambda v: str(v) if v else None)] = Field(
        default=None, description="Its working directory, relative to the workspace."
    )


class RemoteServer(_Server):
    """A server reached over HTTP: streamable HTTP, or the older SSE transport."""

    #: ``http`` or ``sse``.
    kind: ClassVar[str]

    transport: Annotated[
        Any,
        PlainValidator(
            _as_is,
            json_schema_input_type=Literal["http", "streamable-http", "streamable_http", "sse"]
            | None,
        ),
    ] = Field(
        default=None,
        validation_alias=AliasChoices("transport", "type"),
        description="How it is reached (`type` is read too); left out: sse for a URL "
        "ending in /sse, else http.",
    )
    url: Annotated[str, StringConstraints(pattern=r"^https?://")] = Field(
        description="The server's http(s) URL."
    )
    headers: _StringMap = Field(
        default_factory=dict,
        description="HTTP headers sent with every request; ${VAR} is replaced by the host's value.",
    )
    auth: _NonEmpty | None = Field(
        default=None,
        description='A bearer token (${VAR} is replaced), or "oauth" to sign in with OAuth.',
    )
    oauth: OAuthEntry | None = Field(
        default=None, description='How to sign in, with "auth": "oauth".'
    )

    @model_validator(mode="after")
    def _oauth_needs_auth(self) -> RemoteServer:
        if self.oauth is not None and self.auth != "oauth":
            raise ValueError('\'oauth\' settings need "auth": "oauth"')
        return self


class HttpServer(RemoteServer):
    """A server reached over streamable HTTP."""

    kind: ClassVar[str] = "http"


class SseServer(RemoteServer):
    """A server reached over the older SSE transport (a URL ending in /sse, or
    "transport": "sse")."""

    kind: ClassVar[str] = "sse"


Server = Annotated[
    Annotated[StdioServer, Tag("stdio")]
    | Annotated[HttpServer, Tag("http")]
    | Annotated[SseServer, Tag("sse")],
    Discriminator(server_kind),
]


class MCPConfigFile(BaseModel):
    """An MCP configuration in the standard mcpServers format (Claude Desktop's, Cursor's,
    FastMCP's): each server by name."""

    model_config = ConfigDict(
        frozen=True,
        title="toolplug MCP configuration",
        json_schema_extra={"$id": SCHEMA_ID},
    )

    servers: Annotated[dict[str, Server], BeforeValidator(_names)] = Field(
        validation_alias=AliasChoices("mcpServers", "servers"),
        title="mcpServers",
        description="The servers, by name.",
    )


# -- what a pydantic error means, in words -----------------------------------------------

#: The order of the checks, for the first error of several.
_ORDER = {
    key: i
    for i, key in enumerate(
        (
            "timeout",
            "prefix",
            "maxServerRequests",
            "command",
            "args",
            "env",
            "url",
            "headers",
            "oauth",
            "auth",
        )
    )
}
#: The sentence for an error at a key of a server, whatever pydantic found wrong.
_AT = {
    "timeout": "'timeout' must be a positive number of milliseconds",
    "prefix": "'prefix' must be true (the server's key), false (no prefix) or a non-empty "
    "string, not {input!r}",
    "maxServerRequests": "'maxServerRequests' must be a whole number, 0 or more",
    "command": "a stdio server needs a 'command' string",
    "args": "'args' must be a list of strings",
    "url": "a remote server needs an http(s) 'url'",
    "auth": "'auth' must be a bearer token (a non-empty string)",
    "oauth.scopes": "'oauth.scopes' must be a list of strings",
    "oauth.callback_port": "'oauth.callback_port' must be a port number",
    "oauth.login_timeout": "'oauth.login_timeout' must be a positive number of seconds",
    "oauth.cache_dir": "'oauth.cache_dir' must be a directory path",
}


def first(errors: list[ErrorDetails], names: list[str]) -> ErrorDetails:
    """The error to report of several: the first server's (``names`` in their order),
    in the order of the checks."""

    def rank(error: ErrorDetails) -> tuple[int, int]:
        loc = error["loc"]
        server = names.index(str(loc[1])) if len(loc) > 1 and str(loc[1]) in names else -1
        return server, _ORDER.get(_key(loc).split(".")[0], -1)

    return min(errors, key=rank)


def problem(error: ErrorDetails, raw: Mapping[str, Any]) -> str:
    """What is wrong, in words, starting with the server's name (``raw`` is the
    configuration checked)."""
    loc = error["loc"]
    if len(loc) < 2:
        found = ", ".join(sorted(raw)) or "nothing"
        if error["type"] == "missing" or error["input"] is None:
            return f"an MCP configuration needs an 'mcpServers' object (found: {found})"
        return "'mcpServers' must be an object mapping server names to servers"
    where = f"MCP server '{loc[1]}'"
    return f"{where}: {_server_problem(error)}"


def written_at(error: ErrorDetails) -> tuple[str | int, ...]:
    """Where in the configuration an error is: its location without the server's kind
    (``("mcpServers", "time", "args")``)."""
    loc = tuple(error["loc"])
    return loc[:2] + loc[3:] if len(loc) > 2 else loc


def _server_problem(error: ErrorDetails) -> str:
    entry = error["input"]
    if error["type"] == "union_tag_not_found" or (
        error["type"] == "union_tag_invalid" and len(error["loc"]) == 2
    ):
        if not isinstance(entry, Mapping):
            return f"expected an object, got {type(entry).__name__}"
        kind = entry.get("transport") or entry.get("type")
        if kind is None:
            return "give a 'command' (a stdio server) or a 'url' (an http or sse server)"
        return f"unknown transport {kind!r}; use stdio, http or sse"
    key = _key(error["loc"])
    if error["type"] == "value_error":
        message = str(error.get("ctx", {})["error"])
        return f"'{key}' {message}" if message.startswith("must") else message
    return _AT[key].format(input=error["input"])


def _key(loc: tuple[int | str, ...]) -> str:
    """The key of a server an error is at (``oauth.scopes``), past the server's name
    and its kind; empty for the server itself."""
    if len(loc) < 4:
        return ""
    key = str(loc[3])
    return f"{key}.{loc[4]}" if key == "oauth" and len(loc) > 4 else key


# -- the published schema ------------------------------------------------------------------


class _Schema(GenerateJsonSchema):
    """A server is one kind or another: ``anyOf`` (an http and an sse server take the
    same keys, which ``oneOf`` would refuse)."""

    def tagged_union_schema(self, schema: core_schema.TaggedUnionSchema) -> JsonSchemaValue:
        generated = super().tagged_union_schema(schema)
        generated["anyOf"] = generated.pop("oneOf")
        generated.pop("discriminator", None)
        return generated


def json_schema() -> dict[str, Any]:
    """The JSON Schema of an MCP configuration file."""
    schema = MCPConfigFile.model_json_schema(schema_generator=_Schema)
    servers = schema["properties"]["mcpServers"]
    # The file may name its schema, as editors read it; VS Code's format says "servers".
    schema["properties"] = {
        "$schema": {"type": "string", "description": "This schema's URL, for editors."},
        "mcpServers": servers,
        "servers": {**servers, "description": "The servers, by name (as VS Code writes it)."},
    }
    del schema["required"]
    schema["anyOf"] = [{"required": ["mcpServers"]}, {"required": ["servers"]}]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    """:func:`json_schema` as the committed file holds it."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
