"""Attacks on the policy's reading of bash commands (issue #26): variables bash or the
programs it runs act on, set in any form; prefixes in front of an allowed command;
builtins and functions that change what a later command runs; paths that climb out of
an allowed directory; and commands too big to read. Each is checked through the real
policy, and the representative ones through a real bash tool under the policy, where
the command that would have run leaves no marker file (and does leave one without the
policy, so the test shows the attack is real)."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest
from conftest import refused
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError
from toolplug import PolicyError, Toolset
from toolplug_bash.types import BashAction
from toolplug_policy import Policy, loads
from toolplug_policy.model import PolicyFile, first, problem

POLICY = """
default = "deny"

[[rules]]
decision = "allow"
tool = "bash"
command = [
  "git status", "git log *", "ls *", "echo *", "cat src/*", "true", "alias", "set -e*",
]

[[rules]]
decision = "allow"
tool = "bash"
command = ["sort *", "export *", "read *", "env *", "time *", "sudo *"]
env = ["LANG", "LC_*"]

[[rules]]
decision = "allow"
tool = "bash"
command = ["mapfile *", "readarray *", "compgen *", "complete *", "wait *"]
"""


@pytest.fixture(scope="module")
def policy() -> Policy:
    return loads(POLICY)


def decide(policy: Policy, command: str) -> str:
    return policy.decide("bash", BashAction(command=command)).decision


# Variables bash reads to decide what runs, or when: unreadable in every form.
SHELL_VARIABLES = [
    "PS0='$(touch pwned)'",
    "PS1='$(touch pwned)'",
    "PS2='$(touch pwned)'",
    "PS3='$(touch pwned)'",
    "PS4='$(touch pwned)'; set -x; ls",
    "PROMPT_COMMAND='touch pwned'",
    "PROMPT_COMMAND[1]='touch pwned'",
    "PROMPT_COMMAND+=('touch pwned')",
    "BASH_CMDS=([ls]=/usr/bin/touch)",
    "BASH_CMDS[ls]=/usr/bin/touch",
    "BASH_ALIASES=([ls]='touch pwned')",
    "BASH_ALIASES[ls]='touch pwned'",
    "BASH_ENV=/tmp/x; bash -c ls",
    "ENV=/tmp/x",
    "PATH=/tmp/evil:$PATH; ls",
    "for PATH in /tmp/evil; do ls; done",
    "select PS1 in a; do ls; done",
    "IFS=/; ls",
    "SHELLOPTS=xtrace",
    "BASHOPTS=expand_aliases",
    "GLOBIGNORE='*'",
    "EXECIGNORE=/usr/bin/*",
    "HISTFILE=~/.bashrc",
    "HISTFILESIZE=0",
    "BASH_XTRACEFD=7",
    "MAILPATH='/tmp/m?$(touch pwned)'",
    "TMOUT=1",
    "CDPATH=/etc; cd ssh",
    "HOME=/tmp/evil; git status",
    "HOME=src git status",
    "LD_PRELOAD=/tmp/x.so ls",
    "LD_LIBRARY_PATH=/tmp ls",
    "BASH_FUNC_ls%%='() { touch pwned; }' bash -c ls",
    "read PS1 <<< x",
    "read -a PROMPT_COMMAND <<< x",
    "mapfile PROMPT_COMMAND < /dev/null",
    "readarray -t BASH_ENV < /dev/null",
    "printf -v PS1 '%s' x",
    "sleep 0 & wait -n -p PROMPT_COMMAND",  # the job's number becomes a command
    "getopts a PS1",
    "declare PS0='$(touch pwned)'",
    "declare -x BASH_ENV=/tmp/x",
    "typeset -a PROMPT_COMMAND=(x)",
    "local PATH=/tmp",
    "export PS1",
    "readonly IFS",
    "unset PATH",
    "declare -n ref=PS1; ref=x",
    "env PATH=/tmp/evil ls",
    "env -i LD_PRELOAD=/tmp/x.so ls",
    "echo ${PS0:='$(touch pwned)'}",  # assigns when PS0 is empty
    "echo ${PROMPT_COMMAND='touch pwned'}",
    "echo ${GIT_PAGER:='touch pwned'}; git log -1",
    "builtin read PS1 <<< x",
    "command -p read PATH <<< /tmp",
    "builtin -- read PS1 <<< x",  # '--' ends the options of builtin and command
    "command -p -- declare -x PATH=/tmp",
]


@pytest.mark.parametrize("command", SHELL_VARIABLES)
def test_setting_a_variable_bash_acts_on_is_never_allowed(policy: Policy, command: str) -> None:
    verdict = policy.decide("bash", BashAction(command=command))
    assert verdict.decision == "deny"
    assert verdict.unreadable is not None  # refused as unreadable, not for want of a rule


# Variables programs read from the environment: a rule must name them (env), in
# front of a command or set any other way.
ENVIRONMENT = [
    "GIT_PAGER='touch pwned' git log -1",
    "GIT_PAGER='touch pwned'; git log -1",
    "GIT_PAGER='touch pwned'",
    "export GIT_PAGER='touch pwned'; git log -1",
    "declare -x GIT_PAGER='touch pwned'",
    "for GIT_PAGER in 'touch pwned'; do git log -1; done",
    "read GIT_PAGER <<< 'touch pwned'; git log -1",
    "printf -v GIT_PAGER 'touch pwned'",
    "wait -p GIT_PAGER",
    "env GIT_PAGER='touch pwned' git log -1",
    "env -u HOME GIT_PAGER='touch pwned' git log -1",
    "time GIT_PAGER='touch pwned' git log -1",
    "sudo -u root GIT_PAGER='touch pwned' git log -1",
    "GIT_CONFIG_PARAMETERS=\"'core.pager=touch pwned'\" git log -1",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=x git status",
    "GIT_CONFIG_GLOBAL=src/cfg git status",
    "GIT_DIR=/tmp/other git status",
    "GIT_EXTERNAL_DIFF='touch pwned' git log -p",
    "GIT_SSH_COMMAND='touch pwned' git status",
    "XDG_CONFIG_HOME=src git status",
    "PAGER='touch pwned' git log",
    "EDITOR='touch pwned' git status",
    "LESSOPEN='|touch pwned %s' git log",
    "PYTHONSTARTUP=src/x.py ls",
    "PYTHONPATH=src ls",
    "PERL5OPT=-Mx ls",
    "NODE_OPTIONS='--require ./x.js' ls",
    "npm_config_script_shell=/tmp/x ls",
    "https_proxy=http://127.0.0.1:9 git status",
    "LANG=C git status",  # LANG is allowed for sort, not for git
    "X=1",
    "A=1 B=2",
    "x=1",  # a line of assignments only, even to a shell's own variable
    "export X=1",
    "LANG=C LC_ALL=C GIT_PAGER=x sort a",  # one name the rule does not list
]


@pytest.mark.parametrize("command", ENVIRONMENT)
def test_a_variable_no_rule_names_is_never_allowed(policy: Policy, command: str) -> None:
    assert decide(policy, command) == "deny"


ALLOWED = [
    "git status",
    "LANG=C sort a",
    "LC_ALL=C LANG=C sort -u a",
    "export LANG=C",
    "read LC_ALL <<< C",
    "env LANG=C sort a",
    "time LANG=C sort a",
    "x=$(git status); echo $x",
    "for f in src tests; do ls $f; done",
    "read -r line <<< hi; echo $line",
    "echo ${name:=default} ${X:-unset}",
    "cat src/app.py",
    "alias",  # a listing changes nothing
    "set -e",
    "set -eu",
    "",
    "# a comment",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_what_the_rules_allow_stays_allowed(policy: Policy, command: str) -> None:
    assert decide(policy, command) == "allow"


# Builtins and definitions that change what a later command runs.
ALTERING = [
    "alias ls='touch pwned'",
    "alias ls='touch pwned'; ls",
    "command alias ls='touch pwned'",
    "builtin alias ls='touch pwned'",
    "command -- alias ls='touch pwned'",
    "enable -n echo",
    "enable -f /tmp/x.so x",
    "hash -p /usr/bin/touch ls",
    "trap 'ls' DEBUG",
    "trap 'echo' RETURN",
    "shopt -s expand_aliases",
    "set -k; git log -1 GIT_PAGER='touch pwned'",
    "set -o keyword",
    "set -o history",
    "set -H",
    "set -o emacs",
    "history -s 'touch pwned'",
    "bind -x '\"\\C-m\": touch pwned'",
    "fc -s status=log",
    "git() { touch pwned; }; git status",
    "git() { ls; }; git status",
    "function ls { echo; }",
    "command_not_found_handle() { ls; }",
]


@pytest.mark.parametrize("command", ALTERING)
def test_changing_what_later_commands_run_is_never_allowed(policy: Policy, command: str) -> None:
    assert decide(policy, command) == "deny"


@pytest.mark.parametrize(
    "command", ["alias ls='touch pwned'", "git() { ls; }", "shopt -s extglob", "X=1", "x=1"]
)
def test_an_allow_default_asks_about_what_changes_later_commands(command: str) -> None:
    permissive = loads('default = "allow"\n[[rules]]\ndecision = "allow"\ncommand = "*"\n')
    verdict = permissive.decide("bash", BashAction(command=command))
    assert verdict.decision == "ask"
    assert verdict.caution is not None


def test_a_wrapped_builtin_is_read_as_the_builtin() -> None:
    wrappers = loads(
        'default = "allow"\n[[rules]]\ndecision = "allow"\ncommand = ["command *", "builtin *"]\n'
        '[[rules]]\ndecision = "deny"\ncommand = "touch *"\n'
    )
    # the trap's action is read as 'trap ...' alone would be
    assert decide(wrappers, "command trap 'touch pwned' EXIT") == "deny"
    assert decide(wrappers, "builtin -- trap 'touch pwned' EXIT") == "deny"
    # and 'command *' does not name alias: an allow default asks
    assert decide(wrappers, "command alias ls='touch pwned'") == "ask"
    assert decide(wrappers, "command -- alias ls='touch pwned'") == "ask"
    assert decide(wrappers, "command -v ls") == "allow"


def test_a_rule_allows_an_alias_by_naming_alias() -> None:
    explicit = loads('default = "deny"\n[[rules]]\ndecision = "allow"\ncommand = "alias *"\n')
    assert decide(explicit, "alias ll='ls -l'") == "allow"
    wildcard = loads('default = "deny"\n[[rules]]\ndecision = "allow"\ncommand = "al* *"\n')
    assert decide(wildcard, "alias ll='ls -l'") == "deny"


PATHS = [
    "cat src/../.env",
    "cat src/../../etc/passwd",
    "cat src/..",
    "cat src/a/../../.env",
    "cat src/../src/../.env",
]


@pytest.mark.parametrize("command", PATHS)
def test_a_pattern_star_does_not_climb_out_of_its_directory(policy: Policy, command: str) -> None:
    assert decide(policy, command) == "deny"


def test_a_double_star_may_cross_directories() -> None:
    deep = loads('default = "deny"\n[[rules]]\ndecision = "allow"\ncommand = "cat src/**"\n')
    assert decide(deep, "cat src/a/b/c.py") == "allow"
    assert decide(loads(POLICY), "cat src/a/b/c.py") == "deny"


def test_a_huge_command_is_refused_with_its_size(policy: Policy) -> None:
    command = "echo " + "a" * 1_000_000
    verdict = policy.decide("bash", BashAction(command=command))
    assert verdict.decision == "deny"
    assert verdict.unreadable is not None
    assert "1,000,005 characters long" in verdict.unreadable
    assert "limits.command_chars" in verdict.unreadable


def test_the_size_limit_is_the_policy_files() -> None:
    small = loads(POLICY + "\n[limits]\ncommand_chars = 20\n")
    assert decide(small, "echo twelve chars!!") == "allow"
    assert decide(small, "echo twenty-one chars") == "deny"


# Where the grammar and bash read a command differently, and builtins that run text
# given to them (found by red-teaming the reading): each ran, or reached, something no
# rule allows while the policy saw only allowed words.
MISREAD = [
    "echo $(( '$(touch pwned)' ))",  # arithmetic reads single quotes as plain text
    "echo $[ '$(touch pwned)' ]",
    "(( '$(touch pwned)' ))",
    "for (( i='$(touch pwned)'; 0; )); do :; done",
    "echo `echo \\`touch pwned\\``",  # the inner backticks run
    "echo `echo \\$(touch pwned)`",
    'echo "`echo \\`touch pwned\\``"',
    "ls\r#; touch pwned",  # bash reads 'ls\r#' as one word, then runs touch
    "ls\x0b#; touch pwned",
    "ls\x0c#; touch pwned",
    "ls\rrm x",
    "ls < /dev/tcp/127.0.0.1/9",  # bash connects for these names itself
    "ls < /dev/udp/127.0.0.1/9",
    "ls 3<> /dev/tcp/127.0.0.1/9",
    "echo x > /dev/tcp/127.0.0.1/9",
    "ls <&3 3</dev/tcp/127.0.0.1/9",
    'ls < "/dev/tcp"/127.0.0.1/9',
    "f=/dev/tcp/127.0.0.1/9; ls < $f",  # a file to read only known at run time
    'ls < "$f"',
    "ls <& $f",
    "ls {fd}< /dev/tcp/127.0.0.1/9",  # the grammar reads '{fd}' as a word of ls
    "ls {PATH}< /dev/null",
    "ls {fd}<<< x",
    "mapfile -C 'touch pwned' -c 1 lines < src/app.py",  # -C runs its text, as eval does
    "readarray -tC 'touch pwned' lines",
    "compgen -C 'touch pwned' x",
    "complete -C 'touch pwned' ls",
]


@pytest.mark.parametrize("command", MISREAD)
def test_what_the_grammar_misreads_is_refused(policy: Policy, command: str) -> None:
    verdict = policy.decide("bash", BashAction(command=command))
    assert verdict.decision == "deny"
    assert verdict.unreadable is not None


@pytest.mark.parametrize(
    "command", ["echo $(< src/.env)", 'echo "$(<~/.ssh/id_rsa)"', "echo `< src/.env`"]
)
def test_reading_a_file_into_a_substitution_needs_a_rule(policy: Policy, command: str) -> None:
    # '$(< file)' reads the file with no command: no pattern such as 'cat src/*' allows it
    assert decide(policy, command) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "echo $((1 + 2))",
        "echo $(echo '`x`')",  # quoted backticks inside $(...) are text
        "echo `echo '$(x)'`",  # so is $(...) in single quotes inside backticks
        "echo 'a\rb'",  # a carriage return inside quotes is part of the word
        "# a comment\r",
        "ls < src/app.py",
        "ls 2>&1",
        "echo ${HOME}> /dev/null",  # an expansion before a redirection is no descriptor
    ],
)
def test_near_misses_stay_readable(policy: Policy, command: str) -> None:
    assert decide(policy, command) == "allow"


# --- through a real bash tool -------------------------------------------------------

#: (attack, a harmless command after it, the marker the attack would create)
REAL = [
    ("PS0='$(touch m_ps0)'", "ls", "m_ps0"),
    ("PROMPT_COMMAND[1]='touch m_pc'", "ls", "m_pc"),
    ("BASH_CMDS=([ls]=/usr/bin/touch)", "ls m_cmds", "m_cmds"),
    ("GIT_PAGER='touch m_pager' git log -1", "true", "m_pager"),
    ("GIT_PAGER='touch m_pager2'; git log -1", "true", "m_pager2"),
    ("alias ls='touch m_alias'", "ls", "m_alias"),
    ("builtin -- read PS1 <<< '$(touch m_builtin)'", "true", "m_builtin"),
    ("echo $(( '$(touch m_arith)' ))", "true", "m_arith"),
    ("echo `echo \\`touch m_ticks\\``", "true", "m_ticks"),
    ("mapfile -C 'touch m_callback' -c 1 x < README.md", "true", "m_callback"),
]


@pytest.fixture
def repo(workspace: Path) -> Path:
    """The workspace as a git repository with one commit (git log has something)."""
    git = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=workspace, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], cwd=workspace, check=True)
    return workspace


def run_all(tools: Toolset) -> list[str]:
    texts = []
    for attack, after, _marker in REAL:
        texts.append(tools.call("bash", {"command": attack}).text)
        tools.call("bash", {"command": after})
    return texts


def test_the_attacks_are_real_without_a_policy(repo: Path) -> None:
    with Toolset.load(["bash"], workspace=repo, plugins="bash") as tools:
        run_all(tools)
    assert sorted(p.name for p in repo.glob("m_*")) == sorted(m for _, _, m in REAL)


def test_under_the_policy_no_attack_runs(toolset, write_policy, repo: Path) -> None:
    tools = toolset(["bash"], write_policy(POLICY))
    texts = run_all(tools)
    assert list(repo.glob("m_*")) == []
    for text in texts:
        assert text.startswith("Refused by the policy: ") and "The tool did not run." in text


def test_a_redirection_to_dev_tcp_never_connects(toolset, write_policy, repo: Path) -> None:
    # bash opens /dev/tcp/host/port itself: 'ls < /dev/tcp/...' reached the network
    # under a rule allowing 'ls *'
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(5)
        port = server.getsockname()[1]
        attack = f"ls < /dev/tcp/127.0.0.1/{port}"
        with Toolset.load(["bash"], workspace=repo, plugins="bash") as bare:
            bare.call("bash", {"command": attack})
        server.accept()[0].close()  # without the policy, bash connected
        tools = toolset(["bash"], write_policy(POLICY))
        assert "opens a network connection" in refused(tools.call("bash", {"command": attack}))
        server.settimeout(0.5)
        with pytest.raises(TimeoutError):
            server.accept()


def test_a_refusal_names_the_variable_and_why(toolset, write_policy) -> None:
    tools = toolset(["bash"], write_policy(POLICY))
    text = refused(tools.call("bash", {"command": "PROMPT_COMMAND[1]='touch x'; ls"}))
    assert "setting PROMPT_COMMAND changes what bash does later (runs at a prompt)" in text
    text = refused(tools.call("bash", {"command": "GIT_PAGER='touch x' git log -1"}))
    assert "`GIT_PAGER='touch x' git log -1`" in text and "the default is deny" in text
    text = refused(tools.call("bash", {"command": "cat src/../.env"}))
    assert "`cat src/../.env`" in text


def test_a_verdict_says_which_variables_no_rule_names(policy: Policy) -> None:
    verdict = policy.decide("bash", BashAction(command="GIT_PAGER=x LANG=C git log -1"))
    assert verdict.decision == "deny"
    assert verdict.caution is not None
    assert "rule 1 (<policy>, line 4) allows its words" in verdict.caution
    assert "(GIT_PAGER, LANG)" in verdict.caution and "env key" in verdict.caution
    verdict = policy.decide("bash", BashAction(command="alias ls='touch pwned'"))
    assert verdict.caution == "alias changes what a command name runs"


# --- the syntax of env and limits -------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ('command = "ls"\nenv = ["GIT PAGER"]', "env: 'GIT PAGER' is not a variable name"),
        ('command = "ls"\nenv = []', "env is an empty list"),
        ('command = "ls"\nenv = [1]', "env must be a string or a list of strings"),
        ('tool = "bash"\nenv = ["LANG"]', "env names the variables a rule's commands may set"),
    ],
)
def test_a_bad_env_key_is_refused_with_its_line(rule: str, message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        loads(f'[[rules]]\ndecision = "allow"\n{rule}\n', file="p.toml")
    assert message in str(caught.value)
    assert str(caught.value).startswith("p.toml, line ")


def test_env_on_a_deny_rule_is_refused() -> None:
    with pytest.raises(PolicyError, match="env is for allow rules"):
        loads('[[rules]]\ndecision = "deny"\ncommand = "ls"\nenv = ["X"]\n')


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ("command_chars = 0", "command_chars must be a whole number"),
        ("command_chars = 1.5", "command_chars must be a whole number"),
        ("command_chars = true", "command_chars must be a whole number"),
        ("parse_seconds = 0", "parse_seconds must be a number of seconds above 0"),
        ('parse_seconds = "1"', "parse_seconds must be a number of seconds above 0"),
        ("max = 1", "limits: unknown key 'max' (limits has command_chars, parse_seconds)"),
    ],
)
def test_bad_limits_are_refused_with_their_line(limits: str, message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        loads(f'default = "deny"\n\n[limits]\n{limits}\n', file="p.toml")
    assert str(caught.value).startswith("p.toml, line 3: ")
    assert message in str(caught.value)


def test_limits_are_read() -> None:
    policy = loads("[limits]\ncommand_chars = 10\nparse_seconds = 2\n")
    assert (policy.limits.command_chars, policy.limits.parse_seconds) == (10, 2.0)


# --- the file checked by pydantic: what the hand checks did, still done -----------------


def test_an_audit_log_with_a_nul_byte_is_refused_with_its_line() -> None:
    with pytest.raises(PolicyError, match=r"^p\.toml, line 2: audit_log must be a file path"):
        loads('default = "deny"\naudit_log = "a\\u0000b.jsonl"\n', file="p.toml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # an unknown top key before anything inside the rules
        ("[[rules]]\ntool = 3\n\n[extra]\nx = 1\n", "p.toml, line 4: unknown key 'extra'"),
        # the default before the limits, the limits before the rules
        ('default = "x"\n[limits]\nmax = 1\n', "p.toml, line 1: default: unknown decision"),
        ("[limits]\nmax = 1\n[[rules]]\ntool = 3\n", "p.toml, line 1: limits: unknown key 'max'"),
        # in a rule: an unknown key, then the decision, then reason before tool
        (
            "[[rules]]\ntool = 3\nwho = 1\n",
            "p.toml, line 3: rule 1 ([[rules]] at line 1): unknown key 'who'",
        ),
        ("[[rules]]\ntool = 3\n", "p.toml, line 1: rule 1: no decision"),
        (
            '[[rules]]\ndecision = "allow"\ntool = 3\nreason = 1\n',
            "p.toml, line 4: rule 1 ([[rules]] at line 1): reason must be a string",
        ),
        # the first rule's problem before the second's, whatever they are
        (
            '[[rules]]\ndecision = "allow"\npath = []\n[[rules]]\ndecision = "x"\n',
            "p.toml, line 3: rule 1 ([[rules]] at line 1): path is an empty list",
        ),
        # env's own checks need a command that was read: a bad command is named, not env
        (
            '[[rules]]\ndecision = "allow"\ncommand = 3\nenv = "X"\n',
            "p.toml, line 3: rule 1 ([[rules]] at line 1): command must be a string",
        ),
    ],
)
def test_of_several_problems_the_first_checked_is_named(text: str, message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        loads(text, file="p.toml")
    assert str(caught.value).startswith(message), str(caught.value)


_KEYS = ["default", "audit_log", "limits", "rules", "decision", "tool", "command", "env"]
_KEYS += ["path", "arguments", "security_risk", "reason", "command_chars", "parse_seconds", "x"]
_SCALARS = st.booleans() | st.integers(-2, 3) | st.floats(-1, 2)
_SCALARS |= st.sampled_from(["", " ", "allow", "deny", "ls", "LANG", "src/**", "!x", "$.a", "high"])
_DATA = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(data=st.dictionaries(st.sampled_from(_KEYS), _DATA, max_size=4))
def test_any_file_gives_a_policy_or_a_sentence(data: dict[str, object]) -> None:
    """Whatever TOML holds, the models accept it or one of their errors is put in words
    (an error with no sentence would raise a KeyError from the loader)."""
    try:
        PolicyFile.model_validate(data)
    except ValidationError as exc:
        assert problem(first(exc.errors())).strip()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[rules]]\ndecision = "allow"\ncommands = ["ls"]\n',
            "p.toml, line 3: rule 1 ([[rules]] at line 1): unknown key 'commands' (a rule "
            "has decision, tool, command, env, path, arguments, security_risk, reason); "
            "did you mean 'command'?",
        ),
        ('defualt = "deny"\n', "did you mean 'default'?"),
        ("[limits]\ncommand_char = 5\n", "did you mean 'command_chars'?"),
    ],
)
def test_an_unknown_key_suggests_the_closest_known_one(text: str, message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        loads(text, file="p.toml")
    assert str(caught.value).startswith("p.toml, line ")
    assert str(caught.value).endswith(message), str(caught.value)


def test_an_unknown_key_far_from_any_suggests_nothing() -> None:
    with pytest.raises(PolicyError) as caught:
        loads('[[rules]]\ndecision = "allow"\nzzz = 1\n', file="p.toml")
    assert str(caught.value).endswith("security_risk, reason)")


# --- path globs: the syntax glob and grep share (docs/globs.md) ---------------------------


def test_a_brace_group_in_a_deny_glob_covers_each_alternative(toolset, workspace: Path) -> None:
    """``{a,b}`` in a path glob is two globs, as in the glob and grep tools: a deny rule
    written with braces keeps out both directories, not a directory named '{a,b}'."""
    for name in ("secrets", "keys", "src"):
        (workspace / name).mkdir(exist_ok=True)
        (workspace / name / "x.txt").write_text(f"{name} content\n")
    policy = loads(
        '[[rules]]\ndecision = "allow"\ntool = "file_editor"\npath = "**"\n\n'
        '[[rules]]\ndecision = "deny"\ntool = "file_editor"\npath = "{secrets,keys}/**"\n'
    )
    tools = toolset(["file_editor"], policy)
    for name in ("secrets", "keys"):
        text = refused(tools.call("file_editor", {"command": "view", "path": f"{name}/x.txt"}))
        assert f"{name}/x.txt" in text
        refused(tools.call("file_editor", {"command": "view", "path": name}))
    assert "src content" in tools.call("file_editor", {"command": "view", "path": "src/x.txt"}).text


@pytest.mark.parametrize(
    ("glob", "message"),
    [
        ("{a,b}" * 20, "expands to more than 10,000 patterns"),
        ("{" * 40 + "a" + "}" * 40, "nests '{' groups more than 32 deep"),
        ("src/{a,b", "opens a '{' group that is never closed"),
        ("src/[z-a]", "backwards range [z-a]; write [a-z]"),
    ],
)
def test_a_glob_too_big_or_malformed_is_refused_at_load(glob: str, message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        loads(f'[[rules]]\ndecision = "deny"\npath = {glob!r}\n', file="p.toml")
    assert message in str(caught.value)


def _patch(*sections: str) -> dict[str, str]:
    return {"input": "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"}


UPDATE_APP = "*** Update File: src/app.py\n@@\n-print('app')\n+print('patched')\n"


@pytest.mark.parametrize(
    "section",
    [
        "*** Update File: src/.env\n@@\n-TOKEN=hunter2\n+TOKEN=mine\n",
        "*** Add File: src/.env.new\n+x\n",  # a new file matched by the glob
        "*** Delete File: src/.env\n",
        # A move: the file it leaves, or the name it takes, is denied.
        "*** Update File: README.md\n*** Move to: src/.env\n",
        "*** Update File: src/.env\n*** Move to: notes.txt\n",
    ],
)
def test_a_patch_is_refused_when_any_file_it_names_is_denied(
    toolset, workspace: Path, section: str
) -> None:
    """apply_patch names its files inside one string: the policy decides on each, as a
    call naming it alone, and the whole patch takes the strictest decision. (Deciding on
    the call alone let a patch write the files a file_editor rule kept out.)"""
    policy = loads(
        '[[rules]]\ndecision = "allow"\ntool = "*"\npath = "**"\n\n'
        '[[rules]]\ndecision = "deny"\ntool = "*"\npath = "**/.env*"\n'
    )
    tools = toolset(["apply_patch"], policy)
    before = {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
    text = refused(tools.call("apply_patch", _patch(UPDATE_APP, section)))
    assert ".env" in text
    # Nothing was applied: the allowed part of the patch waited on the denied part.
    assert {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()} == before


def test_a_patch_of_allowed_files_goes_through_and_one_past_the_rules_does_not(
    toolset, workspace: Path
) -> None:
    policy = loads('[[rules]]\ndecision = "allow"\ntool = "*"\npath = "src/**"\n')
    tools = toolset(["apply_patch"], policy)
    done = tools.call("apply_patch", _patch(UPDATE_APP))
    assert not done.is_error, done.text
    assert (workspace / "src" / "app.py").read_text() == "print('patched')\n"
    # A file outside what is allowed: the default (ask, with no one to ask) refuses it.
    refused(tools.call("apply_patch", _patch("*** Add File: README2.md\n+x\n")))
    assert not (workspace / "README2.md").exists()
