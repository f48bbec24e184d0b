"""The Kubernetes manifest of the docs (`docs/deploy/kubernetes.yaml`), checked offline:
every resource against the Kubernetes schemas (`kubernetes-validate` ships them), the
serve command line against `toolplug mcp serve`'s own options, the probes against the
paths the server answers, and the ingress's affinity against the HAProxy config the
load-balancer test runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from toolplug_mcp.cli import serve_command
from toolplug_mcp.server.gate import HEALTH_PATH, READY_PATH

kubernetes_validate = pytest.importorskip(
    "kubernetes_validate", reason="needs kubernetes-validate (pip install kubernetes-validate)"
)
yaml = pytest.importorskip("yaml")

DEPLOY = Path(__file__).resolve().parents[3] / "docs" / "deploy"
MANIFEST = DEPLOY / "kubernetes.yaml"


def resources() -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(MANIFEST.read_text()) if doc]


def of_kind(kind: str) -> dict[str, Any]:
    (found,) = [r for r in resources() if r["kind"] == kind]
    return found


def test_every_resource_is_valid_for_kubernetes() -> None:
    kinds = []
    for resource in resources():
        kubernetes_validate.validate(resource, kubernetes_validate.latest_version(), strict=True)
        kinds.append(resource["kind"])
    assert sorted(kinds) == ["Deployment", "Ingress", "Secret", "Service"]


def test_an_invalid_manifest_is_caught() -> None:
    """The check is real: a misspelt field fails it."""
    deployment = of_kind("Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbes"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, kubernetes_validate.latest_version(), strict=True)


def test_the_container_runs_serve_with_options_it_has() -> None:
    container = of_kind("Deployment")["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[:3] == ["toolplug", "mcp", "serve"]
    known = {opt for param in serve_command.params for opt in param.opts}
    given = [arg.split("=", 1)[0] for arg in args[3:]]
    assert given and all(opt in known for opt in given), set(given) - known
    ctx = serve_command.make_context("serve", args[3:])  # the values parse too
    assert ctx.params["transport"] == "http" and ctx.params["max_sessions"] == 200
    # A non-loopback bind needs the token: it comes from the Secret.
    assert ctx.params["host"] == "0.0.0.0"
    assert any(env["name"] == "TOOLPLUG_MCP_TOKEN" for env in container["env"])


def test_the_probes_ask_the_health_endpoint() -> None:
    container = of_kind("Deployment")["spec"]["template"]["spec"]["containers"][0]
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == HEALTH_PATH
    assert READY_PATH != HEALTH_PATH  # /readyz is documented as not the pod's readiness


def test_the_ingress_sticks_on_the_session_header_as_the_tested_haproxy_does() -> None:
    ingress = of_kind("Ingress")
    assert ingress["spec"]["ingressClassName"] == "haproxy"
    snippet = ingress["metadata"]["annotations"]["haproxy.org/backend-config-snippet"]
    tested = {line.strip() for line in (DEPLOY / "haproxy.cfg").read_text().splitlines()}
    for line in snippet.strip().splitlines():
        assert line.strip() in tested, line
    assert "stick match req.hdr(mcp-session-id)" in snippet
    assert "stick store-response res.hdr(mcp-session-id)" in snippet
