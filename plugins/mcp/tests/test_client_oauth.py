"""OAuth for remote servers, against a real OAuth-protected fastmcp server on 127.0.0.1.

The browser step is done by the test itself, as a person on a headless host would do
it: read the authorization URL from the log, open it (the test server approves at
once and redirects), and fetch the redirect's target, the client's local callback.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import toolplug_mcp
from conftest import HERE, TOOLPLUG, free_port, stop, wait_for_port
from toolplug import Tool, ToolContext, ToolError, Toolset
from toolplug.testing import registry_from, wait_until
from toolplug_mcp.client.config import ConfigError, oauth_dir, parse_servers

OAUTH_SERVER = HERE / "servers" / "oauth_server.py"


@pytest.fixture
def oauth_server() -> Iterator[str]:
    """The OAuth-protected server over streamable HTTP; yields its MCP URL."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(OAUTH_SERVER), str(port)])
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(proc)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # the redirect is followed by hand, once the callback listens


class Person(logging.Handler):
    """Does the browser step for every sign-in the client logs, and counts them."""

    def __init__(self) -> None:
        super().__init__()
        self.sign_ins: list[str] = []
        self.callbacks: list[str] = []
        self.threads: list[threading.Thread] = []

    def emit(self, record: logging.LogRecord) -> None:
        url = getattr(record, "authorization_url", None)
        if url:
            self.sign_ins.append(url)
            thread = threading.Thread(target=self._approve, args=(url,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _approve(self, url: str) -> None:
        opener = urllib.request.build_opener(_NoRedirects)
        try:
            opener.open(url, timeout=10)
        except urllib.error.HTTPError as answer:  # the 302 to the client's callback
            callback = answer.headers["Location"]
        else:
            raise AssertionError("the authorization endpoint did not redirect")
        self.callbacks.append(callback)
        # The client starts its callback server just after it logs the URL.

        def delivered() -> bool:
            try:
                urllib.request.urlopen(callback, timeout=10).read()
            except urllib.error.URLError:
                return False
            return True

        wait_until(delivered, what=f"the client's callback to answer ({callback})")


@pytest.fixture
def person() -> Iterator[Person]:
    handler = Person()
    logger = logging.getLogger("toolplug.mcp")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        for thread in handler.threads:
            thread.join(30)


def load(config: dict[str, object], tmp_path: Path) -> Toolset:
    return Toolset.load(
        [Tool("mcp", {"config": config})],
        registry=registry_from(toolplug_mcp),
        context=ToolContext(workspace=tmp_path),
    )


def test_sign_in_once_then_the_cached_token_in_a_new_process(
    oauth_server: str, person: Person, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("BROWSER", raising=False)
    config = {"mcpServers": {"guarded": {"url": oauth_server, "auth": "oauth"}}}

    with load(config, tmp_path) as tools:
        first = tools.call("whoami", {})
    assert not first.is_error, first.text
    assert first.text.startswith("client ")
    assert len(person.sign_ins) == 1
    signed_in = person.sign_ins[0]
    assert "code_challenge_method=S256" in signed_in  # PKCE
    assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in signed_in
    assert person.callbacks[0].startswith("http://127.0.0.1:")

    # Where the tokens live, and who may read them.
    tokens = oauth_dir(os.environ)
    assert tokens == cache / "toolplug" / "mcp-oauth"
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o700
    files = [p for p in tokens.rglob("*") if p.is_file()]
    dirs = [p for p in tokens.rglob("*") if p.is_dir()]
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o600}
    assert {stat.S_IMODE(p.stat().st_mode) for p in dirs} == {0o700}
    cached = [p for p in files if "tokens" in p.name]
    assert cached and "access_token" in cached[0].read_text()

    # A new process, the same user cache: no browser step, the same client.
    (tmp_path / "mcp.json").write_text(json.dumps(config))
    env = {**os.environ, "TOOLPLUG_MCP_CONFIG": str(tmp_path / "mcp.json")}
    again = subprocess.run(
        [TOOLPLUG, "call", "whoami", "{}"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == first.text
    assert "sign in" not in again.stderr
    assert len(person.sign_ins) == 1

    # And in this process, a second load reuses it too.
    with load(config, tmp_path) as tools:
        assert tools.call("whoami", {}).text == first.text
    assert len(person.sign_ins) == 1


def test_signing_in_again_keeps_the_registration(
    oauth_server: str, person: Person, tmp_path: Path
) -> None:
    cache = tmp_path / "tokens"
    config = {
        "mcpServers": {
            "guarded": {"url": oauth_server, "auth": "oauth", "oauth": {"cache_dir": str(cache)}}
        }
    }
    with load(config, tmp_path) as tools:
        first = tools.call("whoami", {}).text
    # The tokens expire and go (the registration stays): a new sign-in is needed.
    for token in [p for p in cache.rglob("*") if p.is_file() and "token" in p.name]:
        token.unlink()
    with load(config, tmp_path) as tools:
        assert tools.call("whoami", {}).text == first  # the same registered client
    assert len(person.sign_ins) == 2
    # On the port it registered, so the server accepts the cached registration.
    redirects = [url.split("redirect_uri=")[1].split("&")[0] for url in person.sign_ins]
    assert redirects[0] == redirects[1]


def test_a_401_without_auth_says_so_and_names_the_fix(
    oauth_server: str, person: Person, tmp_path: Path
) -> None:
    config = {"mcpServers": {"guarded": {"url": oauth_server}}}
    with pytest.raises(ToolError) as raised:
        load(config, tmp_path)
    message = str(raised.value)
    assert "HTTP 401 Unauthorized" in message
    assert oauth_server in message
    assert '"auth": "oauth"' in message and '"headers"' in message
    assert "Server returned an error response" not in message
    assert person.sign_ins == []


def test_a_refused_bearer_token_says_the_token_was_refused(
    oauth_server: str, tmp_path: Path
) -> None:
    config = {"mcpServers": {"guarded": {"url": oauth_server, "auth": "not-a-token"}}}
    with pytest.raises(ToolError, match="configured credentials were refused"):
        load(config, tmp_path)


def test_oauth_settings_are_checked(tmp_path: Path) -> None:
    def parse(entry: dict[str, object]) -> object:
        raw = {"mcpServers": {"s": {"url": "https://example.com/mcp", **entry}}}
        return parse_servers(raw, env={"HOME": str(tmp_path)}, workspace=tmp_path)[0]

    spec = parse({"auth": "oauth", "oauth": {"scopes": "read write", "callback_port": 8765}})
    assert spec.oauth is not None
    assert spec.oauth.scopes == ("read", "write")
    assert spec.oauth.callback_port == 8765
    assert spec.oauth.cache_dir == str(tmp_path / ".cache" / "toolplug" / "mcp-oauth")
    assert spec.start_timeout == spec.init_timeout + spec.oauth.login_timeout
    assert "Authorization" not in spec.headers
    with pytest.raises(ConfigError, match='need "auth": "oauth"'):
        parse({"oauth": {"scopes": ["read"]}})
    with pytest.raises(ConfigError, match=r"unknown 'oauth' setting.*client_id"):
        parse({"auth": "oauth", "oauth": {"client_id": "x"}})
    with pytest.raises(ConfigError, match="callback_port"):
        parse({"auth": "oauth", "oauth": {"callback_port": "8765"}})
