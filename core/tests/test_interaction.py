"""Progress, logs and questions from running tools (toolplug.interaction).

Every way a host calls a tool is exercised: sync and async callers, sync and async
executors, with and without a timeout, through a tool_call hook, through dispatch and
adispatch (in order and side by side); the handlers must reach the tool on each path.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import types
from collections.abc import Generator
from typing import Any

import pytest
from pydantic import BaseModel, Field
from toolplug import (
    Action,
    Observation,
    SamplingError,
    ToolCall,
    ToolContext,
    ToolDefinition,
    Toolset,
    hookimpl,
)
from toolplug.interaction import (
    NO_SAMPLING,
    Answer,
    Handlers,
    LogMessage,
    Progress,
    Question,
    SamplingRequest,
    aask,
    aask_model,
    answer,
    ask,
    ask_model,
    calling,
    current,
    handlers_for,
    log,
    notify,
    report_progress,
    sample,
)
from toolplug.testing import registry_from


class Step(Action):
    label: str = Field(default="x", description="A label for the reports.")


def chatty(action: Step) -> Observation:
    """Reports twice and logs once: a sync executor."""
    report_progress(1, 2, f"{action.label} half")
    log("warning", f"{action.label} careful", {"n": 1})
    report_progress(2, 2)
    return Observation.from_text("done")


async def achatty(action: Step) -> Observation:
    """The same, as an async executor."""
    report_progress(1, 2, f"{action.label} half")
    await asyncio.sleep(0)
    log("warning", f"{action.label} careful", {"n": 1})
    report_progress(2, 2)
    return Observation.from_text("done")


def chatty_tools(timeout: float | None = None) -> list[ToolDefinition[Any, Any]]:
    return [
        ToolDefinition(
            name="chatty", description="C.", action_type=Step, executor=chatty, timeout=timeout
        ),
        ToolDefinition(
            name="achatty", description="C.", action_type=Step, executor=achatty, timeout=timeout
        ),
    ]


class Recorder:
    """Handlers that remember what they got, and in which thread."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.threads: list[str] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        self.threads.append(threading.current_thread().name)

    def handlers(self) -> Handlers:
        return Handlers(on_progress=self, on_log=self)


def expected(tool: str, call_id: str | None, label: str = "x") -> list[Any]:
    return [
        Progress(tool, call_id, 1, 2, f"{label} half"),
        LogMessage(tool, call_id, "warning", f"{label} careful", {"n": 1}),
        Progress(tool, call_id, 2, 2, None),
    ]


@pytest.mark.parametrize("name", ["chatty", "achatty"])
@pytest.mark.parametrize("timeout", [None, 30.0])
def test_sync_call_reaches_the_handlers(name: str, timeout: float | None) -> None:
    recorder = Recorder()
    with Toolset(chatty_tools(timeout), handlers=recorder.handlers()) as toolset:
        assert toolset.call(name, {}, call_id="c1").text == "done"
    assert recorder.events == expected(name, "c1")


@pytest.mark.parametrize("name", ["chatty", "achatty"])
@pytest.mark.parametrize("timeout", [None, 30.0])
def test_async_call_reaches_the_handlers(name: str, timeout: float | None) -> None:
    recorder = Recorder()

    async def main() -> Observation:
        async with Toolset(chatty_tools(timeout), handlers=recorder.handlers()) as toolset:
            return await toolset.acall(name, {}, call_id="c2")

    assert asyncio.run(main()).text == "done"
    assert recorder.events == expected(name, "c2")


def hooked_toolset(handlers: Handlers) -> Toolset:
    """The chatty tools behind a tool_call wrapper: the hook's worker-thread path."""

    class Wrapper:
        @hookimpl(wrapper=True)
        def tool_call(self) -> Generator[None, Observation, Observation]:
            return (yield)

    @hookimpl
    def register_tools(register: Any) -> None:
        for definition in chatty_tools():
            register(definition)

    plugin = types.SimpleNamespace(register_tools=register_tools, __name__="chatty")
    return Toolset.load(registry=registry_from(plugin, Wrapper()), handlers=handlers)


