"""bash as the OpenAI Responses API's native ``shell`` tool.

Round trips through ``Toolset.export("responses", native=True)`` and
``Toolset.dispatch`` with a real bash session: the ``shell_call`` items are built with
the openai SDK's own models and dumped as the API sends them, and every answer
validates strictly against the SDK's ``ShellCallOutput`` input item.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import toolplug_bash
from conftest import MakeBash, both_modes
from openai.types.responses import ResponseFunctionShellToolCall
from openai.types.responses.response_function_shell_tool_call import Action
from openai.types.responses.response_input_item_param import ShellCallOutput
from pydantic import TypeAdapter
from toolplug import Observation, Tool, ToolContext, Toolset, hookimpl
from toolplug.testing import registry_from, validate_observation_exports, validate_tool_exports
from toolplug_bash.responses_form import ShellForm

SHELL = {"type": "shell", "environment": {"type": "local"}}


class Guard:
    """A call guard as toolplug-policy is one: it reads the command the tool gets,
    and refuses any that mentions ``forbidden``."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl(tryfirst=True)
    def tool_call(self, tool: Any, action: Any) -> Observation | None:
        self.seen.append(action.command)
        if "forbidden" in action.command:
            return Observation.error("Refused by the guard: that command is not allowed.")
        return None


@pytest.fixture
def guard() -> Guard:
    return Guard()


def load(workspace: Path, *plugins: Any, **params: Any) -> Toolset:
    registry = registry_from(toolplug_bash, *plugins)
    return Toolset(registry.resolve(Tool("bash", params), ToolContext(workspace=workspace)))


@pytest.fixture
def shell(tmp_path: Path, guard: Guard) -> Iterator[Toolset]:
    with load(tmp_path, guard) as tools:
        assert tools.export("responses", native=True) == [SHELL]
        yield tools


def shell_call(
    *commands: str,
    call_id: str = "call_1",
    timeout_ms: int | None = None,
    max_output_length: int | None = None,
) -> dict[str, Any]:
    """A shell_call item as the SDK types it, dumped as the API sends it."""
    action = Action(
        commands=list(commands), timeout_ms=timeout_ms, max_output_length=max_output_length
    )
    item = ResponseFunctionShellToolCall(
        id=f"sh_{call_id}", call_id=call_id, action=action, status="completed", type="shell_call"
    )
    return item.model_dump(mode="json", exclude_none=True)


def valid(result: Any) -> dict[str, Any]:
    TypeAdapter(ShellCallOutput).validate_python(result, strict=True)
    assert isinstance(result, dict) and result["type"] == "shell_call_output"
    return result


def entry(result: Any) -> dict[str, Any]:
    [only] = valid(result)["output"]
    assert isinstance(only, dict)
    return only


def test_export_validates(tmp_path: Path) -> None:
    with load(tmp_path) as tools:
        validate_tool_exports(tools["bash"])
        assert tools.export("responses")[0]["name"] == "bash"  # the function, as before
    for observation in (Observation.from_text("x"), Observation.error("no")):
        validate_observation_exports(observation, native_forms=[ShellForm()])


def test_commands_run_in_order_in_the_session(shell: Toolset, tmp_path: Path) -> None:
    response = {
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            shell_call("mkdir -p sub && cd sub", "export GREETING=hi", "echo $GREETING > f.txt"),
        ]
    }
    first = entry(shell.dispatch(response)[0])
    assert first["outcome"] == {"type": "exit", "exit_code": 0}
    assert (tmp_path / "sub" / "f.txt").read_text() == "hi\n"
    # the session persists: directory and variables, from one call to the next
    second = entry(shell.dispatch([shell_call("pwd", "echo $GREETING", call_id="c2")])[0])
    assert second["stdout"].split() == [str(tmp_path / "sub"), "hi"]


def test_the_last_status_and_stderr_text(shell: Toolset) -> None:
    [result] = shell.dispatch([shell_call("echo out", "echo err >&2", "false")])
    found = entry(result)
    assert found["outcome"] == {"type": "exit", "exit_code": 1}
    # the session is a terminal: both streams come back in order, in stdout
    assert found["stdout"].split() == ["out", "err"] and found["stderr"] == ""
    [result] = shell.dispatch([shell_call("echo '[1] looks like a note'; (exit 7)", call_id="c2")])
    found = entry(result)
    assert found["outcome"] == {"type": "exit", "exit_code": 7}
    assert found["stdout"] == "[1] looks like a note\n" and found["stderr"] == ""


