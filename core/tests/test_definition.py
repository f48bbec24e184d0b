"""Running tools: sync and async executors from sync and async callers, failures, timeouts."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from core_test_tools import EchoAction, EchoObservation
from pydantic import Field, field_validator
from toolplug import (
    Action,
    ImageContent,
    Observation,
    TextContent,
    ToolDefinition,
    ToolExecutor,
)


class Empty(Action):
    pass


def tool(executor: object, **kw: object) -> ToolDefinition[EchoAction, Observation]:
    return ToolDefinition(
        name="t",
        description="A test tool.",
        action_type=EchoAction,
        executor=executor,
        **kw,  # type: ignore[arg-type]
    )


def test_sync_executor_from_sync_and_async_callers(echo_tool: ToolDefinition) -> None:
    assert echo_tool.call({"text": "ab", "times": 2}).text == "abab"
    obs = asyncio.run(echo_tool.acall({"text": "x"}))
    assert isinstance(obs, EchoObservation) and obs.echoed == "x"


def test_async_executor_from_sync_and_async_callers() -> None:
    loops: list[int] = []

    async def run(action: EchoAction) -> Observation:
        await asyncio.sleep(0)
        loops.append(id(asyncio.get_running_loop()))
        return Observation.from_text(action.text.upper())

    t = tool(run)
    assert t.call({"text": "a"}).text == "A"
    assert t.call({"text": "b"}).text == "B"
    assert loops[0] == loops[1], "sync callers share the core's background loop"

    async def main() -> str:
        return (await t.acall({"text": "c"})).text

    assert asyncio.run(main()) == "C"


def test_async_callable_object_is_detected() -> None:
    class Exec(ToolExecutor[EchoAction, Observation]):
        async def __call__(self, action: EchoAction) -> Observation:  # type: ignore[override]
            return Observation.from_text("async object")

    t = tool(Exec())
    assert t.is_async
    assert t.call({"text": "a"}).text == "async object"


def test_sync_executor_runs_off_the_event_loop_in_acall() -> None:
    seen: list[str] = []

    def run(action: EchoAction) -> Observation:
        seen.append(threading.current_thread().name)
        return Observation.from_text("ok")

    async def main() -> None:
        await tool(run).acall({"text": "a"})

    asyncio.run(main())
    assert seen and seen[0] != threading.main_thread().name


def test_executor_exception_becomes_error_observation() -> None:
    def run(action: EchoAction) -> Observation:
        raise FileNotFoundError("no such file: x.txt")

    obs = tool(run).call({"text": "a"})
    assert obs.is_error
    assert obs.text == "Tool 't' failed: FileNotFoundError: no such file: x.txt"
    obs = asyncio.run(tool(run).acall({"text": "a"}))
    assert obs.is_error and "FileNotFoundError" in obs.text


def test_wrong_return_type_and_plain_strings() -> None:
    assert tool(lambda a: 42).call({"text": "a"}).is_error
    assert "returned int" in tool(lambda a: 42).call({"text": "a"}).text
    obs = tool(lambda a: "plain text").call({"text": "a"})
    assert not obs.is_error and obs.text == "plain text"


def test_tool_without_executor() -> None:
    obs = tool(None).call({"text": "a"})
    assert obs.is_error and "has no executor" in obs.text


def test_timeout_returns_control_sync_and_async() -> None:
    release = threading.Event()

    def slow(action: EchoAction) -> Observation:
        release.wait(10)
        return Observation.from_text("late")

    async def aslow(action: EchoAction) -> Observation:
        await asyncio.sleep(10)
        return Observation.from_text("late")

    try:
        for t in (tool(slow), tool(aslow)):
            obs = t.call({"text": "a"}, timeout=0.05)
            assert obs.is_error and "did not finish within 0.05 seconds" in obs.text
            obs = asyncio.run(t.acall({"text": "a"}, timeout=0.05))
            assert obs.is_error and "did not finish within 0.05 seconds" in obs.text
    finally:
        release.set()


def test_default_timeout_on_the_definition() -> None:
    t = tool(lambda a: time.sleep(5), timeout=0.05)
    assert "did not finish" in t.call({"text": "a"}).text


def test_close_runs_once_and_never_raises() -> None:
    class Exec(ToolExecutor[EchoAction, Observation]):
        closed = 0

        def __call__(self, action: EchoAction) -> Observation:
            return Observation.from_text("x")

        def close(self) -> None:
            Exec.closed += 1
            raise RuntimeError("close failed")

    t = tool(Exec())
    t.close()
    t.close()
    asyncio.run(t.aclose())
    assert Exec.closed == 1


def test_async_close_from_sync_code() -> None:
    closed: list[bool] = []

    class Exec:
        def __call__(self, action: EchoAction) -> Observation:
            return Observation.from_text("x")

        async def close(self) -> None:
            await asyncio.sleep(0)
            closed.append(True)

    tool(Exec()).close()
    assert closed == [True]


def test_no_parameter_tool_exports_empty_properties() -> None:
    t = ToolDefinition(name="now", description="Now.", action_type=Empty, executor=lambda a: "x")
    assert t.input_schema()["properties"] == {}
    assert t.call(None).text == "x"
    assert t.call("").text == "x"


def test_annotated_and_field_descriptions_reach_the_schema() -> None:
    from typing import Annotated

    class A(Action):
        a: Annotated[str, Field(description="from Annotated")]
        b: int = Field(default=1, description="from Field")

    schema = ToolDefinition(name="x", description="x", action_type=A).input_schema()
    assert schema["properties"]["a"]["description"] == "from Annotated"
    assert schema["properties"]["b"]["description"] == "from Field"


@pytest.mark.parametrize("bad", ["", None])
def test_a_tool_needs_a_name(bad: str | None) -> None:
    with pytest.raises(ValueError, match="needs a name"):
        ToolDefinition(name=bad, description="x", action_type=Empty)  # type: ignore[arg-type]


def test_an_executor_that_keeps_time_gets_the_timeout_sync_and_async() -> None:
    seen: list[float | None] = []

    class Patient(ToolExecutor[EchoAction, Observation]):
        handles_timeout = True

        def __call__(self, action: EchoAction, timeout: float | None = None) -> Observation:  # type: ignore[override]
            seen.append(timeout)
            return Observation.from_text(f"partial after {timeout}")

    t = tool(Patient())
    assert t.call({"text": "a"}, timeout=0.25).text == "partial after 0.25"
    assert asyncio.run(t.acall({"text": "a"}, timeout=0.5)).text == "partial after 0.5"
    assert t.call({"text": "a"}).text == "partial after None"
    assert seen == [0.25, 0.5, None]


def test_a_tool_calling_sys_exit_does_not_end_the_host() -> None:
    import sys

    def run(action: EchoAction) -> Observation:
        sys.exit(3)

    obs = tool(run).call({"text": "a"})
    assert obs.is_error and "SystemExit: 3" in obs.text
    assert asyncio.run(tool(run).acall({"text": "a"})).is_error


# -- call() and acall() never raise --------------------------------------------------------


def both(t: ToolDefinition, arguments: object, **kw: object) -> list[Observation]:
    """The observation of call() and of acall(), for the same arguments."""
    return [t.call(arguments, **kw), asyncio.run(t.acall(arguments, **kw))]  # type: ignore[arg-type]


@pytest.fixture
def silent_server() -> Iterator[tuple[str, int]]:
    """A TCP server on 127.0.0.1 that accepts and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(5)
    accepted: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                accepted.append(server.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[:2]
    server.close()
    for conn in accepted:
        conn.close()


@pytest.mark.parametrize("call_timeout", [None, 30.0])
def test_a_tools_own_socket_timeout_reaches_the_model(
    silent_server: tuple[str, int], call_timeout: float | None
) -> None:
    def fetch(action: EchoAction) -> Observation:
        with socket.create_connection(silent_server, timeout=0.05) as conn:
            conn.sendall(b"GET / HTTP/1.0\r\n\r\n")
            return Observation.from_text(conn.recv(100).decode())

    for obs in both(tool(fetch), {"text": "a"}, timeout=call_timeout):
        assert obs.is_error
        assert obs.text == "Tool 't' failed: TimeoutError: timed out"


@pytest.mark.parametrize("call_timeout", [None, 30.0])
def test_a_tools_own_asyncio_timeout_reaches_the_model(call_timeout: float | None) -> None:
    async def wait_for_reply(action: EchoAction) -> Observation:
        try:
            await asyncio.wait_for(asyncio.Event().wait(), 0.01)
        except asyncio.TimeoutError:
            raise TimeoutError("the upstream service did not reply in 0.01s") from None
        return Observation.from_text("never")

    for obs in both(tool(wait_for_reply), {"text": "a"}, timeout=call_timeout):
        assert obs.is_error
        assert obs.text == (
            "Tool 't' failed: TimeoutError: the upstream service did not reply in 0.01s"
        )


def test_an_exception_whose_message_cannot_be_read() -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str for you")

    def run(action: EchoAction) -> Observation:
        raise Unprintable

    for obs in both(tool(run), {"text": "a"}):
        assert obs.is_error
        assert obs.text == (
            "Tool 't' failed: Unprintable: (its message could not be read: RuntimeError)"
        )


def test_results_of_the_wrong_type_are_errors_sync_and_async() -> None:
    async def returns_bytes(action: EchoAction) -> bytes:
        return b"raw"

    for t, kind in [
        (tool(lambda a: 42), "int"),
        (tool(lambda a: None), "NoneType"),
        (tool(lambda a: ["text", TextContent(text="x")]), "list"),
        (tool(returns_bytes), "bytes"),
    ]:
        for obs in both(t, {"text": "a"}):
            assert obs.is_error and f"returned {kind}, not an Observation" in obs.text


def test_content_blocks_become_an_observation() -> None:
    image = ImageContent(data="aGk=", mimeType="image/png")
    obs = tool(lambda a: image).call({"text": "a"})
    assert not obs.is_error and obs.content == [image]
    obs = tool(lambda a: [TextContent(text="x"), image]).call({"text": "a"})
    assert obs.content == [TextContent(text="x"), image]


def test_a_tool_without_executor_sync_and_async() -> None:
    for obs in both(tool(None), {"text": "a"}):
        assert obs.is_error and obs.text == "Tool 't' has no executor; it cannot be run."


def test_an_action_validator_that_raises_something_unexpected() -> None:
    class Picky(Action):
        path: str = Field(description="A path.")

        @field_validator("path")
        @classmethod
        def check(cls, value: str) -> str:
            raise LookupError(f"no mount for {value}")  # not a ValueError: pydantic lets it out

    t = ToolDefinition(name="picky", description="x", action_type=Picky, executor=lambda a: "x")
    for obs in both(t, {"path": "/mnt/x"}):
        assert obs.is_error and obs.text == "Tool 'picky' failed: LookupError: no mount for /mnt/x"


def test_a_timeout_that_passes_still_says_so_with_its_limit() -> None:
    release = threading.Event()

    def slow(action: EchoAction) -> Observation:
        release.wait(10)
        return Observation.from_text("late")

    try:
        for obs in both(tool(slow, timeout=0.05), {"text": "a"}):
            assert obs.text.startswith("Tool 't' did not finish within 0.05 seconds")
    finally:
        release.set()


def test_run_sync_passes_on_a_coroutines_own_timeout_error() -> None:
    import asyncio

    from toolplug.loop import run_sync

    async def times_out_inside() -> None:
        await asyncio.wait_for(asyncio.sleep(1), 0.001)

    for timeout in (None, 5.0):
        try:
            run_sync(times_out_inside(), timeout)
        except (TimeoutError, asyncio.TimeoutError) as exc:  # one class from 3.11 on
            assert "no answer within" not in str(exc)  # not mistaken for run_sync's own
        else:
            raise AssertionError("the coroutine's TimeoutError was lost")
