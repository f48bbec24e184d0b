"""What tool definitions cost the context (issue #28).

    python bench/bench_context.py

Part 1, the built-ins' definitions: each of the six coding tools (bash, file_editor,
glob, grep, think, finish), counted as a Chat Completions request carries it (the
``tools`` entry's compact JSON, o200k_base tokens, through ``toolplug.tokens``), and
the six together. Target: at most 2,000 tokens. Beside each, OpenHands' same tool
built from its own package, as its agent sends it (``bench/openhands_definitions.py``,
run with the Python that ``TOOLPLUG_BENCH_OPENHANDS_PYTHON`` names, else this one if it
has ``openhands-sdk``; install it in a venv of its own, from ``bench/requirements.txt``'s
``openhands-*`` lines). Without it, the lines say why and show ours alone.

Token counts are exact and do not vary from run to run: these figures are sizes, not
times, and the "floor" column holds OpenHands' count for comparison.

Part 2, deferral: the quality set's 500 tool definitions
(``core/tests/data/tool_search/tools.json``: real MCP servers' tools and generated ones,
grouped by server), made into runnable tools, every one deferred but two; per format,
the tokens of what enters the model's context before a search against every definition
sent (target: at most a tenth). Anthropic loads nothing of a deferred tool; OpenAI
Responses shows a deferred function's name and description, and of a namespace only its
own (namespaces per server here).

Part 3, the local search: CPU time per query over the 500 tools, the quality set's
100 queries in turn (target: under 5 ms), beside a floor that looks at every tool once
(each query word looked for in each name and description).

Part 4, the output budget on a result within it: ``bench_budget.py``'s figure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench_budget import alternated, bench_within_budget
from pydantic import Field, create_model
from timing import report, save
from toolplug import Action, Observation, ToolDefinition, Toolset
from toolplug.registry import ToolRegistry
from toolplug.tokens import count, count_before_search, count_definitions

HERE = Path(__file__).resolve().parent
TOOL_SET = HERE.parent / "core" / "tests" / "data" / "tool_search" / "tools.json"
QUERIES = HERE.parent / "core" / "tests" / "data" / "tool_search" / "queries.json"
#: The tools kept out of the deferral (those every turn needs).
KEPT = ("bash", "file_editor")
SIX = ["bash", "file_editor", "glob", "grep", "think", "finish"]
#: OpenHands' name for each of ours.
PEER_NAMES = {"bash": "terminal"}
#: The issue's bound on the six, in tokens.
LIMIT = 2_000
#: Importing OpenHands alone takes about 10 s; creating its terminal, more on a busy machine.
PEER_TIMEOUT = 900


def ours(workspace: Path, *, security_risk: bool) -> Mapping[str, int]:
    """Tokens of each of our six definitions, by name, exported for Chat Completions."""
    with Toolset.load(SIX, workspace=workspace, plugins=SIX) as toolset:
        counts = count_definitions(toolset, "openai", security_risk=security_risk)
    return {name: counts.tools[name] for name in SIX}


def peer_python() -> tuple[str | None, str]:
    """The Python to build OpenHands' tools with, or None and why there is none."""
    named = os.environ.get("TOOLPLUG_BENCH_OPENHANDS_PYTHON")
    if named:
        return named, ""
    probe = subprocess.run(
        [sys.executable, "-c", "import openhands.sdk, openhands.tools"],
        capture_output=True,
        check=False,
    )
    if probe.returncode == 0:
        return sys.executable, ""
    return None, (
        "OpenHands is not installed: set TOOLPLUG_BENCH_OPENHANDS_PYTHON to the Python "
        "of a venv with the openhands-sdk and openhands-tools of bench/requirements.txt"
    )


def peer(workspace: Path) -> tuple[dict[str, Any] | None, str]:
    """OpenHands' six as JSON data (see ``openhands_definitions.py``), or None and why."""
    python, why = peer_python()
    if python is None:
        return None, why
    try:
        done = subprocess.run(
            [python, str(HERE / "openhands_definitions.py"), str(workspace)],
            capture_output=True,
            text=True,
            timeout=PEER_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"building OpenHands' tools failed: {exc}"
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-3:]
        return None, "building OpenHands' tools failed: " + " / ".join(tail)
    data: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return data, ""


def peer_counts(tools: list[dict[str, Any]]) -> dict[str, int]:
    """Tokens of each of the peer's ``tools`` entries, under our names."""
    ours_by_peer = {peer: name for name, peer in PEER_NAMES.items()}
    counted = {}
    for entry in tools:
        name = entry["function"]["name"]
        text = json.dumps(entry, separators=(",", ":"), ensure_ascii=False)
        counted[ours_by_peer.get(name, name)] = count(text)
    return counted


