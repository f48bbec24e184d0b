"""Finding and reading an MCP configuration in the standard ``mcpServers`` format.

The format is the one Claude Desktop, Cursor and FastMCP write::

    {"mcpServers": {
        "time": {"command": "mcp-server-time", "args": [], "env": {}, "cwd": "."},
        "docs": {"url": "https://example.com/mcp", "headers": {"X-Key": "..."}}
    }}

What a configuration may hold is checked by the pydantic models of
:mod:`toolplug_mcp.client.config_model`; this module finds the configuration and turns
each checked server into a :class:`ServerSpec`. Neither imports an MCP library, so that
a host without MCP servers pays nothing for them.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolplug_mcp.client.config_model import OAuthEntry, RemoteServer, StdioServer

from toolplug_mcp.errors import ConfigError

#: Environment variable naming a configuration file.
CONFIG_ENV_VAR = "TOOLPLUG_MCP_CONFIG"
#: Where a workspace keeps its configuration, relative to the workspace.
WORKSPACE_CONFIG = Path(".toolplug") / "mcp.json"

# What a stdio server inherits from the host besides its own "env" (the MCP SDK's
# choice too: secrets in the host's environment are not handed to every server).
INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR")

log = logging.getLogger("toolplug.mcp")
#: How many sampling and elicitation requests a server may send during one call (the
#: default of the ``mcp`` factory's ``max_server_requests``); past it, each is refused.
MAX_SERVER_REQUESTS = 20
#: A server ``timeout`` below this many milliseconds was most likely meant in seconds.
SMALL_TIMEOUT_MS = 100

_ENV_REF = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class OAuthSettings:
    """How a server configured with ``"auth": "oauth"`` is signed in to."""

    #: The directory of the cached tokens (``0700``; by default :func:`oauth_dir`).
    cache_dir: str
    #: Seconds a person has to finish signing in (by default
    #: :data:`~toolplug_mcp.client.config_model.OAUTH_LOGIN_TIMEOUT`).
    login_timeout: float
    scopes: tuple[str, ...] = ()
    #: The port of the local callback (``None``: a free one each time).
    callback_port: int | None = None


@dataclass(frozen=True)
class ServerSpec:
    """One configured MCP server, checked and with every default filled in."""

    name: str
    transport: str  # "stdio", "http" or "sse"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    init_timeout: float = 30.0
    disabled: bool = False
    #: The ``prefix`` entry: a prefix of its own, ``True`` (the server's key), ``False``
    #: (none), or ``None`` (the default: the key when several servers are configured).
    prefix: str | bool | None = None
    #: Set when the server is signed in to with OAuth (``"auth": "oauth"``).
    oauth: OAuthSettings | None = None
    #: Sampling and elicitation requests the server may send per call (``maxServerRequests``).
    max_server_requests: int = MAX_SERVER_REQUESTS

    @property
    def start_timeout(self) -> float:
        """Seconds the server may take to start: ``init_timeout``, plus the time a
        person has to sign in when the server uses OAuth."""
        return self.init_timeout + (self.oauth.login_timeout if self.oauth else 0.0)

    def tool_prefix(self, several: bool) -> str | None:
        """What this server's tool names are prefixed with (``None``: nothing).

        ``several`` says whether more than one server is enabled in the configuration.
        """
        if isinstance(self.prefix, str):
            return self.prefix
        if self.prefix is None:
            return self.name if several else None
        return self.name if self.prefix else None

    def describe(self) -> str:
        """What runs: the command line or the URL."""
        if self.transport == "stdio":
            return " ".join([self.command or "", *self.args])
        return f"{self.url} ({self.transport})"


@dataclass(frozen=True)
class LoadedConfig:
    """A configuration and where it came from (for messages and ``toolplug mcp list``)."""

    servers: list[ServerSpec]
    source: str


def find_config(
    config: Any, env: Mapping[str, str], workspace: Path
) -> tuple[dict[str, Any], str] | None:
    """The raw configuration and its source, or ``None`` when there is none anywhere.

    Looked for in order: ``config`` (a mapping, or the path of a JSON file), the file
    named by ``TOOLPLUG_MCP_CONFIG``, then ``.toolplug/mcp.json`` in the workspace.
    """
    found = _find(config, env, workspace)
    return None if found is None else (found.raw, found.source)


@dataclass(frozen=True)
class _Found:
    """A configuration found: its data, its source for messages, and its file if any."""

    raw: dict[str, Any]
    source: str
    file: Path | None = None


def _find(config: Any, env: Mapping[str, str], workspace: Path) -> _Found | None:
    """:func:`find_config`, with the file the configuration was read from."""
    if config is not None:
        if isinstance(config, Mapping):
            return _Found(dict(config), "the 'config' param")
        if isinstance(config, (str, Path)):
            path = _resolve(config, workspace)
            return _Found(_read_file(path), f"file {config}", path)
        raise ConfigError(
            f"the 'config' param must be an mcpServers mapping or a file path, "
            f"not {type(config).__name__}"
        )
    named = env.get(CONFIG_ENV_VAR)
    if named:
        path = _resolve(named, workspace)
        return _Found(_read_file(path), f"{CONFIG_ENV_VAR}={named}", path)
    local = workspace / WORKSPACE_CONFIG
    if local.is_file():
        return _Found(_read_file(local), str(local), local)
    return None


def load_config(
    config: Any,
    *,
    env: Mapping[str, str],
    workspace: Path,
    timeout: float,
    init_timeout: float,
    max_server_requests: int = MAX_SERVER_REQUESTS,
) -> LoadedConfig | None:
    """Find the configuration and check every server in it (``None`` when there is none).

    A problem in a file names the file and the line: ``mcp.json, line 5: MCP server
    'time': 'args' must be a list of strings``.
    """
    found = _find(config, env, workspace)
    if found is None:
        return None
    try:
        servers = parse_servers(
            found.raw,
            env=env,
            workspace=workspace,
            timeout=timeout,
            init_timeout=init_timeout,
            max_server_requests=max_server_requests,
        )
    except ConfigError as exc:
        if found.file is None:
            raise
        raise ConfigError(f"{_where(found.file, exc.path)}: {exc}", exc.path) from None
    return LoadedConfig(servers, found.source)


def _where(file: Path, path: tuple[str | int, ...] | None) -> str:
    """``file, line n`` for the value at ``path`` in the JSON file (the file alone when
    the line cannot be told)."""
    from toolplug_mcp.client.json_lines import line_of, value_lines

    try:
        lines = value_lines(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # changed since it was read
        return str(file)
    line = line_of(lines, path) if path else None
    return f"{file}, line {line}" if line else str(file)


def parse_servers(
    raw: Mapping[str, Any],
    *,
    env: Mapping[str, str],
    workspace: Path,
    timeout: float = 60.0,
    init_timeout: float = 30.0,
    max_server_requests: int = MAX_SERVER_REQUESTS,
) -> list[ServerSpec]:
    """Check an ``{"mcpServers": {...}}`` mapping (against
    :class:`~toolplug_mcp.client.config_model.MCPConfigFile`) and turn each entry into a
    spec."""
    # The models are built when a configuration is first found, not when the factory
    # only looks for one: a host without MCP servers does not pay for them.
    from pydantic import ValidationError

    from toolplug_mcp.client.config_model import MCPConfigFile, first, problem, written_at

    try:
        checked = MCPConfigFile.model_validate(raw)
    except ValidationError as exc:
        servers = raw.get("mcpServers", raw.get("servers"))
        names = [str(name) for name in servers] if isinstance(servers, Mapping) else []
        error = first(exc.errors(), names)
        raise ConfigError(problem(error, raw), written_at(error)) from None
    defaults = _Defaults(env, workspace, timeout, init_timeout, max_server_requests)
    return [_spec(name, entry, defaults) for name, entry in checked.servers.items()]


@dataclass(frozen=True)
class _Defaults:
    """What a server entry is read with: the host's environment and workspace, and the
    factory's settings for what the entry leaves out."""

    env: Mapping[str, str]
    workspace: Path
    timeout: float
    init_timeout: float
    max_server_requests: int


