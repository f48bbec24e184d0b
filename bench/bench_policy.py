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

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from timing import interleaved, median_time, report, save
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


def compare(governed: Callable[[], object], free: Callable[[], object]) -> dict[str, float]:
    """Seconds per call of each, warmed up (the parser, the shell, the caches), then
    alternated in rounds of ``CALLS`` calls."""
    runs = {"ours": governed, "floor": free}
    interleaved(runs, 5)
    return interleaved(runs, ROUNDS, number=CALLS)


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
                times = compare(ours[name], theirs[name])
                what = f"{name} call under a policy"
                if name == "bash":
                    ok &= report("policy", what, times["ours"], times["floor"], 1.15, "us")
                else:
                    ok &= report(
                        "policy", what, times["ours"], times["floor"], unit="us", extra=60e-6
                    )

            def refuse() -> None:
                observation = governed.call("bash", {"command": HUGE})
                assert observation.is_error and "characters long" in observation.text

            refused = median_time(refuse, ROUNDS)
            ok &= report("policy", "1 MB bash command refused", refused, None, limit=HUGE_TARGET)
        lines = (root / "audit.jsonl").read_text().count("\n")
        print(f"audit log: {lines} lines written in the background")
    save("bench_policy")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
