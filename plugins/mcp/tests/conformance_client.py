"""The MCP client the conformance suite drives: toolplug's ``mcp`` plugin, as a host uses it.

``npx @modelcontextprotocol/conformance client --command "python conformance_client.py"``
starts a scenario's test server and runs this script with the server's URL as its last
argument and the scenario's name in ``MCP_CONFORMANCE_SCENARIO``. The script loads a
toolset with that server, as any host would, and does what the scenario expects of a
client: call its tools, answer its questions, sign in with OAuth. The suite checks the
traffic it saw. The exit status is 0 when the toolset did its part, 1 otherwise.

For the OAuth scenarios the browser step is played by this script: the suite's
authorization server approves at once, so fetching the authorization URL that toolplug
logs (``record.authorization_url``) and following its redirect to toolplug's local
callback finishes the sign-in.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from typing import Any

from toolplug import Tool, Toolset
from toolplug.interaction import Answer, Question

SCENARIO = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")


def accept_with_defaults(question: Question) -> Answer:
    """A user who accepts every form as it is offered: each field at its default."""
    properties = question.schema.get("properties", {})
    content = {k: v["default"] for k, v in properties.items() if "default" in v}
    return Answer("accept", content)


class Browser(logging.Handler):
    """Plays the user's browser: opens each authorization URL toolplug logs, and follows
    the authorization server's redirect to the local callback."""

    def emit(self, record: logging.LogRecord) -> None:
        url = getattr(record, "authorization_url", None)
        if url:
            # Off the logging thread: the client waits for the callback this produces.
            threading.Thread(target=self.approve, args=(url,), daemon=True).start()

    @staticmethod
    def approve(url: str) -> None:
        # One authorization request (the server counts them), then the redirect to the
        # local callback, which may start listening just after the URL is logged: only
        # that second step is retried.
        try:
            urllib.request.build_opener(NoRedirect).open(url, timeout=30).close()
            raise RuntimeError(f"the authorization server did not redirect: {url}")
        except urllib.error.HTTPError as redirect:  # the 302, not followed
            callback = redirect.headers["Location"]
        for _ in range(50):
            try:
                with urllib.request.urlopen(callback, timeout=30) as response:
                    response.read()
                return
            except urllib.error.URLError as exc:
                print(f"browser: {exc}; trying again", file=sys.stderr)
                time.sleep(0.2)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Leaves a redirect unfollowed: urllib raises it as an ``HTTPError``."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def server_entry(url: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"url": url}
    if SCENARIO.startswith("auth/"):
        # A fresh token cache for each run, so every run signs in from the start.
        cache = tempfile.mkdtemp(prefix="toolplug-conformance-")
        entry.update(auth="oauth", oauth={"cache_dir": cache, "login_timeout": 20})
    return entry


def run(url: str) -> int:
    config = {"mcpServers": {"conformance": server_entry(url)}}
    spec = Tool("mcp", {"config": config, "timeout": 20, "init_timeout": 25})
    with Toolset.load([spec], plugins="mcp", on_elicit=accept_with_defaults) as tools:
        names = list(tools)
        print("tools:", names)
        failed = False
        for name in names:
            if name in ("list_resources", "read_resource"):
                continue
            arguments = {"a": 2, "b": 3} if name == "add_numbers" else {}
            observation = tools.call(name, arguments)
            print(f"{name}: {observation.text}")
            failed = failed or observation.is_error
        return 1 if failed else 0


def main() -> int:
    logging.basicConfig(level=logging.INFO)
    logging.getLogger("toolplug.mcp").addHandler(Browser())
    return run(sys.argv[-1])


if __name__ == "__main__":
    sys.exit(main())
