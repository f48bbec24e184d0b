"""Background processes (issue #29), through the real tools: ``bash`` with
``run_in_background`` and ``is_input``/``process_id``, ``bash_output`` and ``bash_stop``.

Everything runs for real: bash, python3's HTTP server and REPL, process trees that
fork and leave their session. Tests marked ``@both_modes`` also run in the sandbox.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import toolplug_bash
from conftest import HOST_PYTHON, alive, both_modes, need_bwrap
from toolplug import Tool, ToolContext, ToolDefinition, Toolset
from toolplug.testing import registry_from, wait_until
from toolplug_bash.background import RING_SIZE

Tools = dict[str, ToolDefinition[Any, Any]]


@pytest.fixture
def make_tools(tmp_path: Path, sandbox_mode: str) -> Iterator[Callable[..., Tools]]:
    """Create the bash tools (bash, bash_output, bash_stop) by name; all closed at the end."""
    created: list[ToolDefinition[Any, Any]] = []
    if sandbox_mode == "bwrap":
        need_bwrap()

    def make(**params: Any) -> Tools:
        params.setdefault("max_background", 8)  # (off by default)
        if sandbox_mode != "none":
            params.setdefault("sandbox", sandbox_mode)
            if HOST_PYTHON is not None:
                params.setdefault("read_only_paths", [HOST_PYTHON])
                params.setdefault("env", {"PATH": f"{HOST_PYTHON}/bin:{os.environ['PATH']}"})
        tools = registry_from(toolplug_bash).resolve(
            Tool("bash", params), ToolContext(workspace=tmp_path)
        )
        created.extend(tools)
        return {tool.name: tool for tool in tools}

    yield make
    for tool in created:
        tool.close()


@pytest.fixture
def tools(make_tools: Callable[..., Tools]) -> Tools:
    return make_tools()


def start(tools: Tools, command: str, **args: Any) -> Any:
    observation = tools["bash"].call({"command": command, "run_in_background": True, **args})
    assert not observation.is_error, observation.text
    assert observation.process_id is not None
    return observation


def read(tools: Tools, number: int, **args: Any) -> Any:
    observation = tools["bash_output"].call({"process_id": number, **args})
    assert not observation.is_error, observation.text
    return observation


def marked(tag: str) -> str:
    """A sleep whose command line is unique to this test (found in /proc by :func:`pids_of`)."""
    return f"sleep 300.{tag}"


def pids_of(tag: str) -> set[int]:
    """Live processes whose command line holds ``300.<tag>``."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if f"300.{tag}".encode() in cmdline and alive(int(name)):
            found.add(int(name))
    return found


def tag() -> str:
    return str(secrets.randbelow(10**6)).zfill(6)


# -- starting, reading, waiting ---------------------------------------------------------


@both_modes
def test_http_server_started_in_the_background_is_reached_from_a_second_call(
    make_tools: Callable[..., Tools], sandbox_mode: str
) -> None:
    # In the sandbox, the server and the session share a network only with network=True
    # (each sandbox without it has a loopback of its own).
    tools = make_tools(**({"network": True} if sandbox_mode == "bwrap" else {}))
    started = start(tools, "python3 -u -m http.server 0 --bind 127.0.0.1", timeout=5)
    assert started.running and started.exit_code is None
    seen = started.output
    if "port" not in seen:
        seen += read(tools, started.process_id, wait_for=r"port \d+", timeout=60).output
    port = re.search(r"port (\d+)", seen)
    assert port, seen
    fetched = tools["bash"].call(
        {
            "command": 'python3 -c "import urllib.request as u; '
            f"print(u.urlopen('http://127.0.0.1:{port.group(1)}/').status)\"",
            "timeout": 60,
        }
    )
    assert fetched.exit_code == 0 and "200" in fetched.output, fetched.text
    log = read(tools, started.process_id, wait_for=r'"GET / HTTP', timeout=60)
    assert log.matched and log.state == "running"
    stopped = tools["bash_stop"].call({"process_id": started.process_id})
    assert stopped.state == "stopped" and stopped.exit_code is not None


