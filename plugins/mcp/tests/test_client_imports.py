"""What loading an MCP configuration imports: each transport's code only when a server of
that transport is configured.

Each case loads a toolset in a fresh interpreter (``sys.modules`` of the test process is
shared by every test), calls a tool of the real demo server and prints the modules then
imported.

The floor is set by the SDK, not by us: ``import mcp`` runs the SDK's package
``__init__``, which imports its client session, every client transport module
(``mcp.client.stdio``, ``.sse``, ``.streamable_http``), ``mcp.server`` (and with it
starlette, uvicorn and httpx2) and the OpenTelemetry API. So those cannot be asserted
absent; what is asserted is what this plugin decides: no fastmcp at all (its client is
not used: the SDK's session is), the HTTP stack a request actually needs (httpcore2,
h11, truststore: loaded when an HTTP client is made) only for a remote server, the
SDK's OAuth (``mcp.client.auth``) and this plugin's HTTP-only and OAuth-only modules
only when configured, and a process-spawning module only for a stdio server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import demo_stdio

#: Load the ``mcp`` tool from a configuration (JSON in argv[1]), call ``echo``, and print
#: the call's text and the modules imported.
LOAD_AND_CALL = """
import json, sys
from toolplug import Tool, Toolset
config = json.loads(sys.argv[1])
with Toolset.load([Tool("mcp", {"config": config})], plugins="mcp", workspace=".") as tools:
    observation = tools.call("echo", {"text": "hi"})
print(json.dumps({"text": observation.text, "error": observation.is_error,
                  "modules": sorted(sys.modules)}))
"""

#: This plugin's modules a stdio-only configuration has no use for.
REMOTE_ONLY = ("toolplug_mcp.client.unauthorized", "toolplug_mcp.client.oauth")
#: What only an HTTP request loads (``import mcp`` imports httpx2 but makes no client).
HTTP_STACK = ("httpcore2", "h11", "truststore")
#: What only starting a server process loads.
SPAWNING = "anyio._core._subprocesses"


def loaded_modules(config: dict[str, object], cwd: Path) -> set[str]:
    """Run :data:`LOAD_AND_CALL` in a new interpreter; the modules it imported."""
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLPLUG_MCP_CONFIG",)}
    done = subprocess.run(
        [sys.executable, "-c", LOAD_AND_CALL, json.dumps(config)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert (seen["text"], seen["error"]) == ("hi", False)  # the server's tool was called
    return set(seen["modules"])


def under(modules: set[str], package: str) -> set[str]:
    """The modules of ``package`` (itself included) among ``modules``."""
    return {m for m in modules if m == package or m.startswith(package + ".")}


def test_a_stdio_config_imports_no_http_or_oauth_code_of_the_plugin(tmp_path: Path) -> None:
    modules = loaded_modules({"mcpServers": {"demo": demo_stdio()}}, tmp_path)
    assert "toolplug_mcp.client.connection" in modules  # the client did run
    assert not modules & set(REMOTE_ONLY)
    assert not under(modules, "fastmcp.server")


def test_a_stdio_config_imports_neither_fastmcp_nor_the_http_stack(tmp_path: Path) -> None:
    modules = loaded_modules({"mcpServers": {"demo": demo_stdio()}}, tmp_path)
    assert SPAWNING in modules  # the server process was started
    assert not under(modules, "fastmcp")
    assert not under(modules, "mcp.client.auth")
    for package in HTTP_STACK:
        assert not under(modules, package), package


def test_an_http_config_imports_the_http_transport(tmp_path: Path, http_demo: str) -> None:
    modules = loaded_modules({"mcpServers": {"demo": {"url": http_demo}}}, tmp_path)
    assert "toolplug_mcp.client.unauthorized" in modules  # 401/403 are watched
    assert "mcp.client.streamable_http" in modules
    # Signing in with OAuth is imported only for "auth": "oauth"; fastmcp's server never.
    assert "toolplug_mcp.client.oauth" not in modules
    assert not under(modules, "mcp.client.auth")
    assert not under(modules, "fastmcp")
    # The HTTP stack did the work; nothing was spawned.
    assert all(under(modules, package) for package in HTTP_STACK)
    assert SPAWNING not in modules
