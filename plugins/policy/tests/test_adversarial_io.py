"""Hostile input against what the policy shows, writes and hides: the question a person
answers, the audit log, and the note a hidden file leaves in a search. (Apart from
test_adversarial.py, which another change adds to: the two may be joined.)"""

from __future__ import annotations

import json
from pathlib import Path

from toolplug_policy.approval import _shown
from toolplug_policy.audit import _json_line, entry
from toolplug_policy.messages import describe_call
from toolplug_policy.secrets import MASK, masked


class _Action:
    """An action as a tool's would be: a command, and arguments besides it."""

    def __init__(self, command: str) -> None:
        self.command = command

    def model_dump(self, mode: str, exclude_defaults: bool) -> dict[str, object]:
        return {"command": self.command, "timeout": 5}


def test_a_question_cannot_be_disguised() -> None:
    """Bidi overrides, escape sequences and carriage returns are shown, not obeyed."""
    what = describe_call("bash", _Action("echo safe\u202e\x1b[2K\rrm -rf ~ #"))
    shown = _shown(f"allow {what}?")
    assert "\u202e" not in shown and "\x1b" not in shown and "\r" not in shown
    assert "rm -rf ~" in shown and '{"timeout": 5}' in shown


def test_a_deep_or_wide_argument_never_breaks_the_log() -> None:
    deep: object = "bottom"
    for _ in range(5000):
        deep = {"next": deep}
    line = _json_line(
        entry(time=0.0, phase="start", call="1-1", tool="t", arguments={"d": deep, "k" * 10**6: 1})
    )
    assert len(line) < 20_000 and line.count("\n") == 1
    json.loads(line)


def test_a_secret_split_across_list_items_or_keys_is_masked() -> None:
    out = masked({"env": ["TOKEN=t1", "OTHER=ok"], "HEADERS": [["X-Auth-Token", "t2"]]})
    assert out == {"env": [f"TOKEN={MASK}", "OTHER=ok"], "HEADERS": [["X-Auth-Token", MASK]]}


def test_a_hidden_file_leaves_the_same_note_whatever_it_holds(
    toolset, write_policy, workspace: Path
) -> None:
    """The grep note counts hidden files, not hidden matches: a model probing a .env
    character by character reads the same note every time."""
    policy = write_policy(
        """
        default = "deny"
        [[rules]]
        decision = "allow"
        tool = "grep"
        path = ["**", "!**/.env"]
        """
    )
    tools = toolset(["grep"], policy)
    texts = {
        probe: tools.call(
            "grep", {"pattern": probe, "include_hidden": True, "output_mode": "count"}
        ).text.replace(probe, "PROBE")
        for probe in ("TOKEN=h", "TOKEN=x", "hunter2", "hunter3")
    }
    assert len(set(texts.values())) == 1, texts
    assert "1 file here is hidden by the policy" in texts["hunter2"]
