"""Benchmark of toolplug-policy: what the check adds to a call, against the same call
without a policy, measured in the same run (the two alternated).

Run: python bench/bench_policy.py (with toolplug-policy, toolplug-bash and
toolplug-think installed). Prints one line per target: what, our time, the floor, the
ratio, the target and PASS/MISS.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from timing import interleaved
from toolplug import Toolset

REPEATS = 2000

POLICY = """
default = "deny"
audit_log = "audit.jsonl"

[[rules]]
decision = "allow"
tool = "think"

[[rules]]
decision = "allow"
tool = "bash"
command = ["git status", "git diff *", "echo *", "ls *", "pytest *", "npm run test:*"]

[[rules]]
decision = "deny"
tool = "bash"
command = ["curl *", "wget *", "ssh *", "sudo *"]

[[rules]]
decision = "allow"
tool = ["file_editor", "glob"]
path = ["src/**", "tests/**", "!**/.env"]
"""


def report(what: str, ours: float, floor: float, target: float) -> bool:
    ratio = ours / floor
    verdict = "PASS" if ratio <= target else "MISS"
    print(
        f"{what:<50} ours {ours * 1e6:9.1f} us  floor {floor * 1e6:9.1f} us  "
        f"ratio {ratio:6.2f}x  target <= {target:g}x  {verdict}"
    )
    return ratio <= target


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        policy = Path(tmp) / "policy.toml"
        policy.write_text(POLICY)
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        bare = Toolset.load(["think", "bash"], workspace=workspace)
        checked = Toolset.load(["think", "bash"], workspace=workspace, policy=policy)
        with bare, checked:
            thought = {"thought": "the plan"}
            assert not checked.call("think", thought).is_error
            medians = interleaved(
                {
                    "bare": lambda: bare.call("think", thought),
                    "checked": lambda: checked.call("think", thought),
                },
                REPEATS,
            )
            ok = report(
                "think, allowed by name, audit log on",
                medians["checked"],
                medians["bare"],
                4.0,
            )
            command = {"command": "echo hi && ls -a | echo done"}
            observation = checked.call("bash", command)
            assert not observation.is_error, observation.text  # timed: a call that runs
            medians = interleaved(
                {
                    "bare": lambda: bare.call("bash", command),
                    "checked": lambda: checked.call("bash", command),
                },
                REPEATS // 4,
            )
            ok &= report(
                "bash, a three-part command allowed part by part",
                medians["checked"],
                medians["bare"],
                1.15,
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