@pytest.mark.parametrize("name", ["chatty", "achatty"])
def test_calls_through_a_tool_call_hook_reach_the_handlers(name: str) -> None:
    recorder = Recorder()
    with hooked_toolset(recorder.handlers()) as toolset:
        assert toolset.call(name, {}).text == "done"
        assert asyncio.run(toolset.acall(name, {}, call_id="h")).text == "done"
    assert recorder.events == expected(name, None) + expected(name, "h")


@pytest.mark.parametrize("parallel", [False, True])
def test_dispatch_marks_each_report_with_its_call_id(parallel: bool) -> None:
    calls = [ToolCall(f"id{i}", name, {"label": f"L{i}"}) for i, name in enumerate(["chatty"] * 3)]
    calls.append(ToolCall("id3", "achatty", {"label": "L3"}))
    for run_async in (False, True):
        recorder = Recorder()
        with Toolset(chatty_tools(), handlers=recorder.handlers()) as toolset:
            if run_async:
                results = asyncio.run(toolset.adispatch(calls, allow_parallel=parallel))
            else:
                results = toolset.dispatch(calls, allow_parallel=parallel)
        assert [observation.text for _, observation in results] == ["done"] * 4
        for i, call in enumerate(calls):
            mine = [e for e in recorder.events if e.call_id == call.id]
            assert mine == expected(call.name, call.id, f"L{i}"), (run_async, call)


def test_async_handlers_run_on_the_async_callers_loop() -> None:
    loops: list[Any] = []

    async def on_progress(event: Progress) -> None:
        loops.append(asyncio.get_running_loop())

    toolset = Toolset(chatty_tools(), handlers=Handlers(on_progress=on_progress))

    async def main() -> asyncio.AbstractEventLoop:
        for name in ("chatty", "achatty"):
            await toolset.acall(name, {})
        await asyncio.sleep(0)  # a report from an async tool is scheduled, not awaited
        return asyncio.get_running_loop()

    loop = asyncio.run(main())
    assert loops == [loop] * 4


def test_async_handlers_of_a_sync_caller_run_on_the_background_loop() -> None:
    from toolplug.loop import background_loop

    loops: list[Any] = []

    async def on_log(event: LogMessage) -> None:
        loops.append(asyncio.get_running_loop())

    toolset = Toolset(chatty_tools(), handlers=Handlers(on_log=on_log))
    toolset.call("chatty", {})
    assert loops == [background_loop()]


def test_a_handler_that_raises_is_logged_once_and_the_call_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(event: Any) -> None:
        raise OSError("the screen is gone")

    async def abroken(event: Any) -> None:
        raise OSError("the async screen is gone")

    caplog.set_level(logging.DEBUG, logger="toolplug")
    for handler in (broken, abroken):
        caplog.clear()
        toolset = Toolset(chatty_tools(), handlers=Handlers(on_progress=handler, on_log=handler))
        assert toolset.call("chatty", {}).text == "done"
        assert asyncio.run(toolset.acall("chatty", {})).text == "done"
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1, [r.getMessage() for r in warnings]
        assert handler.__name__ in warnings[0].getMessage()
        assert "screen is gone" in str(warnings[0].exc_info[1])  # type: ignore[index]


def test_without_handlers_reports_go_to_python_logging(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="toolplug.tools")
    assert Toolset(chatty_tools()).call("chatty", {"label": "q"}).text == "done"
    records = [(r.name, r.levelname, r.getMessage()) for r in caplog.records]
    assert ("toolplug.tools", "DEBUG", "chatty progress 1/2: q half") in records
    assert ("toolplug.tools", "WARNING", "chatty: q careful {'n': 1}") in records