def test_a_pattern_wait_returns_when_the_output_matches(tools: Tools) -> None:
    started = start(
        tools,
        "for i in 1 2 3; do echo tick $i; sleep 0.2; done; echo READY; sleep 300",
        timeout=0.05,
    )
    found = read(tools, started.process_id, wait_for=r"^READY$", timeout=60)
    assert found.matched is True and found.state == "running"
    assert "READY" in found.output and "tick 3" in found.output
    # A pattern that never comes: the wait ends at its timeout and says so.
    missed = read(tools, started.process_id, wait_for="NEVER", timeout=0.3)
    assert missed.matched is False and "did not match" in missed.text


def test_a_process_that_ends_on_its_own_is_reported_at_the_next_look(tools: Tools) -> None:
    started = start(tools, "echo working; sleep 0.3; echo finished; exit 3", timeout=0.05)
    assert started.running
    ended = read(tools, started.process_id, timeout=60)  # waits for the end
    assert ended.state == "exited" and ended.exit_code == 3
    assert "finished" in ended.output and "working" not in ended.output  # only new output
    again = read(tools, started.process_id)
    assert again.output == "" and again.exit_code == 3

    other = start(tools, "exit 5", timeout=0.01)
    read_nothing = tools["bash_output"].call({})
    assert [p.process_id for p in read_nothing.processes] == [1, 2]
    wait_until(lambda: tools["bash_output"].call({}).processes[1].state == "exited")
    assert tools["bash_output"].call({}).processes[1].exit_code == 5
    assert other.process_id == 2


def test_the_end_is_told_in_the_next_bash_call(tools: Tools) -> None:
    started = start(tools, "sleep 0.2; exit 4", timeout=0.01)
    wait_until(lambda: not tools["bash"].executor.processes.get(started.process_id).running)
    shown = tools["bash"].call({"command": "echo hello"})
    assert "Background process 1" in shown.text and "exited with code 4" in shown.text
    assert "Background process 1" not in tools["bash"].call({"command": "true"}).text


