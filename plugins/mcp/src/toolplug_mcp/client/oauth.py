"""OAuth for remote MCP servers: sign in once in a browser, then reuse the cached token.

This is fastmcp's client flow (authorization code with PKCE, dynamic client
registration, refresh) with two choices of toolplug's:

- Tokens and the registered client are kept on disk, one directory per user
  (:func:`~toolplug_mcp.client.config.oauth_dir`): the directories are made
  ``0700``, each file is written ``0600``. A second load, in the same process or a
  new one, uses them with no browser step.
- The browser step is made to work on a host without a browser: the authorization
  URL is logged (warning, logger ``toolplug.mcp``, the URL also in the record's
  ``authorization_url`` attribute), and a browser is opened only where one can be
  (a desktop session, or ``BROWSER`` set). Whoever opens the URL, wherever, ends on
  the client's callback ``http://127.0.0.1:PORT/callback?code=...``; fetching that
  URL on the host (``curl``) completes the sign-in.

Imports fastmcp: loaded only when a server with ``"auth": "oauth"`` is opened.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import webbrowser
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastmcp.client.auth.oauth import OAuth
from key_value.aio.stores.filetree import (
    FileTreeStore,
    FileTreeV1CollectionSanitizationStrategy,
    FileTreeV1KeySanitizationStrategy,
)
from pydantic import AnyHttpUrl

from toolplug_mcp.client.config import OAuthSettings

log = logging.getLogger("toolplug.mcp")

#: The redirect goes to the loopback address itself, not ``localhost`` (RFC 8252, 7.3).
CALLBACK_HOST = "127.0.0.1"


class PrivateFileTreeStore(FileTreeStore):
    """fastmcp's file-tree store with every directory it makes closed to others.

    Each entry is written to a temporary file made by ``mkstemp`` (mode ``0600``)
    and renamed into place, so no entry is ever readable by others; the directory
    of each collection is made ``0700`` here, as the root is by :func:`token_store`.
    """

    async def _setup_collection(self, *, collection: str) -> None:
        await super()._setup_collection(collection=collection)
        for entry in Path(str(self._data_directory)).iterdir():
            if entry.is_dir() and entry.stat().st_mode & 0o077:
                entry.chmod(0o700)


def token_store(directory: Path) -> FileTreeStore:
    """The on-disk store of tokens and client registrations, in a ``0700`` directory."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    directory.chmod(0o700)  # mkdir's mode is cut by the umask; an old dir may be wider
    return PrivateFileTreeStore(
        data_directory=directory,
        key_sanitization_strategy=FileTreeV1KeySanitizationStrategy(directory),
        collection_sanitization_strategy=FileTreeV1CollectionSanitizationStrategy(directory),
    )


def can_open_browser(env: Mapping[str, str]) -> bool:
    """Whether a browser can be shown here: a desktop session, or ``BROWSER`` set.

    On a Linux host without a display Python's ``webbrowser`` would start a text
    browser (lynx, w3m) in the host's terminal; the logged URL is better there.
    """
    if env.get("BROWSER"):
        return True
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


class OAuthSignIn(OAuth):
    """fastmcp's OAuth provider, with tokens on disk and a browser step that says
    what to do on a host without a browser."""

    def __init__(self, server: str, settings: OAuthSettings) -> None:
        super().__init__(
            scopes=list(settings.scopes) or None,
            client_name="toolplug",
            token_storage=token_store(Path(settings.cache_dir)),
            callback_port=settings.callback_port,
            callback_host=CALLBACK_HOST,
            callback_timeout=settings.login_timeout,
        )
        self.server = server
        self._cached_client_id: str | None = None

    async def _initialize(self) -> None:
        """Load the cached tokens and registration; sign in again on the same port.

        A registration is for one redirect URI. Without a fixed ``callback_port`` a
        new sign-in would pick a new port, the server would refuse the cached
        registration for it, and the client would have to register again: so the
        registered port is taken again while it is free.
        """
        await super()._initialize()
        info = self.context.client_info
        # Only a registration read from the cache can be stale (see _check_client).
        self._cached_client_id = info.client_id if info is not None else None
        if self._callback_port is not None or info is None or not info.redirect_uris:
            return
        port = urlsplit(str(info.redirect_uris[0])).port
        if port and port != self.redirect_port and _is_free(port):
            self.redirect_port = port
            uri = AnyHttpUrl(f"http://{CALLBACK_HOST}:{port}/callback")
            self.context.client_metadata.redirect_uris = [uri]

    async def redirect_handler(self, authorization_url: str) -> None:
        """Show the authorization URL: in the log always, in a browser where there is one."""
        await self._check_client(authorization_url)
        port = getattr(self, "redirect_port", "PORT")
        log.warning(
            "MCP server '%s' needs you to sign in (OAuth). Open this URL in a browser "
            "and approve: %s\nThe browser is then sent to http://%s:%s/callback?...; "
            "on a host without a browser, fetch that final URL on this host "
            "(curl 'http://%s:%s/callback?code=...'). Waiting %g seconds.",
            self.server,
            authorization_url,
            CALLBACK_HOST,
            port,
            CALLBACK_HOST,
            port,
            self._callback_timeout,
            extra={"authorization_url": authorization_url, "mcp_server": self.server},
        )
        if can_open_browser(os.environ):
            # webbrowser blocks while it starts the browser: not on the client loop.
            await asyncio.to_thread(webbrowser.open, authorization_url)

    async def _check_client(self, authorization_url: str) -> None:
        """Find a stale cached client registration before anyone opens the URL.

        A 400 from the authorization endpoint means the server forgot the client;
        fastmcp's flow then clears the cache and registers again. The probe is itself
        an authorization request, so it is made once, and only for a registration
        that came from the cache: one made in this process is known to the server.
        """
        from fastmcp.client.auth.oauth import ClientNotFoundError

        info = self.context.client_info
        cached = self._cached_client_id
        if info is None or cached is None or info.client_id != cached:
            return
        self._cached_client_id = None
        async with self.httpx_client_factory() as http:
            response = await http.get(authorization_url, follow_redirects=False)
        if response.status_code == 400:
            raise ClientNotFoundError("the OAuth server no longer knows the cached client")


def _is_free(port: int) -> bool:
    """Whether the callback server could listen on the port now."""
    with socket.socket() as probe:
        # As uvicorn binds: a port the last sign-in left in TIME_WAIT is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((CALLBACK_HOST, port))
        except OSError:
            return False
    return True


def make_auth(server: str, settings: OAuthSettings) -> Any:
    """The httpx auth of a server configured with ``"auth": "oauth"``."""
    return OAuthSignIn(server, settings)
