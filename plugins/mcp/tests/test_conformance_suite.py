"""The official MCP conformance suite, against toolplug's client and ``toolplug mcp serve``.

Client scenarios: the suite starts a test server for each and runs
``conformance_client.py`` (a host using the ``mcp`` plugin) against it. Server
scenarios: the suite connects to ``toolplug mcp serve`` over HTTP on 127.0.0.1, serving
the fixture tools of ``conformance_plugin/``. A scenario passes when none of its checks
fails; SHOULD-level warnings do not fail it. Scenarios that do not apply to toolplug are
not run; docs/mcp/client.md and docs/mcp/server.md ("Conformance") list them, and why.
Scenarios that fail because of a known gap are expected failures (strict: a fix makes
them fail until the mark goes).

Needs npm, which installs Node 22 and the suite (see ``conformance_suite.py``); without
it these tests are skipped with the reason.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conformance_suite import Suite, install, problems
from conftest import start_serve, stop

HERE = Path(__file__).parent
CLIENT = HERE / "conformance_client.py"
FIXTURES = HERE / "conformance_plugin"


def expected_failure(scenario: str, reason: str) -> object:
    return pytest.param(scenario, marks=pytest.mark.xfail(reason=reason, strict=True))


CLIENT_SCENARIOS = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/2025-03-26-oauth-endpoint-fallback",
    # Draft-revision scenarios that a client of the current revision passes too.
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/scope-retry-limit",
    expected_failure(
        "auth/2025-03-26-oauth-metadata-backcompat",
        "deliberate: the MCP SDK checks that authorization server metadata names the "
        "issuer it was looked up for (RFC 8414 3.3, SEP-2468); this scenario's names "
        "another (its /oauth path), so the sign-in is refused instead of trusted",
    ),
]

SERVER_SCENARIOS = [
    "server-initialize",
    "logging-set-level",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-elicitation",
    "tools-call-sampling",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "server-sse-multiple-streams",
    "resources-list",
    "prompts-list",
    "dns-rebinding-protection",
    "json-schema-2020-12",
]


@pytest.fixture(scope="module")
def suite() -> Suite:
    found = install()
    if isinstance(found, str):
        pytest.skip(found)
    return found


@pytest.fixture(scope="module")
def served(suite: Suite, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``toolplug mcp serve`` over HTTP with the fixture tools; its URL."""
    tmp = tmp_path_factory.mktemp("serve")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(FIXTURES), os.environ.get("PYTHONPATH", "")]),
        "TMPDIR": str(tmp),
    }
    proc, url = start_serve(["--plugins", "conformance"], env, tmp / "stderr.txt", cwd=tmp)
    try:
        yield url
    finally:
        stop(proc)


@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_client_scenario(suite: Suite, scenario: str) -> None:
    command = f"{sys.executable} {CLIENT}"
    checks = suite.run("client", scenario, "--command", command)
    assert any(c["status"] == "SUCCESS" for c in checks), checks
    assert problems(checks) == []


@pytest.fixture(scope="module")
def server_suite(suite: Suite, served: str) -> dict[str, list[dict[str, Any]]]:
    """The checks of the suite's active server scenarios, all run at once."""
    return suite.run_server_suite(served)


@pytest.mark.parametrize("scenario", SERVER_SCENARIOS)
def test_server_scenario(
    suite: Suite, served: str, server_suite: dict[str, list[dict[str, Any]]], scenario: str
) -> None:
    checks = server_suite.get(scenario)
    if checks is None:  # not in the active suite (a pending one): on its own
        checks = suite.run("server", scenario, "--url", served)
    assert any(c["status"] == "SUCCESS" for c in checks), checks
    assert problems(checks) == []