def definition_figures() -> bool:
    """Part 1: the six built-ins' definitions, per tool and in all, beside OpenHands'."""
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        plain = ours(workspace, security_risk=False)
        risky = ours(workspace, security_risk=True)
        data, why = peer(workspace)
    if data is None:
        print(f"OpenHands: {why}")
        theirs: dict[str, int | None] = dict.fromkeys(SIX)
        theirs_agent: int | None = None
    else:
        versions = ", ".join(f"{p} {v}" for p, v in data["versions"].items())
        print(f"OpenHands: {versions} (tools as built for model {data['model']})")
        peer_plain = peer_counts(data["plain"])
        missing = set(SIX) - set(peer_plain)
        assert not missing, f"OpenHands built no {sorted(missing)}"
        theirs = {name: peer_plain[name] for name in SIX}
        theirs_agent = sum(peer_counts(data["agent"])[name] for name in SIX)
    built = data is not None

    def label(what: str, peer_what: str) -> str:
        return f"{what}, tokens vs OpenHands' {peer_what}" if built else f"{what}, tokens"

    for name in SIX:
        peer_name = PEER_NAMES.get(name, name)
        report("context", label(f"{name} definition", peer_name), plain[name],
               theirs[name], unit="tokens")  # fmt: skip
    met = report(
        "context",
        label("the six definitions", "six"),
        sum(plain.values()),
        sum(v or 0 for v in theirs.values()) if built else None,
        unit="tokens",
        limit=LIMIT,
    )
    report(
        "context",
        label("the six with security_risk", "six as its agent sends them"),
        sum(risky.values()),
        theirs_agent,
        unit="tokens",
    )
    return met


# -- part 2: deferral --------------------------------------------------------------------

_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


def as_tool(entry: dict[str, Any]) -> ToolDefinition[Any, Any]:
    """A runnable tool with the entry's name, description and parameters (their JSON
    types and descriptions; the optional ones left out of ``required``)."""
    schema = entry.get("inputSchema") or {}
    required = set(schema.get("required", ()))
    fields: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        kind = _JSON_TYPES.get(prop.get("type", ""), Any)
        described = prop.get("description")
        if name in required:
            fields[name] = (kind, Field(description=described))
        else:
            fields[name] = (kind | None, Field(default=None, description=described))
    action = create_model(f"Action{len(fields)}", __base__=Action, **fields)
    return ToolDefinition(
        name=entry["name"],
        description=entry["description"],
        action_type=action,
        executor=lambda act: Observation.from_text("done"),
    )


def five_hundred() -> ToolRegistry:
    """The 500 tools, one factory per server (``github__create_issue``: ``github``)."""
    by_server: dict[str, list[dict[str, Any]]] = {}
    for entry in json.loads(TOOL_SET.read_text()):
        by_server.setdefault(entry["name"].partition("__")[0], []).append(entry)
    registry = ToolRegistry()
    for server, entries in by_server.items():

        def create(context: Any, entries: list[dict[str, Any]] = entries) -> list[Any]:
            return [as_tool(entry) for entry in entries]

        create.__name__ = server
        registry.register(create, name=server)
    return registry


def deferral_figures() -> bool:
    """Part 2: tokens before a search, 500 tools deferred but two, against all sent."""
    ok = True
    with Toolset.load(registry=five_hundred()) as every:
        assert len(every) == 500, len(every)
        with Toolset.load(registry=five_hundred()) as deferred:
            deferred.defer(keep=KEPT, namespaces=True)
            for fmt in ("openai", "responses", "anthropic", "gemini", "bedrock"):
                whole = count_before_search(fmt, every.export(fmt, check="off"))
                part = count_before_search(fmt, deferred.export(fmt, check="off"))
                ok &= report(
                    "context",
                    f"500 tools, {fmt}: deferred vs all sent (tokens)",
                    part,
                    whole,
                    0.1,
                    "tokens",
                )
    return ok


# -- part 3: the local search ------------------------------------------------------------


def search_figures() -> bool:
    """Part 3: the local search's CPU time per query over the 500 tools."""
    from toolplug.search import ToolIndex

    with Toolset.load(registry=five_hundred()) as toolset:
        definitions = list(toolset.values())
    index = ToolIndex(definitions)
    queries = [q["query"] for q in json.loads(QUERIES.read_text())]
    texts = [f"{d.name} {d.description}".lower() for d in definitions]

    def ours() -> None:
        for query in queries:
            index.search(query, limit=5)

    def floor() -> None:
        for query in queries:
            words = query.lower().split()
            sum(1 for text in texts for word in words if word in text)

    alternated({"ours": ours, "floor": floor}, 2, number=1)  # warm up
    times = alternated({"ours": ours, "floor": floor}, 20, number=1)
    started = time.thread_time()
    ToolIndex(definitions)
    built = time.thread_time() - started
    report("context", "tool search index, built over 500 tools (CPU)", built, None, None, "ms")
    return report(
        "context",
        "tool search, one query over 500 tools (CPU)",
        times["ours"] / len(queries),
        times["floor"] / len(queries),
        None,
        "ms",
        limit=0.005,
    )


if __name__ == "__main__":
    results = [definition_figures(), deferral_figures(), search_figures(), bench_within_budget()]
    save("bench_context")
    sys.exit(0 if all(results) else 1)
