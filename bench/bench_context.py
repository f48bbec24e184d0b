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
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from timing import report, save
from toolplug import Toolset
from toolplug.tokens import count, count_definitions

HERE = Path(__file__).resolve().parent
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


if __name__ == "__main__":
    results = [definition_figures()]
    save("bench_context")
    sys.exit(0 if all(results) else 1)
