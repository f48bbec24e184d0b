"""The client serves the host's handlers to its servers: sampling, questions, roots,
progress and logs, against a real server that asks for each (and against
``server-everything`` when npm can install it)."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import toolplug_mcp
from conftest import HERE
from toolplug import Tool, ToolContext, Toolset
from toolplug.interaction import (
    Answer,
    Handlers,
    LogMessage,
    Progress,
    Question,
    SamplingRequest,
)
from toolplug.testing import registry_from, wait_until

INTERACTIVE_SERVER = HERE / "servers" / "interactive_server.py"
#: The server-everything release the tests were written against (its tools differ by
#: release).
EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31"


def interactive(**extra: object) -> dict[str, object]:
    """The mcpServers entry that runs the interactive server over stdio."""
    return {"command": sys.executable, "args": [str(INTERACTIVE_SERVER)], **extra}


def load(tmp_path: Path, servers: dict[str, Any] | None = None, **handlers: Any) -> Toolset:
    """The mcp factory's tools (the interactive server's, by default), with handlers."""
    config = {"mcpServers": servers or {"i": interactive()}}
    return Toolset.load(
        [Tool("mcp", {"config": config})],
        registry=registry_from(toolplug_mcp),
        context=ToolContext(workspace=tmp_path),
        **handlers,
    )


def declared(toolset: Toolset) -> dict[str, Any]:
    """The capabilities the client declared to the interactive server."""
    seen = toolset.call("capabilities", {})
    assert not seen.is_error, seen.text
    capabilities: dict[str, Any] = json.loads(seen.text)
    return capabilities


# -- what is declared ----------------------------------------------------------------------


def test_a_host_without_handlers_declares_nothing_and_is_asked_nothing(tmp_path: Path) -> None:
    with load(tmp_path) as toolset:
        assert not {"sampling", "elicitation", "roots"} & set(declared(toolset))
        # A server that asks all the same is told no, and the call goes on.
        sampled = toolset.call("summarize", {"text": "hi"})
        asked = toolset.call("book", {})
        rooted = toolset.call("roots", {})
    assert "sampling failed: Sampling not supported" in sampled.text
    assert "asking failed: Elicitation not supported" in asked.text
    assert "no roots: List roots not supported" in rooted.text


def test_each_capability_is_declared_only_with_its_handler(tmp_path: Path) -> None:
    with load(tmp_path, on_sample=lambda request: "x") as toolset:
        capabilities = declared(toolset)
    assert "sampling" in capabilities and "elicitation" not in capabilities
    assert "roots" in capabilities  # the host gave a handler: its workspace is a root
    with load(tmp_path, on_elicit=lambda question: Answer("decline")) as toolset:
        capabilities = declared(toolset)
    assert "elicitation" in capabilities and "sampling" not in capabilities


# -- sampling ------------------------------------------------------------------------------


def test_sampling_asks_the_hosts_model(tmp_path: Path) -> None:
    requests: list[SamplingRequest] = []

    def model(request: SamplingRequest) -> str:
        requests.append(request)
        return "a short answer"

    with load(tmp_path, on_sample=model) as toolset:
        observation = toolset.call("summarize", {"text": "a long text"})
    assert not observation.is_error, observation.text
    assert observation.text == "unknown (assistant): a short answer"
    assert requests == [
        SamplingRequest(
            server="i",
            messages=[{"role": "user", "content": {"type": "text", "text": "a long text"}}],
            system_prompt="Answer in one line.",
            max_tokens=40,
            temperature=0.5,
            stop_sequences=["\n\n"],
            model_preferences={"hints": [{"name": "small"}]},
        )
    ]


def test_an_async_model_may_answer_with_a_whole_result(tmp_path: Path) -> None:
    async def model(request: SamplingRequest) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"content": {"type": "text", "text": "hey"}, "model": "tiny-1"}

    async def host() -> str:
        async with load(tmp_path, on_sample=model) as toolset:
            observation = await toolset.acall("summarize", {"text": "hi"})
        return observation.text

    assert asyncio.run(host()) == "tiny-1 (assistant): hey"


def test_a_failing_model_is_the_servers_error_and_the_call_goes_on(tmp_path: Path) -> None:
    def model(request: SamplingRequest) -> str:
        raise RuntimeError("the model is offline")

    with load(tmp_path, on_sample=model) as toolset:
        observation = toolset.call("summarize", {"text": "hi"})
        again = toolset.call("echo", {"text": "still here"})
    assert "sampling failed:" in observation.text
    assert "the model is offline" in observation.text
    assert not again.is_error and "still here" in again.text


# -- questions -----------------------------------------------------------------------------


def test_a_servers_question_reaches_on_elicit_with_the_tools_name(tmp_path: Path) -> None:
    questions: list[Question] = []

    def user(question: Question) -> Answer:
        questions.append(question)
        return Answer("accept", {"table": 4, "when": "dinner"})

    with load(tmp_path, on_elicit=user) as toolset:
        observation = toolset.call("book", {})
    assert observation.text == "booked table 4 for dinner"
    [question] = questions
    assert question.tool == "book"
    assert question.message == "Which table, and when?"
    assert question.schema["properties"]["when"] == {
        "type": "string",
        "enum": ["lunch", "dinner"],
    }


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_refusal_goes_back_to_the_server(tmp_path: Path, action: str) -> None:
    with load(tmp_path, on_elicit=lambda question: Answer(action)) as toolset:  # type: ignore[arg-type]
        observation = toolset.call("book", {})
    assert observation.text == f"not booked: {action}"


def test_a_failing_question_handler_is_a_decline(tmp_path: Path) -> None:
    def user(question: Question) -> Answer:
        raise OSError("no terminal")

    with load(tmp_path, on_elicit=user) as toolset:
        observation = toolset.call("book", {})
    assert observation.text == "not booked: decline"


def test_a_waiting_question_does_not_hold_up_the_other_servers(tmp_path: Path) -> None:
    # A sync on_elicit waits for a person; meanwhile the client loop, which every
    # server shares, must go on: here the "person" uses another server's tool.
    servers = {"i": interactive(), "other": interactive(timeout=30000)}
    answered: list[str] = []

    def user(question: Question) -> Answer:
        answered.append(toolset.call("other__echo", {"text": "meanwhile"}).text)
        return Answer("accept", {"table": 1, "when": "lunch"})

    with load(tmp_path, servers, on_elicit=user) as toolset:
        observation = toolset.call("i__book", {})
    assert observation.text == "booked table 1 for lunch"
    assert answered == ['echo: {"text": "meanwhile"}']


# -- roots ---------------------------------------------------------------------------------


def test_roots_are_the_workspace_and_the_hosts(tmp_path: Path) -> None:
    extra = tmp_path / "data"
    extra.mkdir()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = {"mcpServers": {"i": interactive()}}
    with Toolset.load(
        [Tool("mcp", {"config": config})],
        registry=registry_from(toolplug_mcp),
        context=ToolContext(workspace=workspace),
        roots=[extra],
    ) as toolset:
        observation = toolset.call("roots", {})
    assert observation.text.splitlines() == [
        f"workspace={workspace.resolve().as_uri()}",
        f"data={extra.resolve().as_uri()}",
    ]


# -- progress and logs ---------------------------------------------------------------------


def test_progress_and_logs_are_marked_with_the_call(tmp_path: Path) -> None:
    events: list[Any] = []
    with load(tmp_path, on_progress=events.append, on_log=events.append) as toolset:
        observation = toolset.call("count", {"to": 2}, call_id="call-7")
        assert observation.text == "counted to 2"
        wait_until(lambda: len(events) >= 6, what="the call's progress and logs")
    ready = LogMessage(tool="i", call_id=None, level="notice", message="ready")
    assert events == [
        ready,  # the server's log outside any call: marked with the server's key
        Progress("count", "call-7", 1, 2, "step 1"),
        LogMessage("count", "call-7", "info", "counted 1"),
        Progress("count", "call-7", 2, 2, "step 2"),
        LogMessage("count", "call-7", "info", "counted 2"),
        LogMessage(
            "count", "call-7", "warning", "the end", {"message": "the end", "n": 1}, "counter"
        ),
    ]


def test_progress_names_the_tool_as_the_toolset_does(tmp_path: Path) -> None:
    events: list[Progress] = []
    servers = {"i": interactive(), "j": interactive()}
    with load(tmp_path, servers, on_progress=events.append) as toolset:
        toolset.call("j__count", {"to": 1})
        wait_until(lambda: bool(events), what="the progress report")
    assert events == [Progress("j__count", None, 1, 1, "step 1")]


def test_without_handlers_server_logs_go_to_python_logging(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="toolplug.tools"), load(tmp_path) as toolset:
        toolset.call("count", {"to": 1})
        wait_until(lambda: "the end" in caplog.text, what="the log records")
    assert "count: counted 1" in caplog.text


def test_async_handlers_run_on_the_callers_loop(tmp_path: Path) -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def on_progress(event: Progress) -> None:
        loops.append(asyncio.get_running_loop())

    async def host() -> asyncio.AbstractEventLoop:
        async with load(tmp_path, on_progress=on_progress) as toolset:
            await toolset.acall("count", {"to": 2})
            for _ in range(1000):  # bounded: the reports come on their own
                if len(loops) == 2:
                    break
                await asyncio.sleep(0.01)
        return asyncio.get_running_loop()

    caller = asyncio.run(host())
    assert loops == [caller, caller]


# -- server-everything ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def server_everything(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``@modelcontextprotocol/server-everything``, installed with npm into a temp dir."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if not npm or not node:
        pytest.skip("node and npm are needed to install server-everything")
    where = tmp_path_factory.mktemp("everything")
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", EVERYTHING],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        pytest.skip(f"npm could not install server-everything: {done.stderr[-500:]}")
    main = where / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    if not main.exists():
        pytest.skip(f"server-everything has no {main.name} where it used to")
    return main


def everything(main: Path) -> dict[str, Any]:
    return {"e": {"command": shutil.which("node"), "args": [str(main), "stdio"]}}


def test_server_everything_offers_a_capable_host_all_its_tools(
    tmp_path: Path, server_everything: Path
) -> None:
    events: list[Any] = []
    questions: list[Question] = []

    def user(question: Question) -> Answer:
        questions.append(question)
        wanted = question.schema.get("required", [])
        filled = {"name": "Ada", "check": True, "email": "ada@example.com", "integer": 3}
        return Answer("accept", {k: v for k, v in filled.items() if k in wanted or k == "name"})

    servers = everything(server_everything)
    with load(tmp_path, servers) as plain:
        without = set(plain)
    with load(
        tmp_path,
        servers,
        on_sample=lambda request: "a sample",
        on_elicit=user,
        on_progress=events.append,
        on_log=events.append,
    ) as toolset:
        offered = set(toolset)
        sampled = toolset.call("trigger-sampling-request", {"prompt": "hi"})
        asked = toolset.call("trigger-elicitation-request", {})
        rooted = toolset.call("get-roots-list", {})
        url = toolset.call("trigger-url-elicitation", {"url": "https://example.com"})
        ran = toolset.call(
            "trigger-long-running-operation", {"duration": 1, "steps": 2}, call_id="long"
        )
        wait_until(lambda: sum(isinstance(e, Progress) for e in events) >= 2, what="progress")
    assert offered - without == {
        "get-roots-list",
        "trigger-elicitation-request",
        "trigger-sampling-request",
        "trigger-url-elicitation",
    }
    assert without <= offered
    assert not sampled.is_error and '"text": "a sample"' in sampled.text
    assert not asked.is_error and "Ada" in asked.text
    assert questions[0].tool == "trigger-elicitation-request"
    assert tmp_path.resolve().as_uri() in rooted.text
    assert "declined" in url.text  # URL mode is not put to the host: declined
    assert not ran.is_error, ran.text
    progress = [e for e in events if isinstance(e, Progress)]
    assert [(p.tool, p.call_id, p.progress, p.total) for p in progress] == [
        ("trigger-long-running-operation", "long", 1, 2),
        ("trigger-long-running-operation", "long", 2, 2),
    ]


def test_a_task_that_waits_for_input_asks_the_host(tmp_path: Path, server_everything: Path) -> None:
    questions: list[Question] = []

    def user(question: Question) -> Answer:
        questions.append(question)
        return Answer("accept", {"interpretation": "programming"})

    with load(tmp_path, everything(server_everything), on_elicit=user) as toolset:
        report = toolset.call("simulate-research-query", {"topic": "python", "ambiguous": True})
    assert not report.is_error, report.text
    assert "**Clarification**: programming" in report.text
    [question] = questions
    assert question.tool == "simulate-research-query"
    assert "interpretation" in question.schema["properties"]


def test_during_a_call_the_toolsets_own_handlers_answer(tmp_path: Path) -> None:
    # The factory's context declares elicitation; a toolset made with its own
    # handlers answers the questions of its calls.
    config = {"mcpServers": {"i": interactive()}}
    declines = Handlers(on_elicit=lambda question: Answer("decline"))
    accepts = Handlers(on_elicit=lambda question: Answer("accept", {"table": 9, "when": "lunch"}))
    context = ToolContext(workspace=tmp_path, handlers=declines)
    with Toolset(toolplug_mcp.mcp_tools(context, config=config), handlers=accepts) as toolset:
        observation = toolset.call("book", {})
    assert observation.text == "booked table 9 for lunch"


def test_a_handler_the_toolset_lacks_is_the_contexts(tmp_path: Path) -> None:
    # A toolset made with no handlers of its own: the context's handlers serve.
    config = {"mcpServers": {"i": interactive()}}
    events: list[Progress] = []
    context = ToolContext(workspace=tmp_path, handlers=Handlers(on_progress=events.append))
    with Toolset(toolplug_mcp.mcp_tools(context, config=config)) as toolset:
        toolset.call("count", {"to": 1}, call_id="c")
        wait_until(lambda: bool(events), what="the progress report")
    assert events == [Progress("count", "c", 1, 1, "step 1")]
