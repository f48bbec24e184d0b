"""Dispatch: provider tool calls in, results in the same provider's shape out.

The provider responses below are written out in the shapes the services send, and both
they and toolplug's results are checked against the providers' own SDK types. Nothing is
mocked: the tools are real ToolDefinitions with real executors.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import threading
from typing import Any, Literal

# The SDKs are test dependencies: a missing one fails the collection, never skips it.
import anthropic.types as anthropic_types
import mcp.types as mcp_types
import openai.types.chat as openai_chat
import openai.types.responses as openai_responses
import pytest
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import Field, TypeAdapter
from toolplug import (
    Action,
    ImageContent,
    Observation,
    TextContent,
    ToolAnnotations,
    ToolDefinition,
    Toolset,
)
from toolplug.dispatch import (
    DEFAULT_CONCURRENCY,
    DispatchError,
    LatentObservation,
    NameMap,
    ToolCall,
    adispatch,
    dispatch,
    name_map,
    provider_name,
    tool_result_message,
)
from toolplug.formats import render

READ_ONLY = ToolAnnotations(readOnlyHint=True)
WAIT = 5.0  # seconds a test tool waits for another call before giving up (bounds a hang)
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


# -- tools --------------------------------------------------------------------------------


class Echo(Action):
    text: str = Field(description="Text to echo.")


class Add(Action):
    a: int = Field(description="First number.")
    b: int = Field(description="Second number.")


class Empty(Action):
    pass


class Sentiment(Action):
    label: Literal["positive", "negative", "neutral"] = Field(description="The sentiment.")
    confidence: float = Field(ge=0, le=1, description="How sure, 0 to 1.")


def echo(action: Echo) -> Observation:
    return Observation.from_text(action.text)


def add(action: Add) -> Observation:
    return Observation.from_text(str(action.a + action.b))


def boom(action: Empty) -> Observation:
    raise RuntimeError("disk on fire")


def picture(action: Empty) -> Observation:
    return Observation(
        content=[TextContent(text="a red dot"), ImageContent.from_bytes(PNG, "image/png")]
    )


async def aecho(action: Echo) -> Observation:
    await asyncio.sleep(0)
    return Observation.from_text(f"async {action.text}")


def tool(name: str, action: type[Action], executor: Any, **kw: Any) -> ToolDefinition[Any, Any]:
    return ToolDefinition(
        name=name, description=f"The {name} tool.", action_type=action, executor=executor, **kw
    )


@pytest.fixture
def toolset() -> Toolset:
    return Toolset(
        [
            tool("echo", Echo, echo),
            tool("add", Add, add, annotations=READ_ONLY),
            tool("boom", Empty, boom),
            tool("picture", Empty, picture, annotations=READ_ONLY),
            tool("aecho", Echo, aecho),
            tool("github.create_issue", Echo, echo),
            tool("sentiment", Sentiment, None),  # latent: the model produces the result
        ]
    )


def check(adapter_type: Any, value: Any) -> None:
    """Validate value against an SDK type (a pydantic model or a TypedDict), strictly."""
    TypeAdapter(adapter_type).validate_python(value, strict=False)
    if isinstance(value, dict) and hasattr(adapter_type, "__required_keys__"):
        unknown = set(value) - set(adapter_type.__annotations__)
        assert not unknown, f"keys the SDK type does not have: {unknown}"


# -- recorded provider responses -----------------------------------------------------------

CHAT_COMPLETION = {
    "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    "object": "chat.completion",
    "created": 1741569952,
    "model": "gpt-4.1-2025-04-14",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "annotations": [],
                "tool_calls": [
                    {
                        "id": "call_Rk5sBCbMvDyT2j1sQ2F4gT8W",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                    },
                    {
                        "id": "call_d1fE6rW5qHLeIhEmM8NcaBvX",
                        "type": "function",
                        "function": {"name": "echo", "arguments": '{"text": "hello"}'},
                    },
                ],
            },
            "logprobs": None,
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 82, "completion_tokens": 51, "total_tokens": 133},
    "service_tier": "default",
    "system_fingerprint": "fp_b8bc95a0ac",
}

RESPONSES_OUTPUT = [
    {
        "id": "rs_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b",
        "type": "reasoning",
        "summary": [],
    },
    {
        "id": "fc_67ccd3f0c8f08190ad5b3f3b6b9c4e1f",
        "type": "function_call",
        "call_id": "call_12xVrMcbiA3OY6pAyEWcPAM3",
        "name": "picture",
        "arguments": "{}",
        "status": "completed",
    },
    {
        "id": "fc_67ccd3f0c8f08190ad5b3f3b6b9c4e20",
        "type": "function_call",
        "call_id": "call_Wv5vG9jV5zbPBbvqbWSRCl4G",
        "name": "echo",
        "arguments": '{"text": "done"}',
        "status": "completed",
    },
]

ANTHROPIC_MESSAGE = {
    "id": "msg_01Aq9w938a90dw8q",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [
        {"type": "text", "text": "I'll run both."},
        {
            "type": "tool_use",
            "id": "toolu_01A09q90qw90lq917835lq9",
            "name": "echo",
            "input": {"text": "hi"},
        },
        {"type": "tool_use", "id": "toolu_01B7tuvQ6kXbHSfJ2Z3bMDnK", "name": "boom", "input": {}},
        {
            "type": "tool_use",
            "id": "toolu_01C4xWq1RPQ2bnb4R3x9M1eD",
            "name": "picture",
            "input": {},
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 472, "output_tokens": 91},
}

MCP_PARAMS = {"name": "add", "arguments": {"a": 40, "b": 2}}


# -- one format at a time -------------------------------------------------------------------


def test_recordings_are_real_shapes() -> None:
    openai_chat.ChatCompletion.model_validate(CHAT_COMPLETION)
    for item in RESPONSES_OUTPUT:
        TypeAdapter(openai_responses.ResponseOutputItem).validate_python(item)
    anthropic_types.Message.model_validate(ANTHROPIC_MESSAGE)
    mcp_types.CallToolRequestParams.model_validate(MCP_PARAMS)


def test_openai_chat_completions(toolset: Toolset) -> None:
    message = CHAT_COMPLETION["choices"][0]["message"]  # type: ignore[index]
    for given in (message, message["tool_calls"], CHAT_COMPLETION):
        results = toolset.dispatch(given)
        for result in results:
            check(openai_chat.ChatCompletionToolMessageParam, result)
        assert results == [
            {"role": "tool", "tool_call_id": "call_Rk5sBCbMvDyT2j1sQ2F4gT8W", "content": "5"},
            {"role": "tool", "tool_call_id": "call_d1fE6rW5qHLeIhEmM8NcaBvX", "content": "hello"},
        ]


def test_openai_sdk_objects(toolset: Toolset) -> None:
    completion = openai_chat.ChatCompletion.model_validate(CHAT_COMPLETION)
    message = completion.choices[0].message
    assert dispatch(toolset, message) == dispatch(toolset, message.tool_calls)
    assert [r["content"] for r in dispatch(toolset, message.tool_calls)] == ["5", "hello"]


def test_openai_message_without_calls(toolset: Toolset) -> None:
    assert dispatch(toolset, {"role": "assistant", "content": "All done."}) == []
    assert dispatch(toolset, None) == []
    assert dispatch(toolset, []) == []


def test_responses(toolset: Toolset) -> None:
    results = dispatch(toolset, RESPONSES_OUTPUT)
    for result in results:
        check(FunctionCallOutput, result)
    assert [r["call_id"] for r in results] == [
        "call_12xVrMcbiA3OY6pAyEWcPAM3",
        "call_Wv5vG9jV5zbPBbvqbWSRCl4G",
    ]
    text, image = results[0]["output"]
    assert text == {"type": "input_text", "text": "a red dot"}
    assert image["type"] == "input_image"
    assert image["image_url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert results[1]["output"] == "done"
    assert dispatch(toolset, {"object": "response", "output": RESPONSES_OUTPUT}) == results


def test_responses_sdk_objects(toolset: Toolset) -> None:
    items = [
        TypeAdapter(openai_responses.ResponseOutputItem).validate_python(i)
        for i in RESPONSES_OUTPUT
    ]
    assert dispatch(toolset, items) == dispatch(toolset, RESPONSES_OUTPUT)


def test_anthropic(toolset: Toolset) -> None:
    results = dispatch(toolset, ANTHROPIC_MESSAGE["content"])
    for result in results:
        check(anthropic_types.ToolResultBlockParam, result)
    assert [r["tool_use_id"] for r in results] == [
        "toolu_01A09q90qw90lq917835lq9",
        "toolu_01B7tuvQ6kXbHSfJ2Z3bMDnK",
        "toolu_01C4xWq1RPQ2bnb4R3x9M1eD",
    ]
    assert results[0]["content"] == [{"type": "text", "text": "hi"}]
    assert "is_error" not in results[0]
    assert results[1]["is_error"] is True
    assert "RuntimeError: disk on fire" in results[1]["content"][0]["text"]
    image = results[2]["content"][1]
    assert image == {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": "image/png",
            "data": base64.b64encode(PNG).decode(),
        },
    }
    message = tool_result_message(results)
    check(anthropic_types.MessageParam, message)
    assert message["role"] == "user" and message["content"] == results


def test_anthropic_sdk_message(toolset: Toolset) -> None:
    message = anthropic_types.Message.model_validate(ANTHROPIC_MESSAGE)
    assert dispatch(toolset, message) == dispatch(toolset, ANTHROPIC_MESSAGE)
    assert len(dispatch(toolset, message.content)) == 3


def test_mcp(toolset: Toolset) -> None:
    (result,) = dispatch(toolset, MCP_PARAMS)
    parsed = mcp_types.CallToolResult.model_validate(result)
    assert parsed.is_error is False
    assert result["content"] == [{"type": "text", "text": "42"}]
    request = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": MCP_PARAMS}
    assert dispatch(toolset, request) == [result]
    (image_result,) = dispatch(toolset, {"name": "picture", "arguments": {}})
    assert mcp_types.CallToolResult.model_validate(image_result).content[1].type == "image"
    (error,) = dispatch(toolset, {"name": "boom"})
    assert mcp_types.CallToolResult.model_validate(error).is_error is True


def test_toolcalls_give_pairs(toolset: Toolset) -> None:
    calls = [ToolCall("1", "add", {"a": 1, "b": 2}), ToolCall("2", "echo", '{"text": "x"}')]
    results = dispatch(toolset, calls)
    assert [(call.id, obs.text) for call, obs in results] == [("1", "3"), ("2", "x")]
    assert all(isinstance(obs, Observation) for _, obs in results)
    # A ToolCall fits every format: ask for the one to answer in.
    assert dispatch(toolset, calls, format="openai")[0] == {
        "role": "tool",
        "tool_call_id": "1",
        "content": "3",
    }


def test_chat_completions_get_a_note_for_images(toolset: Toolset) -> None:
    calls = [
        {"id": "call_1", "type": "function", "function": {"name": "picture", "arguments": "{}"}}
    ]
    (result,) = dispatch(toolset, calls)
    check(openai_chat.ChatCompletionToolMessageParam, result)
    assert result["content"].startswith("a red dot\n[image image/png,")
    assert "not shown here]" in result["content"]


# -- failures stay with their call ------------------------------------------------------------


def test_a_mixed_batch(toolset: Toolset) -> None:
    def call(i: int, name: str, arguments: str) -> dict[str, Any]:
        return {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }

    batch = [
        call(0, "add", '{"a": 1, "b": 1}'),
        call(1, "ad", '{"a": 1, "b": 1}'),
        call(2, "echo", '{"text": "unterminated'),
        call(3, "boom", "{}"),
        call(4, "add", '{"a": "one", "b": 1}'),
        call(5, "echo", '{"text": "still here"}'),
    ]
    results = dispatch(toolset, batch)
    assert [r["tool_call_id"] for r in results] == [f"call_{i}" for i in range(6)]
    texts = [r["content"] for r in results]
    assert texts[0] == "2"
    assert texts[1].startswith("There is no tool named 'ad'. Did you mean 'add'?")
    assert "Available tools: echo, add, boom" in texts[1]
    assert "not valid JSON" in texts[2]
    assert texts[3] == "Tool 'boom' failed: RuntimeError: disk on fire"
    assert "a: Input should be a valid integer" in texts[4]
    assert texts[5] == "still here"


def test_unknown_tools_are_listed_by_the_names_providers_see(toolset: Toolset) -> None:
    (result,) = dispatch(toolset, [{"type": "tool_use", "id": "t1", "name": "nope", "input": {}}])
    assert "github_create_issue" in result["content"][0]["text"]
    assert result["is_error"] is True


def test_shapes_dispatch_cannot_read(toolset: Toolset) -> None:
    with pytest.raises(DispatchError, match="not a tool call of any known format"):
        dispatch(toolset, [{"arguments": "{}"}])
    with pytest.raises(DispatchError, match="mix two formats"):
        dispatch(toolset, [*CHAT_COMPLETION["choices"][0]["message"]["tool_calls"], MCP_PARAMS])  # type: ignore[index]
    with pytest.raises(DispatchError, match="not anthropic"):
        dispatch(toolset, CHAT_COMPLETION, format="anthropic")
    with pytest.raises(DispatchError, match="has no 'id'"):
        dispatch(toolset, [{"type": "tool_use", "name": "echo", "input": {}}])
    with pytest.raises(ValueError, match="max_concurrency"):
        dispatch(toolset, [], max_concurrency=0)


def test_async_tool_from_sync_dispatch(toolset: Toolset) -> None:
    (result,) = dispatch(toolset, [ToolCall("1", "aecho", {"text": "x"})], format="mcp")
    assert result["content"][0]["text"] == "async x"


async def test_adispatch(toolset: Toolset) -> None:
    results = await toolset.adispatch(ANTHROPIC_MESSAGE)
    assert [r["content"][0]["text"] for r in results][:1] == ["hi"]
    assert results[1]["is_error"] is True
    (pair,) = await adispatch(toolset, [ToolCall("1", "aecho", {"text": "y"})])
    assert pair[1].text == "async y"


# -- latent tools --------------------------------------------------------------------------


def test_latent_tools_are_validated_not_run(toolset: Toolset) -> None:
    good = ToolCall("1", "sentiment", '{"label": "positive", "confidence": 0.9}')
    bad = ToolCall("2", "sentiment", '{"label": "ecstatic", "confidence": 2}')
    (_, obs), (_, error) = dispatch(toolset, [good, bad])
    assert isinstance(obs, LatentObservation)
    assert obs.data == {"label": "positive", "confidence": 0.9}
    assert json.loads(obs.text) == obs.data
    assert render(obs, "mcp")["structuredContent"] == obs.data
    assert error.is_error and "label" in error.text and "confidence" in error.text


# -- names providers reject --------------------------------------------------------------------

PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_provider_names() -> None:
    assert provider_name("echo") == "echo"
    assert provider_name("github.create_issue") == "github_create_issue"
    assert provider_name("server/x:y") == "server_x_y"
    long = "mcp." + "very_long_server_name." * 4 + "tool"
    assert len(long) > 64
    mapped = provider_name(long)
    assert PROVIDER_NAME.match(mapped) and len(mapped) == 64
    assert mapped != provider_name(long + "2")  # a hash of the whole name tells them apart


def test_name_map_settles_collisions_and_reverses() -> None:
    names = ["a_b", "a.b", "a:b", "x." + "y" * 70, "x:" + "y" * 70, "plain"]
    forward = NameMap(names)
    external = [forward.external(n) for n in names]
    assert all(PROVIDER_NAME.match(e) for e in external), external
    assert len(set(external)) == len(names)
    assert forward.external("a_b") == "a_b" and forward.external("plain") == "plain"
    assert [forward.internal(e) for e in external] == names
    assert forward.internal("missing") is None
    # The same set in another order maps the same way.
    backward = NameMap(reversed(names))
    assert [backward.external(n) for n in names] == external


def test_dispatch_maps_names_back(toolset: Toolset) -> None:
    exported = name_map(toolset).external("github.create_issue")
    assert exported == "github_create_issue"
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": exported, "arguments": '{"text": "filed"}'},
    }
    assert dispatch(toolset, [call])[0]["content"] == "filed"
    # The tool's own name works too (MCP allows dots).
    assert (
        dispatch(toolset, {"name": "github.create_issue", "arguments": {"text": "ok"}})[0][
            "isError"
        ]
        is False
    )


# -- concurrency, shown without timing ----------------------------------------------------------


class Meet(Action):
    path: str = Field(default="", description="What the call touches.")


class Meeting:
    """An executor whose calls each wait (boundedly) for the other to arrive.

    With ``barrier`` the calls pass only when they run at the same time. With ``wait``
    the first call gives the others every chance to start before it ends, and ``peak``
    records how many calls ever ran at once.
    """

    def __init__(self, parties: int = 2, barrier: bool = True) -> None:
        self.barrier = threading.Barrier(parties, timeout=WAIT) if barrier else None
        self.others = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0
        self.order: list[str] = []

    def __call__(self, action: Meet) -> Observation:
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
            if self.running > 1:
                self.others.set()
            self.order.append(f"start {action.path}")
        try:
            if self.barrier is not None:
                self.barrier.wait()
            else:
                self.others.wait(0.2)  # bounded: in order, nobody else comes
            return Observation.from_text(f"met at {action.path}")
        finally:
            with self.lock:
                self.running -= 1
                self.order.append(f"end {action.path}")


class PathTool(ToolDefinition[Meet, Observation]):
    """A tool that says what each call touches: its path."""

    def touches(self, action: Meet) -> frozenset[str] | None:
        return frozenset({action.path})


def meet_calls(name: str, *paths: str) -> list[ToolCall]:
    return [ToolCall(str(i), name, {"path": p}) for i, p in enumerate(paths)]


def test_read_only_calls_run_concurrently() -> None:
    meeting = Meeting()
    toolset = Toolset([tool("meet", Meet, meeting, annotations=READ_ONLY)])
    results = dispatch(toolset, meet_calls("meet", "a", "b"))
    assert [obs.text for _, obs in results] == ["met at a", "met at b"]
    assert meeting.peak == 2


async def test_async_calls_run_concurrently() -> None:
    arrived: list[asyncio.Event] = [asyncio.Event(), asyncio.Event()]

    async def meet(action: Meet) -> Observation:
        mine, other = (0, 1) if action.path == "a" else (1, 0)
        arrived[mine].set()
        await asyncio.wait_for(arrived[other].wait(), WAIT)
        return Observation.from_text(f"met at {action.path}")

    toolset = Toolset([tool("meet", Meet, meet, annotations=READ_ONLY)])
    results = await adispatch(toolset, meet_calls("meet", "a", "b"))
    assert [obs.text for _, obs in results] == ["met at a", "met at b"]


def test_calls_that_change_things_run_in_order() -> None:
    meeting = Meeting(barrier=False)
    toolset = Toolset([tool("meet", Meet, meeting)])  # not read-only: touches unknown
    results = dispatch(toolset, meet_calls("meet", "a", "b"), allow_parallel=True)
    assert [obs.text for _, obs in results] == ["met at a", "met at b"]
    assert meeting.peak == 1
    assert meeting.order == ["start a", "end a", "start b", "end b"]


def test_touches_decides_with_allow_parallel() -> None:
    def run(paths: tuple[str, ...], allow: bool) -> Meeting:
        meeting = Meeting(barrier=False)
        toolset = Toolset(
            [PathTool(name="edit", description="Edit.", action_type=Meet, executor=meeting)]
        )
        dispatch(toolset, meet_calls("edit", *paths), allow_parallel=allow)
        return meeting

    assert run(("a", "b"), allow=True).peak == 2  # different paths: side by side
    assert run(("a", "a"), allow=True).order == ["start a", "end a", "start a", "end a"]
    assert run(("a", "b"), allow=False).peak == 1  # the host did not allow it


def test_max_concurrency_bounds_the_batch() -> None:
    meeting = Meeting(parties=2)
    toolset = Toolset([tool("meet", Meet, meeting, annotations=READ_ONLY)])
    results = dispatch(toolset, meet_calls("meet", "a", "b", "c", "d"), max_concurrency=2)
    assert [obs.text for _, obs in results] == [f"met at {p}" for p in "abcd"]
    assert meeting.peak == 2


def test_results_keep_call_order_when_later_calls_finish_first() -> None:
    second_done = threading.Event()

    def slow_first(action: Meet) -> Observation:
        if action.path == "first":
            assert second_done.wait(WAIT), "the second call never ran"
        else:
            second_done.set()
        return Observation.from_text(action.path)

    toolset = Toolset([tool("t", Meet, slow_first, annotations=READ_ONLY)])
    results = dispatch(toolset, meet_calls("t", "first", "second"), format="openai")
    assert [r["content"] for r in results] == ["first", "second"]
    assert [r["tool_call_id"] for r in results] == ["0", "1"]


async def test_adispatch_runs_sync_tools_side_by_side_in_threads() -> None:
    meeting = Meeting()
    toolset = Toolset([tool("meet", Meet, meeting, annotations=READ_ONLY)])
    results = await adispatch(toolset, meet_calls("meet", "a", "b"))
    assert [obs.text for _, obs in results] == ["met at a", "met at b"]
    assert meeting.peak == 2


# -- read-only calls always run side by side ---------------------------------------------------


class Rendezvous:
    """A read-only executor: ``meet:*`` calls wait (boundedly) for each other; any other
    call answers at once, the way a cache does. Each call records its thread."""

    def __init__(self, how: str, parties: int = 2) -> None:
        self.how = how
        self.barrier = threading.Barrier(parties, timeout=WAIT)
        self.arrived = {"meet:a": threading.Event(), "meet:b": threading.Event()}
        self.threads: list[tuple[str, str]] = []

    def __call__(self, action: Meet) -> Observation:
        self.threads.append((action.path, threading.current_thread().name))
        if not action.path.startswith("meet:"):
            return Observation.from_text(f"cached {action.path}")
        if self.how == "barrier":
            self.barrier.wait()  # raises BrokenBarrierError if the other never comes
        else:  # each sets its own event and waits for the other's
            self.arrived[action.path].set()
            other = "meet:b" if action.path == "meet:a" else "meet:a"
            if not self.arrived[other].wait(WAIT):
                raise TimeoutError(f"{action.path} waited in vain for {other}")
            self.arrived[other].clear()
        return Observation.from_text(f"met at {action.path}")


BATCH_ORDERS = [
    ("meet:a", "meet:b"),
    ("x", "meet:a", "meet:b"),
    ("meet:a", "x", "meet:b"),
    ("meet:a", "meet:b", "x"),
    ("x", "y", "meet:a", "z", "meet:b", "w"),
]


def texts(results: list[Any]) -> list[str]:
    return [obs.text for _, obs in results]


def expected(paths: tuple[str, ...]) -> list[str]:
    return [f"met at {p}" if p.startswith("meet:") else f"cached {p}" for p in paths]


@pytest.mark.parametrize("how", ["barrier", "event"])
def test_read_only_calls_that_wait_for_each_other_meet_in_every_batch(how: str) -> None:
    rendezvous = Rendezvous(how)
    toolset = Toolset([tool("lookup", Meet, rendezvous, annotations=READ_ONLY)])
    quick = ("q1", "q2", "q3", "q4")
    # Quick batches (the tool answers from its cache) before and between the slow ones:
    # how fast a tool was last time must not decide whether its next calls overlap.
    for paths in [quick, *BATCH_ORDERS, quick, *reversed(BATCH_ORDERS)]:
        assert texts(dispatch(toolset, meet_calls("lookup", *paths))) == expected(paths)


@pytest.mark.parametrize("how", ["barrier", "event"])
async def test_adispatch_read_only_calls_that_wait_for_each_other_meet(how: str) -> None:
    rendezvous = Rendezvous(how)
    toolset = Toolset([tool("lookup", Meet, rendezvous, annotations=READ_ONLY)])
    for paths in [("q1", "q2"), *BATCH_ORDERS, ("q1", "q2"), *BATCH_ORDERS]:
        results = await adispatch(toolset, meet_calls("lookup", *paths))
        assert texts(results) == expected(paths)


async def test_adispatch_async_tool_fast_then_slow_still_overlaps() -> None:
    arrived = {"meet:a": asyncio.Event(), "meet:b": asyncio.Event()}

    async def lookup(action: Meet) -> Observation:
        if not action.path.startswith("meet:"):
            return Observation.from_text(f"cached {action.path}")
        arrived[action.path].set()
        other = "meet:b" if action.path == "meet:a" else "meet:a"
        await asyncio.wait_for(arrived[other].wait(), WAIT)
        return Observation.from_text(f"met at {action.path}")

    toolset = Toolset([tool("lookup", Meet, lookup, annotations=READ_ONLY)])
    for paths in BATCH_ORDERS:
        for event in arrived.values():
            event.clear()
        assert texts(await adispatch(toolset, meet_calls("lookup", *paths))) == expected(paths)


def test_as_many_calls_as_max_concurrency_meet() -> None:
    # Every call of the batch waits for all the others: each needs a thread of its own.
    parties = DEFAULT_CONCURRENCY
    paths = tuple(f"meet:{i}" for i in range(parties))
    rendezvous = Rendezvous("barrier", parties)
    toolset = Toolset([tool("lookup", Meet, rendezvous, annotations=READ_ONLY)])
    assert texts(dispatch(toolset, meet_calls("lookup", *paths))) == expected(paths)
    assert texts(dispatch(toolset, meet_calls("lookup", *paths, "x"))) == expected((*paths, "x"))


async def test_adispatch_as_many_sync_calls_as_max_concurrency_meet() -> None:
    # More than the event loop's default thread pool holds on a small machine.
    parties = DEFAULT_CONCURRENCY
    paths = tuple(f"meet:{i}" for i in range(parties))
    rendezvous = Rendezvous("barrier", parties)
    toolset = Toolset([tool("lookup", Meet, rendezvous, annotations=READ_ONLY)])
    assert texts(await adispatch(toolset, meet_calls("lookup", *paths))) == expected(paths)


def test_a_batch_after_a_slow_batch_starts_in_the_calling_thread() -> None:
    rendezvous = Rendezvous("barrier")
    toolset = Toolset([tool("lookup", Meet, rendezvous, annotations=READ_ONLY)])
    assert texts(dispatch(toolset, meet_calls("lookup", "meet:a", "meet:b"))) == expected(
        ("meet:a", "meet:b")
    )
    for paths in [("x", "y", "z"), ("meet:a", "meet:b")]:
        rendezvous.threads.clear()
        assert texts(dispatch(toolset, meet_calls("lookup", *paths))) == expected(paths)
        # The calling thread runs the first call itself: no thread is waited for.
        assert rendezvous.threads[0] == (paths[0], threading.current_thread().name)
    # The second call of the last batch waited for company: a helper thread ran it.
    assert rendezvous.threads[1][1] != threading.current_thread().name


@pytest.mark.parametrize("asynchronous", [False, True])
def test_max_concurrency_one_runs_read_only_calls_in_order(asynchronous: bool) -> None:
    meeting = Meeting(barrier=False)
    toolset = Toolset([tool("meet", Meet, meeting, annotations=READ_ONLY)])
    calls = meet_calls("meet", "a", "b", "c")
    if asynchronous:
        results = asyncio.run(adispatch(toolset, calls, max_concurrency=1))
    else:
        results = dispatch(toolset, calls, max_concurrency=1)
    assert texts(results) == ["met at a", "met at b", "met at c"]
    assert meeting.order == ["start a", "end a", "start b", "end b", "start c", "end c"]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_calls_on_one_path_wait_while_others_meet(asynchronous: bool) -> None:
    # Calls 0 and 1 touch "a": 1 starts only after 0 ends. Call 2 touches "b" and must
    # overlap call 0 (they meet); call 3 touches "b" too and follows call 2.
    barrier = threading.Barrier(2, timeout=WAIT)
    order: list[str] = []
    lock = threading.Lock()

    def edit(action: Meet) -> Observation:
        step = action.path.split(":")[1]
        with lock:
            order.append(f"start {action.path}")
        if step == "1":
            barrier.wait()
        with lock:
            order.append(f"end {action.path}")
        return Observation.from_text(action.path)

    paths = ["a:1", "a:2", "b:1", "b:2"]
    calls = [ToolCall(str(i), "edit", {"path": p}) for i, p in enumerate(paths)]
    toolset = Toolset(
        [SameFileTool(name="edit", description="Edit.", action_type=Meet, executor=edit)]
    )
    if asynchronous:
        results = asyncio.run(adispatch(toolset, calls, allow_parallel=True))
    else:
        results = dispatch(toolset, calls, allow_parallel=True)
    assert texts(results) == ["a:1", "a:2", "b:1", "b:2"]
    assert order.index("end a:1") < order.index("start a:2")
    assert order.index("end b:1") < order.index("start b:2")


class SameFileTool(ToolDefinition[Meet, Observation]):
    """Each call touches the file named before the colon of its path."""

    def touches(self, action: Meet) -> frozenset[str] | None:
        return frozenset({action.path.split(":")[0]})
