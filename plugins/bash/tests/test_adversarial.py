"""What a hostile or unlucky world does to the bash tool, through a real bash.

Most tests are one way the session used to break (issue #13): a host holding more
than 1,024 descriptors, a timeout that is not a number, a command that prints the
completion marker, a command that reprograms the session (``exec bash``, ``exec cat``,
``PROMPT_COMMAND=``, ``exec >/dev/null``, ``stty echo``), and the environment a served
client's shell sees; the others pin down what must stay as it is (a library host's
environment, a long host timeout). Waits have generous limits whose expiry fails the
test; nothing is timed.
"""

from __future__ import annotations

import math
import os
import resource
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import toolplug_bash
from conftest import MakeBash, both_modes
from hypothesis import HealthCheck, given, settings, strategies as st
from toolplug import Tool, ToolContext, ToolDefinition
from toolplug.testing import registry_from

Bash = ToolDefinition[Any, Any]

#: Examples per property: enough to find a seam, few enough to keep the suite quick.
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def run(tool: Bash, command: str, **arguments: Any) -> Any:
    """Call the tool; the observation must be a valid, non-error result."""
    observation = tool.call({"command": command, **arguments})
    assert not observation.is_error, observation.text
    return observation


def bash_with(context: ToolContext, **params: Any) -> Bash:
    """A bash tool created as a host creates it, in ``context``."""
    (tool,) = registry_from(toolplug_bash).resolve(Tool("bash", params), context)
    return tool


# -- descriptors past 1,024 ------------------------------------------------------------


