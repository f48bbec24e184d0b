"""Benchmark: what a permission policy adds to a call, against the same call without it.

Two toolsets are loaded side by side from the installed plugins: one governed by a
coding agent's policy (a dozen rules; bash commands parsed with tree-sitter-bash, paths
resolved against the workspace, an audit log written in the background), one not. The
contenders alternate in rounds, so machine noise hits both alike.

- bash: a warm ``echo hi && ls | head -1`` round trip (three commands to parse and
  match). Target: within 1.15x of the ungoverned call.
- file_editor: ``view`` of a small file under ``src/`` (a path rule: the path resolved,
  symlinks and all). Target: within 60 us of the ungoverned call.
- think: a call of a tool that does nothing (the policy's cost laid bare). Target:
  within 60 us of the ungoverned call.
- a 1 MB bash command: refused by the policy's size limit before it is parsed (issue
  #26: a 3.9 MB one took 150 s to parse). Target: the whole call, validation and
  refusal included, within 50 ms.

A ratio says little for a tool that takes 6 us, so the two quick tools have a target in
microseconds added per call (audit log included); every line prints both.

    python bench/bench_policy.py      (toolplug-policy, -bash, -file-editor, -think installed)
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from toolplug import Toolset

ROUNDS = 15
CALLS = 40  # calls per contender per round
HUGE = "echo " + "a " * 500_000  # 1 MB
HUGE_TARGET = 0.050

POLICY = """\
default = "ask"
audit_log = "audit.jsonl"

[[rules]]
decision = "allow"
tool = "bash"
command = ["echo *", "ls *", "head *", "cat *", "git status", "git diff *", "pytest *"]

[[rules]]
decision = "deny"
tool = "bash"
command = ["curl *", "wget *", "rm -rf *", "git push *"]
reason = "no network, no mass deletion, no pushing"

[[rules]]
decision = "allow"
tool = ["file_editor", "glob"]
path = ["src/**", "tests/**", "!**/.env"]

[[rules]]
decision = "allow"
tool = ["think", "finish"]

[[rules]]
decision = "deny"
tool = "*"
security_risk = ["high"]
"""


def per_call(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    for _ in range(CALLS):
        fn()
    return (time.perf_counter() - started) / CALLS


def compare(name: str, governed: Callable[[], object], free: Callable[[], object]) -> tuple:
    for fn in (governed, free):  # warm both (the parser, the shell, the caches)
        for _ in range(5):
            fn()
    ours: list[float] = []
    floor: list[float] = []
    for _ in range(ROUNDS):
        ours.append(per_call(governed))
        floor.append(per_call(free))
    return name, statistics.median(ours), statistics.median(floor)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace = root / "ws"
        (workspace / "src").mkdir(parents=True)
        (workspace / "src" / "app.py").write_text("print('hello')\n" * 20)
        policy = root / "policy.toml"
        policy.write_text(POLICY)
        specs = ["bash", "file_editor", "think"]
        governed = Toolset.load(specs, workspace=workspace, policy=policy)
        free = Toolset.load(specs, workspace=workspace, plugins="bash,file_editor,think")
        ok = True
        with governed, free:
            for toolset in (governed, free):
                for check in (
                    toolset.call("bash", {"command": "echo hi && ls | head -1"}),
                    toolset.call("file_editor", {"command": "view", "path": "src/app.py"}),
                    toolset.call("think", {"thought": "plan"}),
                ):
                    assert not check.is_error, check.text

            def calls(toolset: Toolset) -> dict[str, Callable[[], object]]:
                return {
                    "bash": lambda: toolset.call("bash", {"command": "echo hi && ls | head -1"}),
                    "file_editor": lambda: toolset.call(
                        "file_editor", {"command": "view", "path": "src/app.py"}
                    ),
                    "think": lambda: toolset.call("think", {"thought": "plan the next step"}),
                }

            ours, theirs = calls(governed), calls(free)
            for name in ("bash", "file_editor", "think"):
                what, with_policy, without = compare(name, ours[name], theirs[name])
                ratio = with_policy / without
                added_us = (with_policy - without) * 1e6
                if name != "bash":
                    passed = added_us <= 60
                    target = "added <= 60 us"
                else:
                    passed = ratio <= 1.15
                    target = "ratio <= 1.15x"
                ok &= passed
                print(
                    f"{what + ' call under a policy':<34} ours {with_policy * 1e6:9.1f} us  "
                    f"floor {without * 1e6:9.1f} us  ratio {ratio:5.2f}x  "
                    f"added {added_us:7.1f} us  target {target}  "
                    f"{'PASS' if passed else 'MISS'}"
                )
            refusals = []
            for _ in range(ROUNDS):
                started = time.perf_counter()
                observation = governed.call("bash", {"command": HUGE})
                refusals.append(time.perf_counter() - started)
                assert observation.is_error and "characters long" in observation.text
            refused = statistics.median(refusals)
            passed = refused <= HUGE_TARGET
            ok &= passed
            print(
                f"{'1 MB bash command refused':<34} ours {refused * 1e3:9.2f} ms  "
                f"(median of {ROUNDS})  target <= {HUGE_TARGET * 1e3:.0f} ms  "
                f"{'PASS' if passed else 'MISS'}"
            )
        lines = (root / "audit.jsonl").read_text().count("\n")
        print(f"audit log: {lines} lines written in the background")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