def _spec(name: str, entry: StdioServer | RemoteServer, defaults: _Defaults) -> ServerSpec:
    """A checked server entry as a spec, with every default filled in."""
    where = f"MCP server '{name}'"
    env = defaults.env
    # The standard format gives a server's timeout in milliseconds.
    server_timeout = entry.timeout
    if server_timeout is not None and server_timeout < SMALL_TIMEOUT_MS:
        log.warning(
            "%s: 'timeout' %g is read as milliseconds (%g s), as the format has it; "
            "write %g for %g seconds",
            where,
            server_timeout,
            server_timeout / 1000,
            server_timeout * 1000,
            server_timeout,
        )
    common: dict[str, Any] = {
        "name": name,
        "timeout": server_timeout / 1000 if server_timeout else defaults.timeout,
        "init_timeout": defaults.init_timeout,
        "disabled": entry.disabled,
        "prefix": entry.prefix,
        "max_server_requests": (
            defaults.max_server_requests
            if entry.max_server_requests is None
            else entry.max_server_requests
        ),
    }
    from toolplug_mcp.client.config_model import StdioServer

    if isinstance(entry, StdioServer):
        child_env = {k: env[k] for k in INHERITED_ENV if k in env}
        child_env.update({k: _expand(v, env) for k, v in entry.env.items()})
        return ServerSpec(
            transport="stdio",
            command=entry.command,
            args=tuple(entry.args),
            env=child_env,
            cwd=str(_resolve(entry.cwd, defaults.workspace))
            if entry.cwd
            else str(defaults.workspace),
            **common,
        )
    headers = {k: _expand(v, env) for k, v in entry.headers.items()}
    if entry.auth == "oauth":
        oauth = _oauth_settings(entry.oauth, env)
        return ServerSpec(
            transport=entry.kind, url=entry.url, headers=headers, oauth=oauth, **common
        )
    if entry.auth:
        headers.setdefault("Authorization", f"Bearer {_expand(entry.auth, env)}")
    return ServerSpec(transport=entry.kind, url=entry.url, headers=headers, **common)