@pytest.fixture
def many_descriptors() -> Iterator[int]:
    """Hold /dev/null open until descriptor numbers pass 1,100 (raising the soft limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1400
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the hard descriptor limit ({hard}) is below {wanted}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    held: list[int] = []
    try:
        while not held or held[-1] < 1100:
            held.append(os.open(os.devnull, os.O_RDONLY))
        yield held[-1]
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_host_holding_over_1024_descriptors_still_runs_commands(
    many_descriptors: int, make_bash: MakeBash, tmp_path: Path
) -> None:
    assert many_descriptors >= 1100
    bash = make_bash(timeout=60)
    first = run(bash, "export MARK=kept; echo hi")
    assert first.output == "hi\n"
    assert first.exit_code == 0
    # The session's own descriptors are past 1,024 too: it keeps working and keeps state.
    second = run(bash, 'echo "$MARK"; (exit 3)')
    assert second.output == "kept\n"
    assert second.exit_code == 3
    # Waiting (a timeout, then input) also goes through the same waits.
    waiting = run(bash, "read -r answer; echo got $answer", timeout=1)
    assert waiting.waiting_for_input
    assert run(bash, "yes", is_input=True).output.endswith("got yes\n")


@both_modes
def test_a_session_closed_under_a_waiting_call_is_an_error_not_an_exit(
    make_bash: MakeBash,
) -> None:
    bash = make_bash(timeout=60)
    run(bash, "true")
    results: list[Any] = []
    caller = threading.Thread(target=lambda: results.append(bash.call({"command": "sleep 50"})))
    caller.start()
    session = bash.executor.session
    # Wait (bounded) until the call is in flight, then close the tool under it.
    for _ in range(2000):
        if session is not None and session.running:
            break
        threading.Event().wait(0.005)
    assert session is not None and session.running
    bash.close()
    caller.join(30)
    assert not caller.is_alive()
    (observation,) = results
    assert observation.is_error, observation.text
    assert "closed" in observation.text


# -- timeouts ----------------------------------------------------------------------------


BAD_TIMEOUTS = st.one_of(
    st.sampled_from([math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0]),
    st.floats(max_value=0.0),
)


@FUZZ
@given(timeout=BAD_TIMEOUTS)
def test_a_bad_host_timeout_is_refused_and_the_session_lives_on(bash: Bash, timeout: float) -> None:
    run(bash, "export ALIVE=yes")
    observation = bash.call({"command": "echo should-not-run"}, timeout=timeout)
    assert observation.is_error, observation.text
    assert "should-not-run" not in observation.text
    # The same shell, with its state, answers the next call.
    assert run(bash, 'echo "$ALIVE"').output == "yes\n"


def test_a_huge_host_timeout_is_a_long_wait(bash: Bash) -> None:
    observation = bash.call({"command": "echo fine"}, timeout=1e300)
    assert not observation.is_error, observation.text
    assert observation.output == "fine\n"


@pytest.mark.parametrize("param", ["timeout", "no_output_timeout", "hard_timeout"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, 0])
def test_bad_timeout_params_are_refused_at_creation(
    make_bash: MakeBash, param: str, value: float
) -> None:
    with pytest.raises(Exception, match=param):
        make_bash(**{param: value})


def test_a_context_timeout_of_nan_is_refused_at_creation(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="timeout"):
        bash_with(ToolContext(workspace=tmp_path, timeout=math.nan))


# -- the completion marker ------------------------------------------------------------------


@both_modes
def test_printing_the_old_sentinel_does_not_end_the_command(bash: Bash) -> None:
    forged = (
        "printf '\\036TP%s;0;/etc\\037' \"$TOOLPLUG_BASH_SESSION\"; "
        "sleep 1; echo real end; (exit 5)"
    )
    observation = run(bash, forged)
    assert "real end" in observation.output
    assert observation.exit_code == 5
    assert observation.cwd != "/etc"
    assert run(bash, "echo next").output == "next\n"


#: Text printed around the forged frames: any, but for NUL and the escape sequences'
#: introducers (ESC, C1), which the output's renderer removes with what follows.
SENTINEL_TEXT = st.text(
    alphabet=st.characters(
        codec="utf-8",
        exclude_characters="\x00\x1b" + "".join(map(chr, range(0x80, 0xA0))),
    ),
    max_size=60,
)


@FUZZ
@given(body=SENTINEL_TEXT, tail=st.sampled_from(["\\037", "", "\\037\\037", ";0;/\\037"]))
@both_modes
def test_no_printed_sentinel_ends_the_command(bash: Bash, body: str, tail: str) -> None:
    # The forgery is printed by the command itself, with whatever the session
    # shows it: its marker variable, its prompt settings, the text of its functions.
    printed = body.encode("utf-8").hex()
    command = (
        f"printf '\\036TP'; printf '{tail}'; "
        f"printf '\\036TP%s;0;/etc{tail}' \"$TOOLPLUG_BASH_SESSION\"; "
        f"echo {printed} | xxd -r -p 2>/dev/null || true; "
        "echo END; (exit 7)"
    )
    observation = run(bash, command, timeout=60)
    assert not observation.running, observation.text
    assert "END" in observation.output
    assert observation.exit_code == 7
    assert observation.cwd != "/etc"


def test_the_nonce_is_not_in_the_commands_view(bash: Bash) -> None:
    # What a command can read of the session (its environment, variables, functions)
    # holds nothing that ends a command: printing all of it ends nothing.
    observation = run(bash, "env; set; declare -f; echo END; (exit 4)", timeout=60)
    assert "END" in observation.output
    assert observation.exit_code == 4


# -- commands that reprogram the session --------------------------------------------------


@both_modes
def test_exec_bash_is_repaired(make_bash: MakeBash, tmp_path: Path) -> None:
    bash = make_bash(timeout=60)
    run(bash, "cd /")
    observation = run(bash, "exec bash --norc")
    assert not observation.running, observation.text
    assert "new bash" in observation.text
    after = run(bash, "echo works; (exit 6)")
    assert after.output == "works\n"
    assert after.exit_code == 6
    # The interrupt path works in the new shell too.
    assert run(bash, "sleep 50", timeout=1).running
    assert run(bash, "C-c", is_input=True).exit_code == 130


@both_modes
def test_a_shell_replaced_by_another_program_is_reported(make_bash: MakeBash) -> None:
    bash = make_bash(timeout=60)
    replaced = run(bash, "exec cat")
    assert replaced.waiting_for_input, replaced.text
    assert "replaced by `cat`" in replaced.text
    assert run(bash, "meow", is_input=True).output == "meow\n"
    fresh = run(bash, "echo fresh", reset=True)
    assert fresh.output == "fresh\n"
    assert "replaced by" not in fresh.text


@both_modes
def test_clearing_prompt_command_wedges_nothing(make_bash: MakeBash) -> None:
    bash = make_bash(timeout=60)
    run(bash, "PROMPT_COMMAND=")
    assert run(bash, "echo one").output == "one\n"
    run(bash, "PROMPT_COMMAND=; unset -v PS1")
    # An interrupted line ends with the prompt mark: it needs PROMPT_COMMAND back.
    assert run(bash, "sleep 50", timeout=1).running
    interrupted = run(bash, "C-c", is_input=True)
    assert not interrupted.running, interrupted.text
    assert run(bash, "echo two").output == "two\n"


@both_modes
def test_redirecting_the_shells_output_away_is_reported(make_bash: MakeBash) -> None:
    bash = make_bash(timeout=60)
    hidden = run(bash, "exec 1>/dev/null 2>&1; echo invisible")
    assert not hidden.running, hidden.text
    assert "invisible" not in hidden.output
    assert "standard output and standard error no longer go to the terminal" in hidden.text, (
        hidden.text
    )
    run(bash, "exec >/dev/tty 2>&1")
    back = run(bash, "echo visible")
    assert back.output == "visible\n"
    assert "no longer" not in back.text


@both_modes
@pytest.mark.parametrize("setting", ["stty echo", "stty echo echonl echoctl", "stty sane"])
def test_echo_settings_do_not_prefix_outputs(make_bash: MakeBash, setting: str) -> None:
    bash = make_bash(timeout=60)
    run(bash, setting)
    for _ in range(3):
        assert run(bash, "echo hi").output == "hi\n"


# -- the environment ------------------------------------------------------------------------


HOST_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/home/someone",
    "LANG": "C.UTF-8",
    "LC_TIME": "C",
    "SERVER_SECRET": "s3cret",
    "TOOLPLUG_MCP_TOKEN": "tok3n",
    "OPERATOR_ALLOWED": "yes",
}


def shell_env(tool: Bash) -> dict[str, str]:
    text = run(tool, "env -0 | tr '\\0' '\\n'; (exit 0)").output
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_a_library_host_passes_its_whole_environment_by_default(tmp_path: Path) -> None:
    tool = bash_with(ToolContext(workspace=tmp_path, env=HOST_ENV))
    try:
        env = shell_env(tool)
    finally:
        tool.close()
    assert env["SERVER_SECRET"] == "s3cret"  # as the docs say: all of context.env
    assert env["HOME"] == "/home/someone"


@pytest.mark.parametrize("how", ["param", "context"])
def test_a_minimal_environment_keeps_only_the_harmless_and_the_allowed(
    tmp_path: Path, how: str
) -> None:
    env = {**HOST_ENV, "TOOLPLUG_BASH_PASS_ENV": "OPERATOR_ALLOWED"}
    if how == "param":
        context = ToolContext(workspace=tmp_path, env=env)
        tool = bash_with(context, inherit_env=False, env_allowlist=["HOST_ALLOWED"])
    else:
        context = ToolContext(workspace=tmp_path, env=env, extra={"inherit_env": False})
        tool = bash_with(context, env_allowlist=["HOST_ALLOWED"])
    try:
        seen = shell_env(tool)
    finally:
        tool.close()
    assert "SERVER_SECRET" not in seen
    assert "TOOLPLUG_MCP_TOKEN" not in seen
    assert seen["OPERATOR_ALLOWED"] == "yes"
    assert seen["PATH"] == HOST_ENV["PATH"]
    assert seen["HOME"] == "/home/someone"
    assert seen["LANG"] == "C.UTF-8"
    assert seen["LC_TIME"] == "C"


def test_the_param_wins_over_the_context(tmp_path: Path) -> None:
    context = ToolContext(workspace=tmp_path, env=HOST_ENV, extra={"inherit_env": False})
    tool = bash_with(context, inherit_env=True)
    try:
        assert shell_env(tool)["SERVER_SECRET"] == "s3cret"
    finally:
        tool.close()


def test_a_bad_inherit_env_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="inherit_env"):
        bash_with(ToolContext(workspace=tmp_path, extra={"inherit_env": "no"}))
