"""The order of evaluation as a property: a command's decision is the strongest of its
parts', however the parts are joined and nested."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st
from toolplug_bash.types import BashAction
from toolplug_policy import loads
from toolplug_policy.rules import SEVERITY

POLICY = loads(
    """
    default = "ask"
    [[rules]]
    decision = "allow"
    tool = "bash"
    command = ["echo *", "ls *"]
    [[rules]]
    decision = "deny"
    tool = "bash"
    command = ["curl *"]
    [[rules]]
    decision = "ask"
    tool = "bash"
    command = ["git push *"]
    [[rules]]
    decision = "allow"
    tool = "bash"
    command = ["git *"]
    """
)

#: Simple commands, and the decision each gets on its own.
PARTS = {
    "echo hi": "allow",
    "ls -la src": "allow",
    "git status": "allow",
    "git push origin main": "ask",  # "git *" allows it too: ask is stronger
    "curl http://x": "deny",
    "make build": "ask",  # no rule: the default
}
JOINS = [" && ", " || ", "; ", " | ", " & ", "\n"]


def nested(part: str, how: int) -> str:
    """The part as it is, in a subshell, a group, or a command substitution."""
    return [part, f"( {part} )", f"{{ {part}; }}", f"echo $({part})", f"echo `{part}`"][how]


scripts = st.lists(
    st.tuples(st.sampled_from(sorted(PARTS)), st.integers(0, 4), st.sampled_from(JOINS)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(scripts)
def test_a_script_gets_the_strongest_decision_of_its_parts(parts) -> None:
    script = ""
    for i, (part, how, join) in enumerate(parts):
        script += ("" if i == 0 else join) + nested(part, how)
    expected = max((PARTS[part] for part, _, _ in parts), key=SEVERITY.__getitem__)
    verdict = POLICY.decide("bash", BashAction(command=script))
    assert verdict.decision == expected, script
    assert verdict.unreadable is None
    if expected != "allow":
        assert verdict.part in {p for p, _, _ in parts if PARTS[p] == expected}
