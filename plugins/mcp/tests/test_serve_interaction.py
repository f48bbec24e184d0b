"""`toolplug mcp serve` relays what tools report while they run to the calling client.

Driven by the official `mcp` SDK client, over HTTP and over stdio: progress
notifications for calls that carry a progressToken, log messages, and a tool's
questions as elicitation requests (declined for a client that cannot be asked). The
tools are the test plugin `interactive` (tests/counter_plugin/interactive_plugin.py),
and bash, whose long commands report their output as it arrives.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from conftest import HAS_BASH, TOOLPLUG, serve_env, start_http, stop
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

PLUGINS = "interactive,bash" if HAS_BASH else "interactive"


class Client:
    """What one SDK client session heard: log messages and questions."""

    def __init__(self, answer: dict[str, Any] | None) -> None:
        self.answer = answer
        self.logs: list[mcp_types.LoggingMessageNotificationParams] = []
        self.questions: list[mcp_types.ElicitRequestParams] = []

    async def on_log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def on_elicit(
        self, context: Any, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult:
        self.questions.append(params)
        return mcp_types.ElicitResult(action="accept", content=self.answer)

    def session(self, read: Any, write: Any, *, can_elicit: bool = True) -> ClientSession:
        return ClientSession(
            read,
            write,
            logging_callback=self.on_log,
            elicitation_callback=self.on_elicit if can_elicit else None,
        )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace of the module's shared :func:`served`."""
    return tmp_path_factory.mktemp("served")


@pytest.fixture(scope="module")
def served(workspace: Path) -> Iterator[str]:
    """One served toolplug for the module's tests that need no fresh server (each opens
    a session of its own); its URL."""
    proc, url = start_http(workspace, "--workspace", str(workspace), plugins=PLUGINS)
    try:
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def gatekept(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One served ``gatekeeper`` plugin for the policy-question tests (each asks in a
    session of its own); its URL."""
    proc, url = start_http(tmp_path_factory.mktemp("gatekept"), plugins="gatekeeper")
    try:
        yield url
    finally:
        stop(proc)


@asynccontextmanager
async def http_session(
    url: str, client: Client, *, can_elicit: bool = True
) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url) as (read, write),
        client.session(read, write, can_elicit=can_elicit) as session,
    ):
        yield session


@asynccontextmanager
async def stdio_session(tmp_path: Path, client: Client) -> AsyncIterator[ClientSession]:
    server = StdioServerParameters(
        command=TOOLPLUG,
        args=["mcp", "serve", "--plugins", PLUGINS, "--workspace", str(tmp_path)],
        env=serve_env(tmp_path),
    )
    async with stdio_client(server) as (read, write), client.session(read, write) as session:
        yield session


async def check_progress_and_logs(session: ClientSession, client: Client) -> None:
    initialized = await session.initialize()
    assert initialized.capabilities.logging is not None
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    result = await session.call_tool("steps", {"count": 3}, progress_callback=on_progress)
    assert not result.is_error, result
    assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    warning = [log for log in client.logs if log.level == "warning"]
    assert len(warning) == 1
    assert warning[0].logger == "steps"
    assert warning[0].data == {"msg": "steps taken", "extra": {"count": 3}}


async def check_questions(session: ClientSession, client: Client) -> None:
    for name in ("confirm", "aconfirm"):
        result = await session.call_tool(name, {"what": "the deploy"})
        assert result.content[0].text == "accept {'name': 'Ada', 'ok': True}", name
    assert [q.message for q in client.questions] == ["Confirm the deploy?"] * 2
    schema = client.questions[0].requested_schema
    assert schema["properties"]["ok"] == {"type": "boolean", "title": "Go ahead?"}


# The SDK warns that MCP's logging capability is deprecated in its newest protocol
# version; this server speaks the handshake versions, where it is current.
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
async def test_progress_and_logs_over_http(served: str) -> None:
    client = Client(None)
    async with http_session(served, client) as session:
        await check_progress_and_logs(session, client)
        # The client's logging/setLevel holds: a warning passes, debug does not.
        await session.set_logging_level("warning")
        client.logs.clear()
        await session.call_tool("steps", {"count": 1})
        assert [log.level for log in client.logs] == ["warning"]


async def test_questions_become_elicitations_over_http(served: str) -> None:
    client = Client({"name": "Ada", "ok": True})
    async with http_session(served, client) as session:
        await session.initialize()
        await check_questions(session, client)


async def test_a_client_that_cannot_be_asked_gets_a_decline(served: str) -> None:
    client = Client({"ok": True})
    async with http_session(served, client, can_elicit=False) as session:
        await session.initialize()
        for name in ("confirm", "aconfirm"):
            result = await session.call_tool(name, {"what": "x"})
            assert result.content[0].text == "decline None"
    assert client.questions == []


async def test_progress_logs_and_questions_over_stdio(tmp_path: Path) -> None:
    client = Client({"name": "Ada", "ok": True})
    async with stdio_session(tmp_path, client) as session:
        await check_progress_and_logs(session, client)
        await check_questions(session, client)


@pytest.mark.skipif(not HAS_BASH, reason="toolplug-bash is not installed")
async def test_bash_output_arrives_as_progress_while_the_command_runs(
    served: str, workspace: Path
) -> None:
    # The command waits for a file that the client creates on seeing the first line
    # in a progress notification: it ends only if that line arrived while it ran.
    command = "echo first; while [ ! -e seen ]; do sleep 0.05; done; echo second"
    messages: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")
        if "first" in (message or ""):
            (workspace / "seen").touch()

    async with http_session(served, Client(None)) as session:
        await session.initialize()
        result = await session.call_tool(
            "bash", {"command": command, "timeout": 60}, progress_callback=on_progress
        )
    assert result.structured_content is not None
    assert result.structured_content["exit_code"] == 0, result.content
    assert "".join(messages) == "first\nsecond\n"


@pytest.mark.parametrize(
    ("answer", "can_elicit", "expected"),
    [({"value": True}, True, "ran"), ({"value": False}, True, "refused"), (None, False, "refused")],
    ids=["yes", "no", "cannot-ask"],
)
async def test_a_policy_question_is_an_elicitation_over_http(
    gatekept: str, answer: dict[str, Any] | None, can_elicit: bool, expected: str
) -> None:
    client = Client(answer)
    async with http_session(gatekept, client, can_elicit=can_elicit) as session:
        await session.initialize()
        result = await session.call_tool("gated", {})
    assert expected in result.content[0].text
    if can_elicit:
        (question,) = client.questions
        assert question.message.startswith("Allow the tool 'gated' to run with {}?")
        assert "a test rule" in question.message
        assert question.requested_schema["properties"]["value"]["type"] == "boolean"


async def test_a_policy_question_shows_the_whole_call(gatekept: str) -> None:
    """A 10,000-character command whose end is the dangerous part: the elicitation the
    client's user reads holds that end; a call too long to show is refused unasked."""
    command = "echo " + "x" * 10_000 + " && rm -rf ~/the-dangerous-tail"
    huge = "echo " + "x" * 150_000
    client = Client({"value": False})
    async with http_session(gatekept, client) as session:
        await session.initialize()
        declined = await session.call_tool("gated", {"command": command})
        too_long = await session.call_tool("gated", {"command": huge})
    (question,) = client.questions  # the huge call was never put to the user
    assert question.message.startswith(
        f'Allow the tool \'gated\' to run with {{"command": "{command}"}}?'
    )
    assert "refused by the user" in declined.content[0].text
    text = too_long.content[0].text
    assert too_long.is_error and "QuestionTooLong: the call is 150,095 characters long" in text
    assert "split it into smaller calls" in text
