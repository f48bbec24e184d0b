"""``ask``: the host's approver (sync and async, on every call path), the terminal, nobody."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import refused
from toolplug_policy import Rule

ASKING = """
default = "deny"

[[rules]]
decision = "allow"
tool = "bash"
command = ["echo *"]

[[rules]]
decision = "ask"
tool = "bash"
command = ["touch *"]
reason = "it changes the workspace"
"""


class Recorder:
    """A sync approver that answers ``answer`` and keeps what it was asked."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: list[tuple[Any, Any, Any]] = []

    def __call__(self, tool: Any, action: Any, rule: Any) -> Any:
        self.asked.append((tool, action, rule))
        return self.answer


def test_an_approved_call_runs(toolset, write_policy, workspace: Path) -> None:
    approver = Recorder(True)
    tools = toolset(["bash"], write_policy(ASKING), approver)
    observation = tools.call("bash", {"command": "touch made"})
    assert not observation.is_error, observation.text
    assert (workspace / "made").exists()
    [(tool, action, rule)] = approver.asked
    assert tool.name == "bash" and action.command == "touch made"
    assert isinstance(rule, Rule) and rule.number == 2 and rule.reason == "it changes the workspace"
    assert str(rule).startswith("rule 2 (") and str(rule).endswith(": it changes the workspace")


def test_allowed_calls_do_not_ask(toolset, write_policy) -> None:
    approver = Recorder(False)
    tools = toolset(["bash"], write_policy(ASKING), approver)
    assert not tools.call("bash", {"command": "echo hi"}).is_error
    assert approver.asked == []


def test_a_refused_call_does_not_run(toolset, write_policy, workspace: Path) -> None:
    approver = Recorder(False)
    tools = toolset(["bash"], write_policy(ASKING), approver)
    text = refused(tools.call("bash", {"command": "echo a && touch made"}))
    assert "the command `touch made` (in `echo a && touch made`) needs approval" in text
    assert '"it changes the workspace"' in text and "the approver declined" in text
    assert "Allowed for bash: commands `echo *`" in text
    assert not (workspace / "made").exists()


def test_the_default_asks_with_no_rule(toolset, write_policy, workspace: Path) -> None:
    approver = Recorder(True)
    tools = toolset(["bash"], write_policy('default = "ask"\n'), approver)
    assert not tools.call("bash", {"command": "touch made"}).is_error
    [(_, _, rule)] = approver.asked
    assert rule is None


def test_a_truthy_answer_counts_and_a_falsy_one_refuses(toolset, write_policy) -> None:
    tools = toolset(["bash"], write_policy(ASKING), Recorder("yes"))
    assert not tools.call("bash", {"command": "touch a"}).is_error
    tools = toolset(["bash"], write_policy(ASKING), Recorder(None))
    refused(tools.call("bash", {"command": "touch b"}))


def test_a_failing_approver_refuses_and_says_so(toolset, write_policy, workspace) -> None:
    def broken(tool: Any, action: Any, rule: Any) -> bool:
        raise RuntimeError("the review service is down")

    tools = toolset(["bash"], write_policy(ASKING), broken)
    text = refused(tools.call("bash", {"command": "touch made"}))
    assert "the approver failed: RuntimeError: the review service is down" in text
    assert not (workspace / "made").exists()


def test_with_no_approver_and_no_terminal_ask_means_deny(toolset, write_policy, workspace) -> None:
    # pytest's standard input is not a terminal.
    tools = toolset(["bash"], write_policy(ASKING))
    text = refused(tools.call("bash", {"command": "touch made"}))
    assert "there is no approver and no terminal to ask, so it is denied" in text
    assert not (workspace / "made").exists()


def test_an_async_approver_on_the_sync_path(toolset, write_policy, workspace: Path) -> None:
    seen: list[bool] = []

    async def approver(tool: Any, action: Any, rule: Any) -> bool:
        await asyncio.sleep(0)
        seen.append(True)
        return action.command == "touch yes"

    tools = toolset(["bash"], write_policy(ASKING), approver)
    assert not tools.call("bash", {"command": "touch yes"}).is_error
    refused(tools.call("bash", {"command": "touch no"}))
    assert seen == [True, True]
    assert (workspace / "yes").exists() and not (workspace / "no").exists()


