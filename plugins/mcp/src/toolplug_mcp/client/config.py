"""Finding and reading an MCP configuration in the standard ``mcpServers`` format.

The format is the one Claude Desktop, Cursor and FastMCP write::

    {"mcpServers": {
        "time": {"command": "mcp-server-time", "args": [], "env": {}, "cwd": "."},
        "docs": {"url": "https://example.com/mcp", "headers": {"X-Key": "..."}}
    }}

This module imports no MCP library: it only reads JSON and checks it, so that a host
without MCP servers pays nothing for them.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

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

_TRANSPORTS = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "sse": "sse",
}
_ENV_REF = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")


#: Seconds a person has to finish an OAuth sign-in in the browser (the default).
OAUTH_LOGIN_TIMEOUT = 300.0


@dataclass(frozen=True)
class OAuthSettings:
    """How a server configured with ``"auth": "oauth"`` is signed in to."""

    #: The directory of the cached tokens (``0700``; by default :func:`oauth_dir`).
    cache_dir: str
    scopes: tuple[str, ...] = ()
    #: The port of the local callback (``None``: a free one each time).
    callback_port: int | None = None
    login_timeout: float = OAUTH_LOGIN_TIMEOUT


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

    def make_transport(
        self, stderr: TextIO | None = None, http_client: Any = None, auth: Any = None
    ) -> Any:
        """The fastmcp client transport for this server (imports fastmcp).

        ``stderr`` is where a stdio server's stderr goes (default: the host's);
        ``http_client`` makes a remote server's HTTP clients, ``auth`` is its httpx
        auth (OAuth).
        """
        if self.transport == "stdio":
            from fastmcp.client.transports import StdioTransport

            # keep_alive=False: closing the client ends the server process.
            return StdioTransport(
                command=self.command or "",
                args=list(self.args),
                env=dict(self.env),
                cwd=self.cwd,
                keep_alive=False,
                log_file=stderr,
            )
        if self.transport == "sse":
            from fastmcp.client.transports import SSETransport

            return SSETransport(
                self.url or "",
                headers=dict(self.headers),
                auth=auth,
                httpx_client_factory=http_client,
            )
        from fastmcp.client.transports import StreamableHttpTransport

        return StreamableHttpTransport(
            self.url or "",
            headers=dict(self.headers),
            auth=auth,
            httpx_client_factory=http_client,
        )


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
    if config is not None:
        if isinstance(config, Mapping):
            return dict(config), "the 'config' param"
        if isinstance(config, (str, Path)):
            return _read_file(_resolve(config, workspace)), f"file {config}"
        raise ConfigError(
            f"the 'config' param must be an mcpServers mapping or a file path, "
            f"not {type(config).__name__}"
        )
    named = env.get(CONFIG_ENV_VAR)
    if named:
        return _read_file(_resolve(named, workspace)), f"{CONFIG_ENV_VAR}={named}"
    local = workspace / WORKSPACE_CONFIG
    if local.is_file():
        return _read_file(local), str(local)
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
    """Find the configuration and check every server in it (``None`` when there is none)."""
    found = find_config(config, env, workspace)
    if found is None:
        return None
    raw, source = found
    servers = parse_servers(
        raw,
        env=env,
        workspace=workspace,
        timeout=timeout,
        init_timeout=init_timeout,
        max_server_requests=max_server_requests,
    )
    return LoadedConfig(servers, source)


def parse_servers(
    raw: Mapping[str, Any],
    *,
    env: Mapping[str, str],
    workspace: Path,
    timeout: float = 60.0,
    init_timeout: float = 30.0,
    max_server_requests: int = MAX_SERVER_REQUESTS,
) -> list[ServerSpec]:
    """Check an ``{"mcpServers": {...}}`` mapping and turn each entry into a spec."""
    servers = raw.get("mcpServers", raw.get("servers"))
    if servers is None:
        unknown = ", ".join(sorted(raw)) or "nothing"
        raise ConfigError(f"an MCP configuration needs an 'mcpServers' object (found: {unknown})")
    if not isinstance(servers, Mapping):
        raise ConfigError("'mcpServers' must be an object mapping server names to servers")
    return [
        _parse_server(str(name), entry, env, workspace, timeout, init_timeout, max_server_requests)
        for name, entry in servers.items()
    ]


def _parse_server(
    name: str,
    entry: Any,
    env: Mapping[str, str],
    workspace: Path,
    timeout: float,
    init_timeout: float,
    max_server_requests: int = MAX_SERVER_REQUESTS,
) -> ServerSpec:
    where = f"MCP server '{name}'"
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: expected an object, got {type(entry).__name__}")
    kind = entry.get("transport") or entry.get("type")
    if kind is None:
        if "command" not in entry and "url" not in entry:
            raise ConfigError(
                f"{where}: give a 'command' (a stdio server) or a 'url' (an http or sse server)"
            )
        kind = "stdio" if "command" in entry else _transport_from_url(entry.get("url"))
    if kind not in _TRANSPORTS:
        raise ConfigError(f"{where}: unknown transport {kind!r}; use stdio, http or sse")
    transport = _TRANSPORTS[kind]
    # The standard format gives a server's timeout in milliseconds.
    server_timeout = _number(entry.get("timeout"), where, "timeout")
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
        "transport": transport,
        "timeout": server_timeout / 1000 if server_timeout else timeout,
        "init_timeout": init_timeout,
        "disabled": bool(entry.get("disabled", False)),
        "prefix": _prefix(entry.get("prefix"), where),
        "max_server_requests": _count(
            entry.get("maxServerRequests", max_server_requests), where, "maxServerRequests"
        ),
    }
    if transport == "stdio":
        command = entry.get("command")
        if not isinstance(command, str) or not command:
            raise ConfigError(f"{where}: a stdio server needs a 'command' string")
        args = entry.get("args") or []
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ConfigError(f"{where}: 'args' must be a list of strings")
        own_env = _string_map(entry.get("env"), where, "env")
        child_env = {k: env[k] for k in INHERITED_ENV if k in env}
        child_env.update({k: _expand(v, env) for k, v in own_env.items()})
        cwd = entry.get("cwd")
        return ServerSpec(
            command=command,
            args=tuple(args),
            env=child_env,
            cwd=str(_resolve(cwd, workspace)) if cwd else str(workspace),
            **common,
        )
    url = entry.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}: a remote server needs an http(s) 'url'")
    headers = {
        k: _expand(v, env) for k, v in _string_map(entry.get("headers"), where, "headers").items()
    }
    auth = entry.get("auth")
    if auth == "oauth":
        return ServerSpec(
            url=url, headers=headers, oauth=_oauth(entry.get("oauth"), where, env), **common
        )
    if entry.get("oauth") is not None:
        raise ConfigError(f'{where}: \'oauth\' settings need "auth": "oauth"')
    if auth is not None and (not isinstance(auth, str) or not auth):
        raise ConfigError(f"{where}: 'auth' must be a bearer token (a non-empty string)")
    if auth:
        headers.setdefault("Authorization", f"Bearer {_expand(auth, env)}")
    return ServerSpec(url=url, headers=headers, **common)


def _oauth(value: Any, where: str, env: Mapping[str, str]) -> OAuthSettings:
    """The ``oauth`` entry: ``scopes`` (a list or a space-separated string),
    ``callback_port``, ``login_timeout`` (seconds), ``cache_dir``."""
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: 'oauth' must be an object")
    unknown = set(value) - {"scopes", "callback_port", "login_timeout", "cache_dir"}
    if unknown:
        raise ConfigError(
            f"{where}: unknown 'oauth' setting(s) {', '.join(sorted(unknown))}; "
            "known: scopes, callback_port, login_timeout, cache_dir"
        )
    scopes = value.get("scopes") or ()
    if isinstance(scopes, str):
        scopes = scopes.split()
    if not isinstance(scopes, (list, tuple)) or not all(isinstance(s, str) for s in scopes):
        raise ConfigError(f"{where}: 'oauth.scopes' must be a list of strings")
    port = value.get("callback_port")
    if port is not None and (
        isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536
    ):
        raise ConfigError(f"{where}: 'oauth.callback_port' must be a port number")
    login = value.get("login_timeout", OAUTH_LOGIN_TIMEOUT)
    if isinstance(login, bool) or not isinstance(login, (int, float)) or login <= 0:
        raise ConfigError(f"{where}: 'oauth.login_timeout' must be a positive number of seconds")
    cache_dir = value.get("cache_dir")
    if cache_dir is not None and (not isinstance(cache_dir, str) or not cache_dir):
        raise ConfigError(f"{where}: 'oauth.cache_dir' must be a directory path")
    return OAuthSettings(
        cache_dir=os.path.expanduser(_expand(cache_dir, env)) if cache_dir else str(oauth_dir(env)),
        scopes=tuple(scopes),
        callback_port=port,
        login_timeout=float(login),
    )


def oauth_dir(env: Mapping[str, str]) -> Path:
    """Where a user's OAuth tokens live: ``$XDG_CACHE_HOME/toolplug/mcp-oauth``
    (``~/.cache/toolplug/mcp-oauth`` when ``XDG_CACHE_HOME`` is unset)."""
    base = env.get("XDG_CACHE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".cache"
    )
    return Path(base) / "toolplug" / "mcp-oauth"


def _transport_from_url(url: Any) -> str:
    if isinstance(url, str) and re.search(r"/sse(/|\?|$)", url):
        return "sse"
    return "http"


def _prefix(value: Any, where: str) -> str | bool | None:
    if value is None or isinstance(value, bool) or (isinstance(value, str) and value):
        return value
    raise ConfigError(
        f"{where}: 'prefix' must be true (the server's key), false (no prefix) "
        f"or a non-empty string, not {value!r}"
    )


def _number(value: Any, where: str, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigError(f"{where}: '{key}' must be a positive number of milliseconds")
    return float(value)


def _count(value: Any, where: str, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: '{key}' must be a whole number, 0 or more")
    return value


def _string_map(value: Any, where: str, key: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: '{key}' must be an object of strings")
    return {str(k): str(v) for k, v in value.items()}


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