def test_reports_outside_any_call_do_not_fail(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolplug.tools")
    assert current.get() is None
    report_progress(3)
    log("info", "loose")
    log("shouting", "an unknown level is info")  # type: ignore[arg-type]
    assert ask("Go?", {"type": "object", "properties": {}}) == Answer("decline")
    assert [r.levelname for r in caplog.records] == ["INFO", "INFO"]


# -- questions ----------------------------------------------------------------------------


class Overwrite(BaseModel):
    overwrite: bool = Field(description="Replace the file?")


def asking(action: Step) -> Observation:
    answer = ask(f"Overwrite {action.label}?", Overwrite)
    return Observation.from_text(f"{answer.action} {answer.content}")


async def aasking(action: Step) -> Observation:
    answer = await aask(f"Overwrite {action.label}?", Overwrite)
    return Observation.from_text(f"{answer.action} {answer.content}")


def asking_tools() -> list[ToolDefinition[Any, Any]]:
    return [
        ToolDefinition(name="asking", description="A.", action_type=Step, executor=asking),
        ToolDefinition(name="aasking", description="A.", action_type=Step, executor=aasking),
    ]


def all_answers(handlers: Handlers) -> list[str]:
    """Each asking tool, called sync and async."""
    toolset = Toolset(asking_tools(), handlers=handlers)
    out = []
    for name in ("asking", "aasking"):
        out.append(toolset.call(name, {"label": "a.txt"}).text)
        out.append(asyncio.run(toolset.acall(name, {"label": "a.txt"})).text)
    return out


def test_a_question_without_a_handler_is_declined() -> None:
    assert all_answers(Handlers()) == ["decline None"] * 4


def test_questions_reach_sync_and_async_handlers() -> None:
    questions: list[Question] = []

    def on_elicit(question: Question) -> Answer:
        questions.append(question)
        return Answer("accept", {"overwrite": True})

    async def aon_elicit(question: Question) -> Answer:
        await asyncio.sleep(0)
        return Answer("cancel")

    assert all_answers(Handlers(on_elicit=on_elicit)) == ["accept {'overwrite': True}"] * 4
    assert all_answers(Handlers(on_elicit=aon_elicit)) == ["cancel None"] * 4
    assert {q.tool for q in questions} == {"asking", "aasking"}
    assert questions[0].message == "Overwrite a.txt?"
    assert questions[0].schema == Overwrite.model_json_schema()


def test_a_failing_or_wrong_elicit_handler_is_a_decline() -> None:
    def broken(question: Question) -> Answer:
        raise RuntimeError("no terminal")

    def wrong(question: Question) -> Any:
        return True

    assert all_answers(Handlers(on_elicit=broken)) == ["decline None"] * 4
    assert all_answers(Handlers(on_elicit=wrong)) == ["decline None"] * 4


def test_a_bad_schema_is_the_tools_error() -> None:
    def bad(action: Step) -> Observation:
        ask("Go?", {"type": "string"})
        return Observation.from_text("unreachable")

    tool = ToolDefinition(name="bad", description="B.", action_type=Step, executor=bad)
    observation = Toolset([tool]).call("bad", {})
    assert observation.is_error
    assert "JSON object schema" in observation.text


# -- the host's model ---------------------------------------------------------------------


def summing_up(action: Step) -> Observation:
    return Observation.from_text(f"model: {ask_model(action.label, max_tokens=50)}")


async def asumming_up(action: Step) -> Observation:
    return Observation.from_text(f"model: {await aask_model(action.label, max_tokens=50)}")


def model_answers(handlers: Handlers) -> list[Observation]:
    """Each tool that asks the model, called sync and async."""
    tools = [
        ToolDefinition(name="sum_up", description="S.", action_type=Step, executor=summing_up),
        ToolDefinition(name="asum_up", description="S.", action_type=Step, executor=asumming_up),
    ]
    toolset = Toolset(tools, handlers=handlers)
    out = []
    for name in ("sum_up", "asum_up"):
        out.append(toolset.call(name, {"label": "say hi"}))
        out.append(asyncio.run(toolset.acall(name, {"label": "say hi"})))
    return out


def test_a_tool_asks_the_hosts_model_through_on_sample() -> None:
    requests: list[SamplingRequest] = []

    def on_sample(request: SamplingRequest) -> str:
        requests.append(request)
        return "hi"

    async def aon_sample(request: SamplingRequest) -> str:
        await asyncio.sleep(0)
        return "hello"

    assert [o.text for o in model_answers(Handlers(on_sample=on_sample))] == ["model: hi"] * 4
    assert [o.text for o in model_answers(Handlers(on_sample=aon_sample))] == ["model: hello"] * 4
    assert {r.server for r in requests} == {"sum_up", "asum_up"}
    assert requests[0].messages == [{"role": "user", "content": {"type": "text", "text": "say hi"}}]
    assert requests[0].max_tokens == 50


def test_without_a_model_the_tool_gets_an_error_observation_naming_why() -> None:
    def broken(request: SamplingRequest) -> str:
        raise RuntimeError("quota exceeded")

    for observation in model_answers(Handlers()):
        assert observation.is_error and NO_SAMPLING in observation.text
    for observation in model_answers(Handlers(on_sample=broken)):
        assert observation.is_error and "quota exceeded" in observation.text


def test_sync_ask_in_an_async_tool_with_an_async_handler_points_to_aask() -> None:
    async def wrong_tool(action: Step) -> Observation:
        ask("Go?", {"type": "object", "properties": {}})
        return Observation.from_text("unreachable")

    async def on_elicit(question: Question) -> Answer:
        return Answer("accept", {})

    tool = ToolDefinition(name="wrong", description="W.", action_type=Step, executor=wrong_tool)
    toolset = Toolset([tool], handlers=Handlers(on_elicit=on_elicit))
    observation = asyncio.run(toolset.acall("wrong", {}))
    assert observation.is_error
    assert "await aask(" in observation.text


# -- the handlers on the context, for plugins between calls --------------------------------


def test_load_builds_handlers_and_gives_them_to_the_context() -> None:
    seen: list[ToolContext] = []

    class Probe(ToolDefinition[Step, Observation]):
        @classmethod
        def create(cls, context: ToolContext, **params: Any) -> list[ToolDefinition[Any, Any]]:
            seen.append(context)
            return [cls(name="probe", description="P.", action_type=Step, executor=chatty)]

    @hookimpl
    def register_tools(register: Any) -> None:
        register(Probe, name="probe")

    registry = registry_from(types.SimpleNamespace(register_tools=register_tools))
    recorder = Recorder()

    def on_elicit(question: Question) -> Answer:
        return Answer("decline")

    toolset = Toolset.load(
        ["probe"],
        registry=registry,
        on_progress=recorder,
        on_elicit=on_elicit,
        roots=["/srv/data"],
    )
    assert toolset.handlers == Handlers(
        on_progress=recorder, on_elicit=on_elicit, roots=("/srv/data",)
    )
    assert seen[0].handlers is toolset.handlers
    assert handlers_for(seen[0]) is toolset.handlers
    assert handlers_for(ToolContext()) == Handlers()
    # A context's handlers are the base the arguments add to.
    base = ToolContext(handlers=Handlers(on_log=recorder, roots=("/a",)))
    again = Toolset.load(["probe"], registry=registry, context=base, on_progress=recorder)
    assert again.handlers == Handlers(on_progress=recorder, on_log=recorder, roots=("/a",))
    again.call("probe", {})
    assert len(recorder.events) == 3


def test_handlers_merge_as_a_value() -> None:
    """A host's defaults with an override on top: the override's handlers win where it
    has them, roots add up once each, and neither value changes."""
    import dataclasses

    import toolplug

    assert toolplug.Handlers is Handlers
    first, second = Recorder(), Recorder()
    defaults = Handlers(on_progress=first, on_log=first, roots=["/srv/a"])  # type: ignore[arg-type]
    override = Handlers(on_log=second, roots=("/srv/a", "/srv/b"))
    merged = defaults | override
    assert merged == defaults.merged(override)
    assert merged == Handlers(on_progress=first, on_log=second, roots=("/srv/a", "/srv/b"))
    assert defaults.roots == ("/srv/a",)  # a list is kept as a tuple: the value is frozen
    assert override.merged(Handlers()) is override  # nothing added: the same value
    assert Handlers() | Handlers() == Handlers()
    with pytest.raises(dataclasses.FrozenInstanceError):
        defaults.on_log = second  # type: ignore[misc]
    with Toolset(chatty_tools(), handlers=merged) as toolset:
        toolset.call("chatty", {"label": "m"})
    assert [type(e).__name__ for e in first.events] == ["Progress", "Progress"]
    assert [type(e).__name__ for e in second.events] == ["LogMessage"]


def test_load_puts_its_shortcuts_on_top_of_the_given_handlers() -> None:
    class Chatty(ToolDefinition[Step, Observation]):
        @classmethod
        def create(cls, context: ToolContext, **params: Any) -> list[ToolDefinition[Any, Any]]:
            return [cls(name="chatty", description="C.", action_type=Step, executor=chatty)]

    @hookimpl
    def register_tools(register: Any) -> None:
        register(Chatty, name="chatty")

    registry = registry_from(types.SimpleNamespace(register_tools=register_tools))
    host, per_toolset = Recorder(), Recorder()
    given = Handlers(on_progress=host, on_log=host, roots=("/a",))
    with Toolset.load(
        ["chatty"], registry=registry, handlers=given, on_log=per_toolset, roots=["/b"]
    ) as tools:
        assert tools.handlers == given | Handlers(on_log=per_toolset, roots=("/b",))
        tools.call("chatty", {})
    assert [type(e).__name__ for e in host.events] == ["Progress", "Progress"]
    assert [type(e).__name__ for e in per_toolset.events] == ["LogMessage"]
    with Toolset.load(["chatty"], registry=registry, handlers=given) as tools:
        assert tools.handlers is given  # no shortcut: the value given, as it is


def test_notify_answer_and_sample_for_plugins() -> None:
    recorder = Recorder()

    async def on_sample(request: SamplingRequest) -> str:
        return f"{request.server}: {request.messages[0]['content']['text']}"

    request = SamplingRequest(
        "everything", [{"role": "user", "content": {"type": "text", "text": "hi"}}], None, 10
    )

    async def main() -> None:
        handlers = Handlers(on_progress=recorder, on_sample=on_sample)
        await notify(handlers, Progress("srv/tool", None, 1, None, "m"))
        await notify(handlers, LogMessage("srv", None, "info", "to logging"))
        assert await answer(handlers, Question(None, "?", {"type": "object"})) == Answer("decline")
        assert await sample(handlers, request) == "everything: hi"
        with pytest.raises(SamplingError, match=NO_SAMPLING):
            await sample(Handlers(), request)

    asyncio.run(main())
    assert recorder.events == [Progress("srv/tool", None, 1, None, "m")]


def test_calling_gives_handlers_to_a_direct_tool_call() -> None:
    recorder = Recorder()
    (tool, _) = chatty_tools()
    with calling(recorder.handlers(), "chatty", "direct"):
        assert tool.call({}).text == "done"
    assert recorder.events == expected("chatty", "direct")
    assert current.get() is None


def test_the_concepts_pages_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import re
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "concepts.md").read_text()
    section = page.split("## Progress, logs and questions", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    exec(compile(code[1], "docs/concepts.md", "exec", dont_inherit=True), {})
    printed = capsys.readouterr().out
    assert "Progress(tool='copy', call_id='call_1', progress=1, total=2" in printed
    assert printed.count("copied; delete: accept {'delete': False}") == 2