async def test_an_async_approver_runs_on_the_callers_loop(
    toolset, write_policy, workspace: Path
) -> None:
    caller = asyncio.get_running_loop()
    loops: list[asyncio.AbstractEventLoop] = []

    async def approver(tool: Any, action: Any, rule: Any) -> bool:
        loops.append(asyncio.get_running_loop())
        return True

    tools = toolset(["bash"], write_policy(ASKING), approver)
    observation = await tools.acall("bash", {"command": "touch made"})
    assert not observation.is_error, observation.text
    assert loops == [caller]
    assert (workspace / "made").exists()


async def test_a_sync_approver_through_acall(toolset, write_policy, workspace: Path) -> None:
    approver = Recorder(False)
    tools = toolset(["bash"], write_policy(ASKING), approver)
    text = refused(await tools.acall("bash", {"command": "touch made"}))
    assert "the approver declined" in text
    assert len(approver.asked) == 1


async def test_adispatch_asks_per_call(toolset, write_policy, workspace: Path) -> None:
    async def approver(tool: Any, action: Any, rule: Any) -> bool:
        return "ok" in action.command

    tools = toolset(["bash"], write_policy(ASKING), approver)
    calls = [
        {
            "id": "1",
            "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "touch ok"}'},
        },
        {
            "id": "2",
            "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "touch no"}'},
        },
        {
            "id": "3",
            "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "echo hi"}'},
        },
    ]
    results = await tools.adispatch(calls)
    texts = {r["tool_call_id"]: r["content"] for r in results}
    assert "Refused by the policy" not in str(texts["1"])
    assert "the approver declined" in str(texts["2"])
    assert "hi" in str(texts["3"])
    assert (workspace / "ok").exists() and not (workspace / "no").exists()


def test_dispatch_with_a_sync_approver(toolset, write_policy, workspace: Path) -> None:
    tools = toolset(["bash"], write_policy(ASKING), Recorder(True))
    calls = [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "touch made"}}]
    [result] = tools.dispatch(calls)
    assert result["tool_use_id"] == "t1" and not result.get("is_error")
    assert (workspace / "made").exists()


def test_concurrent_asks_each_get_an_answer(toolset, write_policy, workspace: Path) -> None:
    lock = threading.Lock()
    answered: list[str] = []

    def approver(tool: Any, action: Any, rule: Any) -> bool:
        with lock:
            answered.append(action.command)
        return True

    tools = toolset(["bash", "file_editor"], write_policy('default = "ask"\n'), approver)
    threads = [
        threading.Thread(
            target=tools.call,
            args=("file_editor", {"command": "create", "path": f"f{i}.txt", "file_text": "x"}),
        )
        for i in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answered) == 8
    assert sorted(p.name for p in workspace.glob("f*.txt")) == [f"f{i}.txt" for i in range(8)]


# -- the terminal ------------------------------------------------------------------------

PROMPTING = textwrap.dedent(
    """
    import sys
    from toolplug import Toolset

    with Toolset.load(["bash"], workspace=sys.argv[1], policy=sys.argv[2]) as tools:
        for name in ("first", "second", "third\\x1b[2K\\rfake"):
            observation = tools.call("bash", {"command": f"touch '{name}'"})
            print("RESULT", name[:5], observation.is_error, flush=True)
    """
)


def test_the_terminal_is_asked_when_there_is_one(write_policy, workspace: Path) -> None:
    policy = write_policy(ASKING)
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", PROMPTING, str(workspace), str(policy)],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=follower,
        text=True,
    )
    os.close(follower)
    prompts: list[str] = []
    try:
        seen = ""
        for answer in ("y\n", "n\n", "n\n"):
            while "[y/N] " not in seen:
                chunk = os.read(leader, 4096).decode()
                assert chunk, "the prompt never came"
                seen += chunk
            assert "toolplug policy: allow bash: touch '" in seen
            assert "it changes the workspace" in seen
            prompts.append(seen)
            seen = ""
            os.write(leader, answer.encode())
        out, _ = process.communicate(timeout=60)
    finally:
        process.kill()
        os.close(leader)
    assert "RESULT first False" in out and "RESULT secon True" in out
    assert (workspace / "first").exists() and not (workspace / "second").exists()
    # A command cannot clear the line or move the cursor to fake the question.
    assert "touch 'third\\x1b[2K\\rfake'" in prompts[2] and "\x1b" not in prompts[2]


