"""Policy files: what is read, and every malformed file refused with its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
import toolplug_policy
from toolplug import PolicyError, Toolset
from toolplug_policy import Policy, load


def test_a_full_file_is_read(write_policy, tmp_path: Path) -> None:
    policy = load(
        write_policy(
            """
            # A coding agent's policy.
            default = "ask"
            audit_log = "logs/audit.jsonl"

            [[rules]]
            decision = "allow"
            tool = "bash"
            command = ["git status", "npm run test:*"]

            [[rules]]
            decision = "deny"
            tool = ["file_editor", "glob"]
            path = ["**/.env", "!examples/**"]
            reason = "secrets"

            [[rules]]
            decision = "ask"
            security_risk = "HIGH"
            arguments = { "$.url" = "http://*", "$.retries" = 3 }
            """
        )
    )
    assert policy.default == "ask"
    assert policy.audit_log == tmp_path / "logs" / "audit.jsonl"
    first, second, third = policy.rules
    assert (first.number, first.line, first.decision) == (1, 5, "allow")
    assert first.commands == ("git status", "npm run test:*") and first.tools == ("bash",)
    assert second.line == 10 and second.reason == "secrets"
    assert second.paths is not None and second.paths.texts == ["**/.env", "!examples/**"]
    assert third.tools == ("*",) and third.security_risk == frozenset({"high"})
    assert [(m.path, m.values) for m in third.arguments] == [
        ("$.url", ("http://*",)),
        ("$.retries", (3,)),
    ]


def test_an_empty_file_asks_about_everything(write_policy) -> None:
    policy = load(write_policy(""))
    assert policy.default == "ask" and list(policy.rules) == [] and policy.audit_log is None


def test_rules_as_an_inline_array_still_load(write_policy) -> None:
    policy = load(write_policy('rules = [{ decision = "deny", tool = "bash" }]\n'))
    assert policy.rules[0].decision == "deny" and policy.rules[0].line is None


#: The start of a message about a key on line 3 of a rule whose header is line 1.
AT3 = "policy.toml, line 3: rule 1 ([[rules]] at line 1): "


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'default = "alow"\n',
            "policy.toml, line 1: default: unknown decision 'alow' (allow, ask or deny)",
        ),
        (
            'default = "deny"\n\n[[rules]]\ntool = "bash"\ndecision = "alow"\n',
            "policy.toml, line 5: rule 1 ([[rules]] at line 3): "
            "unknown decision 'alow' (allow, ask or deny)",
        ),
        (
            '[[rules]]\ndecision = "allow"\n\n[[rules]]\ntool = "bash"\n',
            'policy.toml, line 4: rule 2: no decision (add decision = "allow", "ask" or "deny")',
        ),
        (
            '[[rules]]\ndecision = "allow"\ncommands = ["ls"]\n',
            AT3 + "unknown key 'commands' (a rule has decision, tool, "
            "command, env, path, arguments, security_risk, reason)",
        ),
        (
            'default = "deny"\nrule = []\n',
            "policy.toml, line 2: unknown key 'rule' "
            "(a policy has default, audit_log, limits, rules)",
        ),
        (
            '[[rules]]\ndecision = "allow"\ntool = 3\n',
            AT3 + "tool must be a string or a list of strings, not an integer",
        ),
        (
            '[[rules]]\ndecision = "allow"\ncommand = []\n',
            AT3 + "command is an empty list; give at least one pattern",
        ),
        (
            '[[rules]]\ndecision = "allow"\ncommand = ["git \'status"]\n',
            AT3 + 'command pattern "git \'status": cannot be split into '
            "words (No closing quotation)",
        ),
        (
            '[[rules]]\ndecision = "allow"\npath = ["src/[a-"]\n',
            AT3 + "path: the glob 'src/[a-' has a '[' that is never closed",
        ),
        (
            '[[rules]]\ndecision = "allow"\npath = ["!**/.env"]\n',
            AT3 + "path: a path list needs at least one glob without '!'",
        ),
        (
            '[[rules]]\ndecision = "allow"\npath = ["src/../secrets/**"]\n',
            AT3 + "path: the glob 'src/../secrets/**' holds '..'",
        ),
        (
            '[[rules]]\ndecision = "deny"\nsecurity_risk = ["extreme"]\n',
            AT3 + "unknown security_risk level 'extreme' (low, medium or high)",
        ),
        (
            '[[rules]]\ndecision = "deny"\narguments = { "url" = "http://*" }\n',
            AT3 + "arguments: the argument path 'url' must start with '$'",
        ),
        (
            '[[rules]]\ndecision = "deny"\narguments = { "$.a..b" = "x" }\n',
            AT3 + "arguments: the argument path '$.a..b' cannot be read at '..b'",
        ),
        (
            '[[rules]]\ndecision = "deny"\narguments = { "$.a" = { b = 1 } }\n',
            AT3 + "arguments: '$.a' must be a value",
        ),
        (
            '[[rules]]\ndecision = "deny"\nreason = 4\n',
            AT3 + "reason must be a string",
        ),
        ("audit_log = 7\n", "policy.toml, line 1: audit_log must be a file path (a string)"),
        ('rules = "all"\n', "policy.toml, line 1: rules must be an array of tables ([[rules]])"),
        ('default = "deny"\n[[rules]\n', "policy.toml, line 2: not valid TOML"),
        ("default = \n", "policy.toml, line 1: not valid TOML"),
        ("rules = [1]\n", "policy.toml, line 1: rule 1: a rule is a table of keys"),
    ],
)
def test_malformed_files_name_the_file_the_line_and_the_problem(
    write_policy, text: str, message: str
) -> None:
    path = write_policy(text)
    with pytest.raises(PolicyError) as caught:
        load(path)
    assert str(caught.value).startswith(message.replace("policy.toml", str(path))), str(
        caught.value
    )


def test_a_key_line_inside_a_later_rule(write_policy) -> None:
    path = write_policy(
        """
        [[rules]]
        decision = "allow"
        command = ["ls"]

        [[rules]]
        decision = "allow"
        tool = "bash"
        # the next line is the bad one
        command = "rm 'x"
        """
    )
    expected = r"policy\.toml, line 9: rule 2 \(\[\[rules\]\] at line 5\): command pattern"
    with pytest.raises(PolicyError, match=expected):
        load(path)


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match=r"nope\.toml: no such policy file"):
        load(tmp_path / "nope.toml")


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'default = "deny"\n# caf\xe9\n')
    with pytest.raises(PolicyError, match=r"latin1\.toml: not UTF-8 text \(byte 22\)"):
        load(path)


def test_a_directory(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot be read"):
        load(tmp_path)


def test_a_malformed_policy_makes_no_tools(write_policy, workspace: Path) -> None:
    path = write_policy('default = "alow"\n')
    with pytest.raises(PolicyError, match="unknown decision 'alow'"):
        Toolset.load(["bash"], workspace=workspace, policy=path)


def test_a_policy_object_built_in_code(workspace: Path) -> None:
    policy = Policy(default="deny")
    with Toolset.load(["bash"], workspace=workspace, policy=policy) as tools:
        observation = tools.call("bash", {"command": "echo hi"})
        assert observation.is_error and "the default is deny" in observation.text


def test_other_sources_are_left_to_other_plugins() -> None:
    assert toolplug_policy.load_policy(source={"rules": []}, approver=None) is None


def test_loads_takes_text(tmp_path: Path) -> None:
    policy = toolplug_policy.loads('default = "allow"\naudit_log = "a.jsonl"\n', base=tmp_path)
    assert policy.default == "allow" and policy.audit_log == tmp_path / "a.jsonl"
    with pytest.raises(PolicyError, match=r"^<policy>, line 1: default"):
        toolplug_policy.loads('default = "maybe"\n')