def test_the_guard_judges_every_command(shell: Toolset, guard: Guard, tmp_path: Path) -> None:
    [result] = shell.dispatch([shell_call("touch ran.txt", "echo forbidden")])
    found = entry(result)
    assert "Refused by the guard" in found["stderr"] and found["stdout"] == ""
    assert found["outcome"] == {"type": "exit", "exit_code": 1}
    assert not (tmp_path / "ran.txt").exists()
    assert guard.seen == ["touch ran.txt\necho forbidden"]


def test_a_here_document_across_commands_runs_as_the_guard_read_it(
    shell: Toolset, guard: Guard, tmp_path: Path
) -> None:
    """The commands run as the one script the guard judged: a here-document opened by
    one command takes the next ones as its text, there as in the shell."""
    (tmp_path / "keep.txt").write_text("kept")
    [result] = shell.dispatch([shell_call("cat <<'END'", "rm keep.txt", "END")])
    assert entry(result)["stdout"].strip() == "rm keep.txt"
    assert (tmp_path / "keep.txt").read_text() == "kept"
    assert guard.seen == ["cat <<'END'\nrm keep.txt\nEND"]


def test_a_timeout_interrupts_the_command(shell: Toolset) -> None:
    [result] = shell.dispatch([shell_call("echo started; sleep 30", timeout_ms=500)])
    found = entry(result)
    assert found["outcome"] == {"type": "timeout"}
    assert "started" in found["stdout"] and "interrupted" in found["stderr"]
    # the shell is back at its prompt: the next call runs at once
    [result] = shell.dispatch([shell_call("echo next", call_id="c2")])
    assert entry(result)["stdout"].strip() == "next"


def test_a_command_waiting_for_input_is_interrupted(shell: Toolset) -> None:
    [result] = shell.dispatch([shell_call("read -r answer; echo got $answer", timeout_ms=20000)])
    found = entry(result)
    assert found["outcome"] == {"type": "exit", "exit_code": 130}
    assert "waited for input" in found["stderr"]
    [result] = shell.dispatch([shell_call("echo fine", call_id="c2")])
    assert entry(result)["stdout"].strip() == "fine"


def test_max_output_length_is_honoured(shell: Toolset) -> None:
    command = "for i in $(seq 1 2000); do echo line$i; done"
    [result] = shell.dispatch([shell_call(command, max_output_length=300)])
    item = valid(result)
    found = entry(result)
    assert item["max_output_length"] == 300
    assert len(found["stdout"]) + len(found["stderr"]) <= 300
    assert found["stdout"].startswith("line1\n") and found["stdout"].rstrip().endswith("line2000")
    assert "characters left out" in found["stdout"]


def test_the_shell_exiting_is_an_exit(shell: Toolset) -> None:
    [result] = shell.dispatch([shell_call("echo bye", "exit 3")])
    found = entry(result)
    assert found["outcome"] == {"type": "exit", "exit_code": 3}
    assert "fresh session" in found["stderr"]
    [result] = shell.dispatch([shell_call("echo again", call_id="c2")])
    assert entry(result)["stdout"].strip() == "again"


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"commands": []}, "`commands` must be a list"),
        ({"commands": ["echo a", "  "]}, "none of them empty"),
        ({"commands": "echo a"}, "`commands` must be a list"),
        ({"commands": ["echo a"], "timeout_ms": 0}, "`timeout_ms` must be a whole number"),
        ({"commands": ["echo a"], "timeout_ms": 10**10}, "at most 3600000"),
        ({"commands": ["echo a"], "max_output_length": -1}, "`max_output_length` must be"),
        ("echo a", "needs an `action` object"),
    ],
)
def test_bad_actions_are_answered_without_running(
    shell: Toolset, guard: Guard, action: Any, expected: str
) -> None:
    item = {"type": "shell_call", "call_id": "c9", "status": "completed", "action": action}
    found = entry(shell.dispatch([item])[0])
    assert expected in found["stderr"] and found["outcome"]["exit_code"] == 1
    assert guard.seen == []


@both_modes
def test_round_trip_in_each_sandbox_mode(make_bash: MakeBash, tmp_path: Path) -> None:
    """The native form is attached however the session is confined."""
    with Toolset([make_bash()]) as tools:
        assert tools.export("responses", native=True) == [SHELL]
        [result] = tools.dispatch([shell_call("echo hi > out.txt", "cat out.txt")])
    assert entry(result) == {
        "stdout": "hi\n",
        "stderr": "",
        "outcome": {"type": "exit", "exit_code": 0},
    }
    assert (tmp_path / "out.txt").read_text() == "hi\n"


async def test_async_dispatch(shell: Toolset) -> None:
    [result] = await shell.adispatch([shell_call("echo async", timeout_ms=300)])
    assert entry(result)["stdout"] == "async\n"
    [result] = await shell.adispatch([shell_call("sleep 20", timeout_ms=300, call_id="c2")])
    assert entry(result)["outcome"] == {"type": "timeout"}