def _oauth_settings(entry: OAuthEntry | None, env: Mapping[str, str]) -> OAuthSettings:
    """The ``oauth`` entry with its defaults (none: every default), the cache directory
    from the host's environment (:func:`oauth_dir`)."""
    from toolplug_mcp.client.config_model import OAuthEntry

    entry = entry or OAuthEntry()
    cache_dir = entry.cache_dir
    return OAuthSettings(
        cache_dir=os.path.expanduser(_expand(cache_dir, env)) if cache_dir else str(oauth_dir(env)),
        scopes=tuple(entry.scopes),
        callback_port=entry.callback_port,
        login_timeout=float(entry.login_timeout),
    )


def oauth_dir(env: Mapping[str, str]) -> Path:
    """Where a user's OAuth tokens live: ``$XDG_CACHE_HOME/toolplug/mcp-oauth``
    (``~/.cache/toolplug/mcp-oauth`` when ``XDG_CACHE_HOME`` is unset)."""
    base = env.get("XDG_CACHE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".cache"
    )
    return Path(base) / "toolplug" / "mcp-oauth"


def _expand(value: str, env: Mapping[str, str]) -> str:
    """Replace ``${VAR}`` and ``${env:VAR}`` by the host's value (empty when unset)."""
    return _ENV_REF.sub(lambda m: env.get(m.group(1), ""), value)


def _resolve(path: str | Path, workspace: Path) -> Path:
    resolved = Path(os.path.expanduser(str(path)))
    return resolved if resolved.is_absolute() else workspace / resolved


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the MCP configuration {path}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"the MCP configuration {path} is not valid JSON: {exc.msg} at line {exc.lineno}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"the MCP configuration {path} must hold a JSON object")
    return data
