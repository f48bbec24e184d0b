"""The bash tool driven through its safe entry point, against a real bash."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import MakeBash, alive, both_modes, session_pids
from toolplug import ToolDefinition
from toolplug.testing import validate_observation_exports, wait_until
from toolplug_bash.procs import processes_with_env

Bash = ToolDefinition[Any, Any]


def run(tool: Bash, command: str, **arguments: Any) -> Any:
    """Call the tool; the observation must be a valid, non-error result."""
    observation = tool.call({"command": command, **arguments})
    assert not observation.is_error, observation.text
    validate_observation_exports(observation)
    return observation


def shell_pid(tool: Bash) -> int:
    session = tool.executor.session
    assert session is not None and session.pid is not None
    return session.pid


# -- the session persists ----------------------------------------------------------------


@both_modes
def test_state_persists_between_calls(bash: Bash, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    run(bash, 'cd sub && export FOO=bar && greet() { echo "hello $1"; }')
    run(bash, "alias shout='echo LOUD'")
    observation = run(bash, "pwd; echo $FOO; greet you; shout")
    assert observation.output.split() == [str(tmp_path / "sub"), "bar", "hello", "you", "LOUD"]
    assert observation.exit_code == 0
    assert observation.cwd == str(tmp_path / "sub")
    assert f"Working directory: {tmp_path / 'sub'}" in observation.text


@both_modes
def test_virtualenv_activation_persists(make_bash: MakeBash, tmp_path: Path) -> None:
    # The venv's interpreter links to the one running the tests, which may live in the
    # home (pyenv) that a sandbox hides: make_bash then exposes it (see conftest). Made
    # from the real interpreter, not the test env's (in tox's dir, maybe under the /tmp a
    # sandbox replaces), so its link points at what the sandbox shows.
    bash = make_bash()
    venv = tmp_path / "venv"
    base = os.path.realpath(sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    run(bash, f"source {venv}/bin/activate")
    observation = run(bash, "python -c 'import sys; print(sys.prefix)'")
    assert observation.output.strip() == str(venv)
    assert "(venv)" not in observation.text


@both_modes
def test_exit_code_and_stderr_interleaved(bash: Bash) -> None:
    observation = run(bash, "echo out; echo err >&2; echo out2; false")
    assert observation.output == "out\nerr\nout2\n"
    assert observation.exit_code == 1
    assert not observation.running


@both_modes
def test_chains_multiline_and_heredoc(bash: Bash, tmp_path: Path) -> None:
    script = "cat > notes.txt <<'EOF'\nfirst $HOME\nsecond\nEOF\nwc -l < notes.txt\n"
    script += "for i in 1 2; do\n  echo loop $i\ndone && echo chained || echo not"
    observation = run(bash, script)
    assert observation.output == "2\nloop 1\nloop 2\nchained\n"
    assert (tmp_path / "notes.txt").read_text() == "first $HOME\nsecond\n"


@both_modes
def test_long_single_line_command(bash: Bash) -> None:
    words = " ".join(f"w{i}" for i in range(3000))  # longer than a terminal line
    observation = run(bash, f"echo {words} | wc -w")
    assert observation.output.strip() == "3000"


@both_modes
def test_syntax_error_in_script_comes_back(bash: Bash) -> None:
    observation = run(bash, "echo before\nif then fi\n")
    assert "syntax error" in observation.output
    assert "command.sh" not in observation.output
    assert observation.exit_code != 0
    assert run(bash, "echo still here").output == "still here\n"


def test_incomplete_line_is_a_syntax_error_not_a_wait(bash: Bash) -> None:
    observation = run(bash, "echo 'unclosed")
    assert "unexpected EOF" in observation.output
    assert observation.exit_code == 2
    assert not observation.running
    assert run(bash, "echo fine").output == "fine\n"


# -- terminal output -----------------------------------------------------------------------


def test_invalid_utf8_progress_bars_and_colours(bash: Bash) -> None:
    command = (
        r"printf 'bad \xff\xfe bytes\n'; printf 'load 10%%\rload 50%%\rload 100%%\n'; "
        r"printf '\033[31mred\033[0m \033]0;title\007plain\n'; ls --color=always /"
    )
    observation = run(bash, command)
    lines = observation.output.splitlines()
    assert lines[0] == "bad \ufffd\ufffd bytes"
    assert lines[1] == "load 100%"
    assert lines[2] == "red plain"
    assert "\x1b" not in observation.output
    assert "usr" in observation.output


def test_pagers_are_cat(bash: Bash) -> None:
    observation = run(bash, "echo $PAGER $GIT_PAGER $MANPAGER; git --version >/dev/null && echo ok")
    assert observation.output.split()[:3] == ["cat", "cat", "cat"]


# -- timeouts, input and interrupts --------------------------------------------------------


@both_modes
def test_timeout_returns_control_then_ctrl_c_stops(bash: Bash) -> None:
    observation = run(bash, "echo started; sleep 30; echo never", timeout=0.5)
    assert observation.running and observation.exit_code is None
    assert observation.output == "started\n"
    assert "still running" in observation.text
    pid = shell_pid(bash)
    sleepers = [p for p in session_pids(pid) if p != pid]
    assert sleepers, "the command keeps running after control came back"
    refused = bash.call({"command": "echo hi"})
    assert refused.is_error and "still running" in refused.text
    stopped = run(bash, "C-c", is_input=True)
    assert stopped.exit_code == 130 and not stopped.running
    assert "never" not in stopped.output
    assert not any(alive(p) for p in sleepers)
    assert run(bash, "echo next").output == "next\n"


@both_modes
def test_host_timeout_becomes_the_soft_timeout_and_the_session_stays_usable(bash: Bash) -> None:
    # A host's per-call timeout (tool.call(..., timeout=...)) returns control with the
    # output so far, exactly like the model's own timeout; the session is not wedged.
    observation = bash.call({"command": "echo begun; sleep 30"}, timeout=0.5)
    assert not observation.is_error, observation.text
    assert observation.running and observation.output == "begun\n"
    stopped = bash.call({"command": "C-c", "is_input": True}, timeout=5)
    assert stopped.exit_code == 130
    assert bash.call({"command": "echo after"}, timeout=5).output == "after\n"


@both_modes
def test_wait_with_empty_input_collects_the_rest(bash: Bash) -> None:
    first = run(bash, "echo one; sleep 1; echo two", timeout=0.3)
    assert first.running
    rest = run(bash, "", is_input=True, timeout=10)
    assert rest.output == "two\n" and rest.exit_code == 0


@both_modes
def test_no_output_timeout(make_bash: MakeBash) -> None:
    bash = make_bash(no_output_timeout=0.5)
    observation = run(bash, "echo tick; sleep 20")
    assert observation.running
    assert "no new output" in observation.text
    run(bash, "C-c", is_input=True)


@both_modes
def test_interactive_prompt_answered_with_input(bash: Bash) -> None:
    asked = run(bash, 'python3 -c \'print("hello", input("name? "))\'')
    assert asked.waiting_for_input and asked.running
    assert asked.output == "name? "
    assert "waiting for input" in asked.text
    answered = run(bash, "bob", is_input=True)
    assert answered.output == "hello bob\n" and answered.exit_code == 0


@both_modes
def test_read_builtin_and_cat_with_ctrl_d(bash: Bash) -> None:
    assert run(bash, "read -p 'sure? ' reply; echo got $reply").waiting_for_input
    assert run(bash, "yes", is_input=True).output == "got yes\n"
    assert run(bash, "cat").waiting_for_input
    assert run(bash, "line one", is_input=True).output == "line one\n"
    finished = run(bash, "C-d", is_input=True)
    assert finished.exit_code == 0 and not finished.running


@both_modes
def test_ctrl_z_stops_the_job(bash: Bash) -> None:
    run(bash, "sleep 30", timeout=0.3)
    stopped = run(bash, "C-z", is_input=True)
    assert not stopped.running and "Stopped" in stopped.output
    run(bash, "kill %1")


def test_input_without_running_command_is_an_error(bash: Bash) -> None:
    observation = bash.call({"command": "hello", "is_input": True})
    assert observation.is_error and "nothing to send input to" in observation.text


@both_modes
def test_background_job_returns_at_once(bash: Bash, tmp_path: Path) -> None:
    observation = run(bash, "(sleep 0.3; echo done > bg.txt) & sleep 100 &")
    assert observation.exit_code == 0 and not observation.running
    assert "[2]" in observation.output
    wait_until((tmp_path / "bg.txt").exists, timeout=10, what="the job's bg.txt")
    assert (tmp_path / "bg.txt").read_text() == "done\n"
    assert "sleep 100" in run(bash, "jobs").output


@both_modes
def test_a_background_job_printing_between_calls_never_blocks(bash: Bash, tmp_path: Path) -> None:
    # 3 MB to the terminal, far more than its buffer holds, while no call is reading.
    chatty = "head -c 3000000 /dev/zero | tr '\\0' x | fold -w 99"
    run(bash, f"({chatty}; echo finished > bg.txt) &")
    # (a job blocked on the full terminal never writes it)
    wait_until((tmp_path / "bg.txt").exists, timeout=20, what="the job's bg.txt")
    later = run(bash, "echo next")
    assert later.output.endswith("next\n") and later.output.startswith("x" * 99)
    # What was printed between calls is bounded; a line says how much was left out.
    saved = Path(later.text.split("saved in ")[1].split(":")[0]).read_bytes()
    assert b"bytes printed between calls left out" in saved
    assert len(saved) < 1_200_000


CHATTY = "head -c 3000000 /dev/zero | tr '\\0' y | fold -w 99"


@both_modes
@pytest.mark.parametrize(
    ("command", "seen"),
    [
        # it prints 3 MB itself, then ends
        (f"sleep 0.5; {CHATTY}; echo END; touch end.txt; (exit 3)", "END\n"),
        # it prints 1 MB and ends, then a job it left behind prints 3 MB: the prompt
        # is in the middle of what was printed between calls, the part left out
        (
            f"({{ sleep 2; {CHATTY}; touch end.txt; }} &) ; sleep 0.5; "
            f"{CHATTY.replace('y', 'z')} | head -c 1000000; echo END; (exit 3)",
            "bytes printed between calls left out",
        ),
    ],
    ids=["itself", "after-it"],
)
def test_a_command_finishing_between_calls_reports_its_end(
    bash: Bash, tmp_path: Path, command: str, seen: str
) -> None:
    # Control came back while it ran, and it ended with no call waiting: the next
    # wait finds it done at once, with its exit code.
    first = run(bash, command, timeout=0.2)
    assert first.running
    # (a command blocked on the full terminal never writes it)
    wait_until((tmp_path / "end.txt").exists, timeout=20, what="the command's end.txt")
    time.sleep(0.2)
    rest = run(bash, "", is_input=True, timeout=30)
    assert rest.exit_code == 3 and not rest.running
    assert seen in rest.output
    assert run(bash, "echo next").output.endswith("next\n")


@both_modes
def test_hard_timeout_kills_the_process_group(make_bash: MakeBash) -> None:
    bash = make_bash(hard_timeout=0.5)
    observation = run(bash, "sleep 60 | cat; echo after", timeout=20)
    assert "hard limit" in observation.text and not observation.running
    pid = shell_pid(bash)
    assert session_pids(pid) == {pid}
    assert run(bash, "echo alive").output == "alive\n"


@both_modes
def test_hard_timeout_applies_while_control_is_away(make_bash: MakeBash) -> None:
    bash = make_bash(hard_timeout=0.6)
    assert run(bash, "sleep 60", timeout=0.2).running
    pid = shell_pid(bash)
    wait_until(lambda: session_pids(pid) == {pid}, timeout=10, what="the command to be killed")
    finished = run(bash, "", is_input=True, timeout=5)
    assert not finished.running and finished.exit_code == 137


def test_a_late_hard_limit_timer_spares_the_next_command(make_bash: MakeBash) -> None:
    # The timer of a command that just ended fires as the next one starts: the race
    # is forced here by calling the timer's target with the old command's start.
    bash = make_bash(hard_timeout=30)
    assert run(bash, "sleep 0.3; echo first", timeout=0.05).running
    session = bash.executor.session
    assert session is not None and session._hard_timer is not None
    started_first = session._hard_timer.args[0]
    assert run(bash, "", is_input=True, timeout=10).output == "first\n"
    assert run(bash, "sleep 0.6; echo second", timeout=0.2).running
    assert session._running_since != started_first
    session._hard_limit_reached(started_first)  # the late timer of "echo first"
    finished = run(bash, "", is_input=True, timeout=10)
    assert finished.exit_code == 0 and finished.output == "second\n"
    assert "hard limit" not in finished.text
    # The timer of the running command itself still kills it.
    assert run(bash, "sleep 60", timeout=0.2).running
    assert session._hard_timer is not None
    session._hard_limit_reached(session._hard_timer.args[0])
    killed = run(bash, "", is_input=True, timeout=10)
    assert "hard limit" in killed.text and not killed.running


@both_modes
def test_concurrent_call_is_refused_not_interleaved(bash: Bash) -> None:
    results: list[Any] = []
    worker = threading.Thread(target=lambda: results.append(bash.call({"command": "sleep 1"})))
    worker.start()

    def running() -> bool:
        session = bash.executor.session
        return session is not None and session.running

    wait_until(running, timeout=5, interval=0.01, what="the first call to run")
    second = bash.call({"command": "echo intruder"})
    worker.join(10)
    assert second.is_error and "in progress" in second.text
    assert results and results[0].exit_code == 0 and "intruder" not in results[0].output


# -- exit, reset, close --------------------------------------------------------------------


@both_modes
def test_exit_then_fresh_session(bash: Bash, tmp_path: Path) -> None:
    run(bash, "cd / && export GONE=1 && sleep 100 &")
    old = shell_pid(bash)
    exited = run(bash, "exit 3")
    assert exited.exit_code == 3 and "shell exited" in exited.text
    assert session_pids(old) == set()
    fresh = run(bash, "pwd; echo ${GONE:-unset}")
    assert "fresh session" in fresh.text
    assert fresh.output.split() == [str(tmp_path), "unset"]


@both_modes
def test_reset_kills_and_restarts(bash: Bash, tmp_path: Path) -> None:
    run(bash, "cd / && sleep 100", timeout=0.2)
    old = shell_pid(bash)
    reset = run(bash, "pwd", reset=True)
    assert "reset" in reset.text and reset.output.strip() == str(tmp_path)
    assert session_pids(old) == set()


@both_modes
def test_close_leaves_no_process(bash: Bash, tmp_path: Path) -> None:
    run(bash, "sleep 100 & (sleep 200 &) ; setsid sleep 300 & nohup sleep 400 >/dev/null 2>&1 &")
    run(bash, "sleep 500", timeout=0.2)
    pid = shell_pid(bash)
    workdir = bash.executor._workdir
    marker = b"TOOLPLUG_BASH_SESSION=" + bash.executor.session._token
    escaped = processes_with_env(marker)  # setsid and nohup'd sleeps left the session
    members = session_pids(pid) | set(escaped)
    assert len(members) >= 6
    bash.close()
    assert not any(alive(p) for p in escaped)
    assert processes_with_env(marker) == []
    assert not alive(pid)
    assert not any(alive(p) for p in members)
    assert session_pids(pid) == set()
    assert not workdir.exists()
    closed = bash.call({"command": "echo hi"})
    assert closed.is_error and "closed" in closed.text


# -- params --------------------------------------------------------------------------------


def test_env_allowlist_env_and_secrets(
    make_bash: MakeBash, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOST_TOKEN", "tok-123")
    monkeypatch.setenv("HOST_OK", "visible")
    import toolplug_bash
    from toolplug import Tool, ToolContext
    from toolplug.testing import registry_from

    context = ToolContext(workspace=Path.cwd(), env=dict(os.environ))
    params = {
        "env_allowlist": ["PATH", "HOST_OK"],
        "env": {"API_KEY": "s3cr3t-value"},
        "secrets": ["s3cr3t-value"],
    }
    (tool,) = registry_from(toolplug_bash).resolve(Tool("bash", params), context)
    try:
        observation = run(tool, "echo ${HOST_TOKEN:-none} $HOST_OK $API_KEY; echo s3cr3t-value")
        assert observation.output.split() == ["none", "visible", "********", "********"]
        assert "s3cr3t" not in observation.text
    finally:
        tool.close()


def test_bad_params_are_refused(make_bash: MakeBash) -> None:
    from toolplug import ToolParamsError

    bad = ({"timeout": 0}, {"max_output": -1}, {"shell": "no-such-shell-xyz"}, {"env": {"A": 1}})
    for params in bad:
        with pytest.raises(ToolParamsError):
            make_bash(**params)