def _ask_on_a_pty(args: list[str], answer: bytes, cwd: Path) -> tuple[str, str, int]:
    """Run ``args`` with a pseudo-terminal as standard input and error; answer the first
    question with ``answer``. Returns what the terminal showed, the standard output and
    the exit status."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        args, stdin=follower, stdout=subprocess.PIPE, stderr=follower, cwd=cwd
    )
    os.close(follower)
    seen = b""
    try:
        while b"[y/N] " not in seen:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal without asking
                break
            if not chunk:
                break
            seen += chunk
        if b"[y/N] " in seen:
            os.write(leader, answer)
        out, _ = process.communicate(timeout=60)
    finally:
        process.kill()
        os.close(leader)
    return seen.decode(errors="replace").replace("\r\n", "\n"), out.decode(), process.returncode


def test_the_terminal_shows_a_long_command_whole(write_policy, workspace: Path) -> None:
    """A 10,000-character command whose dangerous part is at its end: the person asked
    sees that end, through a real ``toolplug call`` on a real terminal."""
    policy = write_policy(ASKING)
    command = "echo " + "x" * 10_000 + " && touch the-dangerous-tail"
    toolplug = str(Path(sys.executable).parent / "toolplug")
    args = [toolplug, "call", "bash", json.dumps({"command": command}), "--policy", str(policy)]
    screen, out, status = _ask_on_a_pty([*args, "--workspace", str(workspace)], b"n\n", workspace)
    question = screen[screen.index("toolplug policy: allow bash: ") :]
    assert f"allow bash: {command}?" in question, question[-300:]
    assert f"[the whole call: {len('bash: ' + command):,} characters] [y/N] " in question
    assert status == 1 and "the person at the terminal declined" in out
    assert not (workspace / "the-dangerous-tail").exists()


def test_the_terminal_indents_every_line_of_a_call(write_policy, workspace: Path) -> None:
    policy = write_policy(ASKING)
    # The second line fakes a question of its own; every line of the call is indented.
    command = "echo hi\necho 'toolplug policy: allow bash: echo safe? [y/N]'\ntouch made"
    toolplug = str(Path(sys.executable).parent / "toolplug")
    args = [toolplug, "call", "bash", json.dumps({"command": command}), "--policy", str(policy)]
    screen, _, _ = _ask_on_a_pty([*args, "--workspace", str(workspace)], b"n\n", workspace)
    shown = "allow bash: echo hi\n    echo 'toolplug policy: allow bash: echo safe? [y/N]'\n"
    assert shown + "    touch made?" in screen, screen


TOO_LONG = textwrap.dedent(
    """
    import sys
    from toolplug import Toolset

    command = "echo " + "x" * 200_000 + " && touch made"
    with Toolset.load(["bash"], workspace=sys.argv[1], policy=sys.argv[2]) as tools:
        print(tools.call("bash", {"command": command}).text, flush=True)
    """
)


def test_a_call_too_long_to_show_is_refused_unasked(write_policy, workspace: Path) -> None:
    # The policy's own reading limit would refuse the command first: raise it, so that
    # the limit on what a person can be shown is the one that acts.
    policy = write_policy(ASKING + "\n[limits]\ncommand_chars = 300000\n")
    args = [sys.executable, "-c", TOO_LONG, str(workspace), str(policy)]
    screen, out, _ = _ask_on_a_pty(args, b"y\n", workspace)
    assert "[y/N]" not in screen
    assert "the call is 200,025 characters long, more than the 100,000 a person can be" in out
    assert "split it into smaller calls" in out
    assert not (workspace / "made").exists()


async def test_mcp_serve_asks_about_the_whole_call(write_policy, workspace: Path) -> None:
    """``toolplug mcp serve --policy``: the elicitation a client's user reads holds the
    end of a 10,000-character command, the part that matters; a "no" keeps it from running."""
    pytest.importorskip("toolplug_mcp")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    questions: list[str] = []

    async def decline(context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult

        questions.append(params.message)
        return ElicitResult(action="accept", content={"value": False})

    command = "echo " + "x" * 10_000 + " && touch the-dangerous-tail"
    toolplug = str(Path(sys.executable).parent / "toolplug")
    args = ["mcp", "serve", "--plugins", "bash,policy", "--policy", str(write_policy(ASKING))]
    server = StdioServerParameters(command=toolplug, args=[*args, "--workspace", str(workspace)])
    async with (
        stdio_client(server) as (read, write),
        ClientSession(read, write, elicitation_callback=decline) as session,
    ):
        await session.initialize()
        result = await session.call_tool("bash", {"command": command})
    [question] = questions
    assert f'"command": "{command}"' in question
    assert "it changes the workspace" in question
    assert result.is_error and "the approver declined" in result.content[0].text
    assert not (workspace / "the-dangerous-tail").exists()