def test_a_background_command_starts_in_the_sessions_directory(
    tools: Tools, tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    tools["bash"].call({"command": "cd sub"})
    started = start(tools, "pwd", timeout=30)
    assert started.output.strip() == str(tmp_path / "sub")
    assert started.exit_code == 0 and not started.running


# -- stdin ------------------------------------------------------------------------------


def test_a_repl_is_driven_through_stdin(tools: Tools) -> None:
    started = start(tools, "python3 -q -i", timeout=30)
    number = started.process_id
    answered = tools["bash"].call(
        {"command": "print(6 * 7)", "is_input": True, "process_id": number, "timeout": 30}
    )
    assert not answered.is_error, answered.text
    assert "42" in answered.output and answered.running
    # Ctrl-C interrupts what runs in the REPL; the REPL stays.
    tools["bash"].call(
        {
            "command": "import time; time.sleep(300)",
            "is_input": True,
            "process_id": number,
            "timeout": 0.2,
        }
    )
    interrupted = tools["bash"].call(
        {"command": "C-c", "is_input": True, "process_id": number, "timeout": 30}
    )
    assert "KeyboardInterrupt" in interrupted.output + read(tools, number, timeout=0.5).output
    assert tools["bash_output"].call({"process_id": number}).state == "running"
    # Ctrl-D ends it.
    tools["bash"].call({"command": "C-d", "is_input": True, "process_id": number, "timeout": 0.1})
    ended = read(tools, number, timeout=60)
    assert ended.state == "exited" and ended.exit_code is not None


def test_a_shell_prompt_is_answered(tools: Tools) -> None:
    started = start(tools, 'read -p "name? " name; echo "hello $name"', timeout=30)
    assert "name?" in started.output
    answered = tools["bash"].call(
        {"command": "ada", "is_input": True, "process_id": started.process_id, "timeout": 30}
    )
    assert "hello ada" in answered.output and answered.exit_code == 0


def test_input_to_an_ended_or_unknown_process_is_refused(tools: Tools) -> None:
    started = start(tools, "true", timeout=30)
    wait_until(lambda: not tools["bash"].executor.processes.get(started.process_id).running)
    ended = tools["bash"].call({"command": "x", "is_input": True, "process_id": 1})
    assert ended.is_error and "has ended" in ended.text
    unknown = tools["bash"].call({"command": "x", "is_input": True, "process_id": 9})
    assert unknown.is_error and "no background process 9" in unknown.text
    assert tools["bash_output"].call({"process_id": 9}).is_error
    assert tools["bash_stop"].call({"process_id": 9}).is_error
    bad = tools["bash_output"].call({"process_id": 1, "wait_for": "("})
    assert bad.is_error and "regular expression" in bad.text


# -- stopping and ownership -------------------------------------------------------------


@both_modes
def test_a_process_that_ignores_sigterm_is_killed_after_the_grace(tools: Tools) -> None:
    mark = tag()
    started = start(tools, f"trap '' TERM; echo armed; {marked(mark)}", timeout=30)
    assert "armed" in started.output
    wait_until(lambda: pids_of(mark))
    stopped = tools["bash_stop"].call({"process_id": started.process_id})
    assert stopped.state == "stopped", stopped.text
    # (In the sandbox, bubblewrap reports the command's death by SIGKILL as 128 + 9.)
    assert stopped.exit_code in (-9, 137) and "SIGTERM" not in stopped.text, stopped.text
    assert not pids_of(mark)


@both_modes
def test_stop_ends_grandchildren_that_left_the_group(tools: Tools) -> None:
    mark = tag()
    command = (
        f"{marked(mark + '1')} & setsid {marked(mark + '2')} & "
        f"(nohup {marked(mark + '3')} >/dev/null 2>&1 &); "
        f"setsid bash -c '{marked(mark + '4')} & wait' & echo forked; wait"
    )
    started = start(tools, command, timeout=30)
    wait_until(lambda: len(pids_of(mark)) >= 4)
    tools["bash_stop"].call({"process_id": started.process_id})
    assert not pids_of(mark)


@both_modes
def test_close_ends_every_process(make_tools: Callable[..., Tools]) -> None:
    tools = make_tools()
    mark = tag()
    start(tools, marked(mark + "1"), timeout=0.01)
    start(tools, f"trap '' TERM; {marked(mark + '2')}", timeout=0.01)
    start(tools, f"(setsid {marked(mark + '3')} &); {marked(mark + '4')}", timeout=0.01)
    wait_until(lambda: len(pids_of(mark)) >= 4)
    tools["bash"].close()
    assert not pids_of(mark)
    refused = tools["bash"].call({"command": "true", "run_in_background": True})
    assert refused.is_error and "closed" in refused.text


def test_a_toolset_host_ends_its_processes_on_exit(tmp_path: Path) -> None:
    mark = tag()
    spec = {"name": "bash", "params": {"max_background": 8}}
    with Toolset.load([spec], workspace=tmp_path, plugins="bash") as toolset:
        assert {"bash", "bash_output", "bash_stop"} <= set(toolset.keys())
        started = toolset.call(
            "bash", {"command": f"echo up; {marked(mark)}", "run_in_background": True}
        )
        assert "up" in started.text
        listed = toolset.call("bash_output", {})
        assert "running" in listed.text
        wait_until(lambda: pids_of(mark))
    assert not pids_of(mark)


def test_the_cap_refuses_a_start_past_it(make_tools: Callable[..., Tools]) -> None:
    tools = make_tools(max_background=2)
    first = start(tools, "sleep 300", timeout=0.01)
    start(tools, "sleep 300", timeout=0.01)
    refused = tools["bash"].call({"command": "echo third", "run_in_background": True})
    assert refused.is_error and "max_background=2" in refused.text and "bash_stop" in refused.text
    tools["bash_stop"].call({"process_id": first.process_id})
    third = start(tools, "echo third", timeout=30)
    assert "third" in third.output and third.process_id == 3


# -- output -----------------------------------------------------------------------------


def test_a_flood_of_output_stays_bounded_in_memory_and_whole_in_the_file(
    make_tools: Callable[..., Tools],
) -> None:
    tools = make_tools(max_output=2000)
    size = 5 * RING_SIZE
    started = start(tools, f"head -c {size} /dev/zero | tr '\\0' x; echo; echo END", timeout=0.01)
    ended = read(tools, started.process_id, timeout=120)
    assert ended.state == "exited", ended.text
    assert len(ended.output) < 3000 and ended.output.rstrip().endswith("END")
    assert ended.left_out > 0  # (the start already read what came in its first moment)
    process = tools["bash"].executor.processes.get(started.process_id)
    assert len(process.log._ring) <= RING_SIZE  # memory: the ring, not the stream
    saved = Path(ended.full_output_path).read_bytes()
    # Every byte, including what the first read at the start already showed.
    assert saved == b"x" * size + b"\nEND\n"
    assert ended.full_output_path in ended.text


def test_output_is_read_only_once(tools: Tools) -> None:
    started = start(tools, "echo one; sleep 0.3; echo two; sleep 300", timeout=30)
    assert started.output == "one\n"
    second = read(tools, started.process_id, wait_for="two", timeout=60)
    assert second.output == "two\n"


def test_secrets_are_masked_in_background_output(make_tools: Callable[..., Tools]) -> None:
    tools = make_tools(secrets=["hunter2"])
    started = start(tools, "echo pw=hunter2", timeout=30)
    assert "hunter2" not in started.output and "pw=********" in started.output


# -- the definitions ---------------------------------------------------------------------


def test_annotations_are_honest(tools: Tools) -> None:
    output = tools["bash_output"].annotations
    stop = tools["bash_stop"].annotations
    assert output is not None and output.readOnlyHint is True and not output.destructiveHint
    assert stop is not None and stop.readOnlyHint is False and stop.destructiveHint is True
    assert tools["bash"].annotations.readOnlyHint is False


def test_by_default_none_of_it_is_offered(tmp_path: Path) -> None:
    registry = registry_from(toolplug_bash)
    tools = {t.name: t for t in registry.resolve(Tool("bash"), ToolContext(workspace=tmp_path))}
    try:
        assert set(tools) == {"bash"}
        assert "run_in_background" not in tools["bash"].action_type.model_fields
        ignored = tools["bash"].call({"command": "true", "run_in_background": True})
        assert "ignored the unknown argument 'run_in_background'" in ignored.text
        assert ignored.process_id is None and ignored.exit_code == 0
    finally:
        tools["bash"].close()


def test_a_policy_reads_a_background_start_as_a_command(tmp_path: Path) -> None:
    # The policy plugin is not a dependency of this package (its own suite runs bash
    # under it); where it is installed, a start must meet the same rules as a command.
    pytest.importorskip("toolplug_policy")
    policy = tmp_path / "policy.toml"
    policy.write_text(
        'default = "deny"\n\n[[rules]]\ndecision = "allow"\ntool = "bash"\n'
        'command = ["echo *"]\n\n[[rules]]\ndecision = "allow"\ntool = "bash_output"\n'
    )
    spec = {"name": "bash", "params": {"max_background": 8}}
    with Toolset.load([spec], workspace=tmp_path, plugins="bash,policy", policy=policy) as toolset:
        allowed = toolset.call("bash", {"command": "echo ok", "run_in_background": True})
        assert not allowed.is_error and "ok" in allowed.text
        refused = toolset.call("bash", {"command": "echo ok; touch x", "run_in_background": True})
        assert refused.is_error and "touch x" in refused.text
        assert "1  exited" in toolset.call("bash_output", {}).text  # only the allowed one
    assert not (tmp_path / "x").exists()


def test_the_policy_reads_what_is_typed_to_a_background_process(tmp_path: Path) -> None:
    # The sibling of a start: a background shell given text through is_input runs it,
    # so the policy reads that text as a command too, whichever process it goes to.
    pytest.importorskip("toolplug_policy")
    from toolplug_policy import loads

    policy = loads(
        'default = "deny"\n\n[[rules]]\ndecision = "allow"\ntool = "bash"\n'
        'command = ["bash", "echo *"]\n'
    )
    spec = {"name": "bash", "params": {"max_background": 8}}
    with Toolset.load([spec], workspace=tmp_path, plugins="bash,policy", policy=policy) as toolset:
        shell = toolset.call("bash", {"command": "bash", "run_in_background": True})
        assert not shell.is_error, shell.text
        typed = {"is_input": True, "process_id": shell.process_id}
        refused = toolset.call("bash", {**typed, "command": "touch x"})
        assert refused.is_error and "touch x" in refused.text
        echoed = toolset.call("bash", {**typed, "command": "echo typed-ok", "timeout": 5})
        assert not echoed.is_error and "typed-ok" in echoed.text
    assert not (tmp_path / "x").exists()


# -- adversarial ---------------------------------------------------------------------


def test_a_command_longer_than_an_argument_may_be_still_starts(tools: Tools) -> None:
    # 200 KiB: past the kernel's 128 KiB limit for one argument.
    command = "x=" + "a" * 200_000 + "; echo ${#x}"
    started = start(tools, command, timeout=30)
    assert started.output.strip() == "200000" and started.exit_code == 0


def test_a_nul_in_the_command_is_refused_and_the_session_survives(tools: Tools) -> None:
    tools["bash"].call({"command": "export KEPT=yes"})
    refused = tools["bash"].call({"command": "echo a\0b", "run_in_background": True})
    assert refused.is_error and "NUL" in refused.text
    assert tools["bash"].call({"command": "echo $KEPT"}).output == "yes\n"


def test_a_start_while_a_foreground_command_runs_leaves_it_running(tools: Tools) -> None:
    running = tools["bash"].call({"command": "sleep 2; echo fg-done", "timeout": 0.1})
    assert running.running
    started = start(tools, "echo bg", timeout=30)
    assert started.output == "bg\n"
    finished = tools["bash"].call({"command": "", "is_input": True, "timeout": 60})
    assert "fg-done" in finished.output and finished.exit_code == 0


def test_stopping_twice_and_reading_after_the_end_are_harmless(tools: Tools) -> None:
    started = start(tools, "sleep 300", timeout=0.01)
    first = tools["bash_stop"].call({"process_id": started.process_id})
    second = tools["bash_stop"].call({"process_id": started.process_id})
    assert first.state == second.state == "stopped"
    assert second.exit_code == first.exit_code
    assert read(tools, started.process_id, wait_for="x", timeout=5).matched is False


def test_toolplug_call_says_it_cannot_keep_a_process_and_leaves_none(tmp_path: Path) -> None:
    mark = tag()
    toolplug = Path(sys.executable).parent / "toolplug"
    arguments = {"command": f"echo hi; {marked(mark)}", "run_in_background": True}
    command = [str(toolplug), "call", "bash", json.dumps(arguments)]
    done = subprocess.run(
        [*command, "--workspace", str(tmp_path), "--param", "max_background=8"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TOOLPLUG_PLUGINS": "bash"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "hi" in done.stdout and "closes the tool, which stops it" in done.stdout
    assert not pids_of(mark)


def test_a_reset_of_the_shell_leaves_background_processes_running(tools: Tools) -> None:
    mark = tag()
    started = start(tools, marked(mark), timeout=0.01)
    wait_until(lambda: pids_of(mark))
    tools["bash"].call({"command": "echo fresh", "reset": True})
    assert pids_of(mark) and read(tools, started.process_id).state == "running"
