"""The core against hostile or unlucky input: it never raises, and a broken plugin is skipped.

Each test drives the real thing: tools called through ``call``/``acall``/dispatch, plugins
laid out as installed distributions (``install_dist``), and the ``toolplug`` command in a
subprocess. See docs/concepts.md, "Guarantees".
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from core_test_tools import GOOD, make_echo_tool
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import Field
from toolplug import (
    Action,
    ComposeError,
    DispatchError,
    Observation,
    PolicyError,
    TextContent,
    ToolConflictError,
    ToolDefinition,
    ToolRegistry,
    Toolset,
    printable,
    safe_text,
)
from toolplug.testing import wait_until

# Deeper than any supported Python parses (3.13 reads 1,000 levels that 3.10 cannot),
# and short enough for one command-line argument (at most 128 KiB).
DEEP_JSON = '{"text": ' + "[" * 50_000 + "]" * 50_000 + "}"
LONG_INT_JSON = '{"text": ' + "7" * 5000 + "}"


def _deep(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def _cli(site: Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "toolplug", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=site,
        timeout=120,
        **kwargs,
    )


@pytest.fixture
def shout_site(install_dist: Any) -> Path:
    """A good plugin: the entry point 'loud' registers the tool 'shout'."""
    info = install_dist("toolplug-loud", "1.0.0", {"loud": "tp_test_loud"}, {"tp_test_loud": GOOD})
    return Path(info).parent


# -- arguments too deep or too long to read ------------------------------------------------


class Anything(Action):
    payload: Any = Field(description="Any JSON.")


def _async_echo() -> ToolDefinition[Any, Any]:
    async def run(action: Any) -> Observation:
        return Observation.from_text(action.text)

    tool = make_echo_tool()
    return ToolDefinition(name="aecho", description="Echo.", action_type=tool.action_type,
                          executor=run)  # fmt: skip


def _unreadable_cases() -> list[tuple[str, Any, str]]:
    return [
        ("deep JSON text", DEEP_JSON, "nested too deeply"),
        ("deep JSON bytes", DEEP_JSON.encode(), "nested too deeply"),
        ("long integer in JSON", LONG_INT_JSON, "more digits than can be read"),
        ("deep data", {"text": _deep(100_000)}, "too large to show"),
        ("long integer", {"text": 10**5000}, "too large to show"),
        ("JSON encoded twice, deep", json.dumps(DEEP_JSON), "nested too deeply"),
    ]


@pytest.mark.parametrize(("label", "arguments", "expected"), _unreadable_cases())
def test_arguments_too_deep_or_too_long_are_error_observations(
    label: str, arguments: Any, expected: str
) -> None:
    for tool in (make_echo_tool(), _async_echo()):
        observations = [tool.call(arguments), asyncio.run(tool.acall(arguments))]
        for observation in observations:
            assert observation.is_error, (label, observation.text)
            assert expected in observation.text, observation.text
            assert "RecursionError" not in observation.text
            assert len(observation.text) < 2000


def test_unreadable_arguments_through_dispatch_and_a_latent_tool() -> None:
    latent = ToolDefinition(name="answer", description="The answer.", action_type=Anything)
    with Toolset([make_echo_tool(), latent]) as tools:
        calls = [
            {"id": "1", "type": "function", "function": {"name": n, "arguments": a}}
            for n in ("echo", "answer")
            for a in (DEEP_JSON.replace("text", "payload"), LONG_INT_JSON)
        ]
        results = tools.dispatch(calls)
        assert [r["tool_call_id"] for r in results] == ["1"] * 4
        assert all("read" in r["content"] and "Traceback" not in r["content"] for r in results)
        # A latent tool that accepts any JSON: data too deep to serialise is an error too.
        (deep,) = tools.dispatch([{"name": "answer", "arguments": {"payload": _deep(100_000)}}])
        assert deep["isError"] and "too deeply" in deep["content"][0]["text"]


def test_a_tool_with_its_own_parse_action_gets_the_same_message() -> None:
    class OwnParse(ToolDefinition[Any, Any]):
        def parse_action(self, arguments: Any) -> tuple[Any, list[str]]:
            json.loads(arguments)  # a plugin's own reading, with no guard of its own
            raise AssertionError("not reached")

    tool = OwnParse(name="own", description="d", action_type=Anything, executor=lambda a: "x")
    assert "nested too deeply" in tool.call(DEEP_JSON).text
    assert "more digits" in asyncio.run(tool.acall(LONG_INT_JSON)).text


@pytest.mark.parametrize("arguments", [DEEP_JSON, LONG_INT_JSON])
def test_the_cli_refuses_unreadable_arguments_without_a_traceback(
    shout_site: Path, arguments: str
) -> None:
    for out in (
        _cli(shout_site, "call", "shout", arguments),
        _cli(shout_site, "call", "shout", "-", input=arguments),
    ):
        assert out.returncode == 2, out.stderr
        assert "Traceback" not in out.stderr
        assert out.stderr.startswith("Error: ARGUMENTS cannot be read: The arguments ")


# -- plugins that exit or interrupt while loading -------------------------------------------

EXITS_AT_IMPORT = "import sys\nsys.exit(7)\n"
INTERRUPTS_AT_IMPORT = "raise KeyboardInterrupt('from the plugin')\n"
BASE_AT_IMPORT = "class Odd(BaseException):\n    pass\nraise Odd('odd')\n"
EXITS_IN_HOOK = """
import sys
from toolplug import hookimpl

@hookimpl
def register_tools(register):
    sys.exit(3)
"""
INTERRUPTS_IN_FORMATS = """
from toolplug import hookimpl

@hookimpl
def register_formats(register):
    raise KeyboardInterrupt
"""
EXITS_IN_COMMANDS = """
import sys
from toolplug import hookimpl

@hookimpl
def register_tools(register):
    pass

@hookimpl
def register_commands(cli):
    sys.exit(5)
"""
BROKEN = {
    "exits": (EXITS_AT_IMPORT, "SystemExit: 7"),
    "interrupts": (INTERRUPTS_AT_IMPORT, "KeyboardInterrupt: from the plugin"),
    "odd": (BASE_AT_IMPORT, "Odd: odd"),
    "hook_exits": (EXITS_IN_HOOK, "SystemExit: 3"),
    "formats_interrupt": (INTERRUPTS_IN_FORMATS, "KeyboardInterrupt"),
}


@pytest.fixture
def broken_site(install_dist: Any, shout_site: Path) -> Path:
    for name, (code, _) in BROKEN.items():
        install_dist(
            f"toolplug-{name}", "0.1.0", {name: f"tp_test_{name}"}, {f"tp_test_{name}": code}
        )
    install_dist(
        "toolplug-cmd", "0.1.0", {"cmd": "tp_test_cmd"}, {"tp_test_cmd": EXITS_IN_COMMANDS}
    )
    return shout_site


def test_a_plugin_that_exits_or_interrupts_is_reported_and_skipped(broken_site: Path) -> None:
    registry = ToolRegistry.from_plugins()
    reports = {r.name: r for r in registry.reports}
    for name, (_, error) in BROKEN.items():
        assert reports[name].status == "broken", name
        assert reports[name].error and reports[name].error.startswith(error), reports[name]
    assert reports["loud"].status == "ok"
    with Toolset.load() as tools:
        assert tools.call("shout", {"text": "still here"}).text == "STILL HERE"


def test_the_cli_skips_a_plugin_that_exits_or_interrupts(broken_site: Path) -> None:
    checked = _cli(broken_site, "plugins", "--check", "--json")
    assert checked.returncode == 1, checked.stderr
    status = {p["name"]: p for p in json.loads(checked.stdout)}
    assert {n for n, p in status.items() if p["status"] == "broken"} >= set(BROKEN)
    assert status["loud"]["status"] == "ok"
    listed = _cli(broken_site, "tools")
    assert listed.returncode == 0, listed.stderr
    assert "\nshout  [toolplug-loud 1.0.0]" in "\n" + listed.stdout
    assert "plugin exits is broken: SystemExit: 7" in listed.stderr
    called = _cli(broken_site, "call", "shout", '{"text": "hi"}')
    assert (called.returncode, called.stdout) == (0, "HI\n"), called.stderr
    # A plugin command that exits while being added: the other commands still run.
    helped = _cli(broken_site, "nonexistent-command")
    assert "plugin 'cmd' could not add commands: SystemExit: 5" in helped.stderr
    assert "Traceback" not in helped.stderr


SLOW_IMPORT = """
import pathlib, time
pathlib.Path({marker!r}).write_text("importing")
time.sleep(120)
"""


@pytest.mark.parametrize(
    ("command", "stopped"),
    [
        (("plugins", "--check"), lambda out: out.returncode == -signal.SIGINT),
        (("tools",), lambda out: out.returncode == 1 and "Aborted!" in out.stderr),
    ],
)
def test_a_real_ctrl_c_while_loading_still_stops_the_command(
    install_dist: Any, shout_site: Path, tmp_path: Path, command: tuple[str, ...], stopped: Any
) -> None:
    marker = tmp_path / "importing"
    code = SLOW_IMPORT.format(marker=str(marker))
    install_dist("toolplug-slow", "0.1.0", {"slow": "tp_test_slow"}, {"tp_test_slow": code})
    env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
    env["PYTHONPATH"] = os.pathsep.join([str(shout_site), env.get("PYTHONPATH", "")])
    # Ctrl-C as a terminal delivers it, even where this test run ignores SIGINT (a
    # background job of a script does, and its children inherit that).
    interruptible = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler);"
        " sys.argv[0] = 'toolplug'; runpy.run_module('toolplug', run_name='__main__')"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", interruptible, *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )

    def imported() -> bool:
        assert process.poll() is None, process.communicate()
        return marker.exists()

    try:
        wait_until(imported, timeout=60, what="the slow plugin to be imported")
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    out = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    assert stopped(out), (out.returncode, stdout, stderr)
    assert "slow" not in stdout, "the interrupt was taken for the plugin's failure"


def test_a_plugins_keyboard_interrupt_in_another_thread_is_its_own(
    install_dist: Any, shout_site: Path
) -> None:
    install_dist(
        "toolplug-interrupts",
        "0.1.0",
        {"interrupts": "tp_test_interrupts"},
        {"tp_test_interrupts": INTERRUPTS_AT_IMPORT},
    )

    async def load() -> ToolRegistry:
        return await asyncio.to_thread(ToolRegistry.from_plugins)

    reports = {r.name: r for r in asyncio.run(load()).reports}
    assert reports["interrupts"].status == "broken" and reports["loud"].status == "ok"


# -- output is always valid UTF-8 -----------------------------------------------------------


def test_text_content_is_always_valid_utf8() -> None:
    assert TextContent(text="a\ud800b").text == "a\\ud800b"
    assert TextContent(text="caf\udce9.txt").text == "caf\\xe9.txt"
    assert Observation.from_text("\udcff").text == "\\xff"
    assert TextContent(text="héllo ✓").text == "héllo ✓"
    assert printable("ascii") == "ascii"
    with Toolset([make_echo_tool()]) as tools:
        (result,) = tools.dispatch([{"name": "echo", "arguments": {"text": "\ud800"}}])
    # The text the model sees encodes (a tool's structured data is its own business).
    json.dumps(result["content"], ensure_ascii=False).encode("utf-8")


def test_the_cli_prints_lone_surrogates_escaped(shout_site: Path) -> None:
    out = _cli(shout_site, "call", "shout", '{"text": "x\\ud800"}')
    assert (out.returncode, out.stdout) == (0, "X\\ud800\n"), out.stderr
    out = _cli(shout_site, "call", "shout", "--json", '{"text": "x\\ud800"}')
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["content"][0]["text"] == "X\\ud800"
    unknown = _cli(shout_site, "call", "sh\udcffout", "{}", errors="surrogateescape")
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr


# -- control characters: shown escaped, never acted on by a terminal ----------------------

#: What a file name or a file's contents can hold that a terminal acts on.
HOSTILE = "a\x1b[31mred\x1b]0;title\x07\x1b]8;;http://x\x1b\\\u202etxt.exe\x85\x9b2J\x7f\x00\rZ"


def test_safe_text_escapes_every_control_and_keeps_content_lines() -> None:
    shown = safe_text(HOSTILE + "\n\tnext\r\n")
    assert shown == (
        "a\\x1b[31mred\\x1b]0;title\\x07\\x1b]8;;http://x\\x1b\\\\u202etxt.exe"
        "\\x85\\x9b2J\\x7f\\x00\\rZ\n\tnext\r\n"
    )
    for bidi in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert safe_text(bidi) == f"\\u{ord(bidi):04x}"
    # A name is one line: tab, newline and carriage return are escaped too.
    assert safe_text("a\nb\tc\r\nd", one_line=True) == "a\\nb\\tc\\r\\nd"
    # Text with nothing to escape comes back as it is; bytes that are not UTF-8 too.
    assert safe_text("héllo ✓\n\tx") == "héllo ✓\n\tx"
    assert safe_text("caf\udce9\x1b.txt", one_line=True) == "caf\\xe9\\x1b.txt"


def test_safe_text_for_a_terminal_shows_what_a_screen_shows() -> None:
    printed = "\x1b[1mbold\x1b[0m\r\n10%\r50%\r100%\nab\x08c\x07\n"
    assert safe_text(printed, terminal=True) == "bold\n100%\nac\n"


def test_the_cli_prints_controls_escaped_and_json_keeps_them_exact(shout_site: Path) -> None:
    arguments = json.dumps({"text": HOSTILE})
    out = _cli(shout_site, "call", "shout", arguments)
    assert out.returncode == 0, out.stderr
    for raw in ("\x1b", "\x07", "\u202e", "\x85", "\x9b", "\x7f", "\r"):
        assert raw not in out.stdout
    assert "\\x1b]0;TITLE\\x07" in out.stdout and "\\u202eTXT.EXE" in out.stdout
    out = _cli(shout_site, "call", "shout", "--json", arguments)
    assert out.returncode == 0, out.stderr
    for raw in ("\x1b", "\x07", "\u202e", "\x85", "\x9b", "\x7f", "\r"):
        assert raw not in out.stdout
    # JSON's escapes decode to the exact text the tool returned.
    assert json.loads(out.stdout)["content"][0]["text"] == HOSTILE.upper()


# -- dispatch reads any shape or says DispatchError -----------------------------------------

_KEYS = st.sampled_from(
    [
        *("type", "function", "name", "id", "arguments", "choices", "message"),
        *("tool_calls", "output", "content", "role", "candidates", "parts"),
        *("functionCall", "args", "toolUse", "toolUseId", "input", "call_id"),
        *("method", "params", "text", "thought"),
    ]
)
_WORDS = st.sampled_from(
    ["function", "function_call", "tool_use", "tools/call", "message", "text", "echo", ""]
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _WORDS | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(_KEYS | st.text(), inner, max_size=5)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=_JSON)
def test_dispatch_returns_results_or_raises_dispatch_error(calls: Any) -> None:
    tools = Toolset([make_echo_tool()])
    try:
        results = tools.dispatch(calls)
    except DispatchError as exc:
        assert len(str(exc)) < 1000
    else:
        assert isinstance(results, list)


@settings(max_examples=50, deadline=None)
@given(calls=_JSON)
def test_adispatch_returns_results_or_raises_dispatch_error(calls: Any) -> None:
    tools = Toolset([make_echo_tool()])
    try:
        results = asyncio.run(tools.adispatch(calls))
    except DispatchError:
        pass
    else:
        assert isinstance(results, list)


class _BrokenSdkObject:
    def model_dump(self, **options: Any) -> Any:
        raise RuntimeError("cannot dump")


@pytest.mark.parametrize(
    "calls",
    [
        {"function": "echo"},
        {"choices": ["x"]},
        {"choices": [{"message": 5}]},
        {"tool_calls": 5},
        {"candidates": [5]},
        {"candidates": [{"content": 5}]},
        {"output": {"message": 5}},
        [{"type": "function", "function": "echo", "id": "1"}],
        [{"type": "function_call", "call_id": "1", "name": ["echo"]}],
        [{"toolUse": {"name": "echo"}}],
        {"method": "tools/call", "params": 5},
        [{"x": _deep(100_000)}],
        [_BrokenSdkObject()],
        {"x": "y" * 10_000_000},
    ],
)
def test_malformed_call_shapes_are_dispatch_errors(calls: Any) -> None:
    with pytest.raises(DispatchError) as caught:
        Toolset([make_echo_tool()]).dispatch(calls)
    assert len(str(caught.value)) < 1000


def test_an_unknown_format_name_of_any_type_is_a_dispatch_error() -> None:
    with pytest.raises(DispatchError, match="unknown format"):
        Toolset([make_echo_tool()]).dispatch([], format=["openai"])  # type: ignore[arg-type]


# -- error texts are bounded ----------------------------------------------------------------


class Paths(Action):
    path: str = Field(description="A file to read.")
    numbers: list[int] = Field(default=[], description="Some numbers.")


def _read(action: Paths) -> str:
    return Path(action.path).read_text()


def test_an_exception_quoting_a_huge_path_is_cut(tmp_path: Path) -> None:
    tool = ToolDefinition(name="read", description="d", action_type=Paths, executor=_read)
    huge = str(tmp_path / ("x" * 100_000_000))
    observation = tool.call({"path": huge})
    assert observation.is_error and "File name too long" in observation.text
    assert len(observation.text) < 3000
    assert "more characters not shown" in observation.text


def test_many_unknown_keys_and_bad_items_give_bounded_messages() -> None:
    tool = ToolDefinition(name="read", description="d", action_type=Paths, executor=_read)
    unknown = {f"key{i}": i for i in range(200_000)}
    repaired = tool.call({"path": "/nonexistent-for-toolplug", **unknown})
    note = repaired.content[0].text
    assert note.startswith("Note: ignored the unknown argument 'key0'")
    assert "(199,980 more not shown)" in note and len(note) < 3000
    bad = tool.call({"path": "p" * 1_000_000, "numbers": ["n"] * 100_000})
    assert bad.is_error and "(99,980 more problems not shown)" in bad.text
    assert len(bad.text) < 5000
    long_key = tool.call({"path": "x", "k" * 1_000_000: 1})
    assert len(long_key.content[0].text) < 1000


def test_unknown_tool_messages_are_bounded() -> None:
    tools = Toolset(
        ToolDefinition(name=f"tool_{i}", description="d", action_type=Paths, executor=_read)
        for i in range(1000)
    )
    observation = tools.call("t" * 100_000_000)
    assert observation.is_error and len(observation.text) < 3000
    assert "(900 more not shown)" in observation.text
    (result,) = tools.dispatch([{"name": "n" * 10_000_000, "arguments": {}}])
    assert result["isError"] and len(result["content"][0]["text"]) < 3000


def test_composed_responses_that_cannot_be_read_are_bounded_compose_errors() -> None:
    tools = Toolset([make_echo_tool()])
    deep = '{"output": ' + "[" * 50_000 + "]" * 50_000 + "}"
    with pytest.raises(ComposeError, match="The response is nested too deeply"):
        tools.run_composed(deep)
    with pytest.raises(ComposeError, match="The response holds an integer"):
        tools.run_composed('{"output": ' + "7" * 5000 + "}")
    with pytest.raises(ComposeError) as caught:
        tools.run_composed({f"key{i}": 1 for i in range(200_000)})
    assert "(199,980 more not shown)" in str(caught.value) and len(str(caught.value)) < 3000
    schema = {"type": "array", "items": {"type": "integer"}}
    with pytest.raises(ComposeError) as caught:
        tools.run_composed({"calls": [], "output": ["x" * 1000] * 1000}, output_schema=schema)
    assert "(980 more problems not shown)" in str(caught.value)
    assert len(str(caught.value)) < 10_000
    with pytest.raises(ComposeError, match="nested too deeply"):
        tools.run_composed({"calls": [], "output": _deep(100_000)}, output_schema=schema)


# -- one tool name, two plugins -------------------------------------------------------------

TWIN = """
from toolplug import Action, Observation, ToolDefinition, hookimpl

class Nothing(Action):
    pass

@hookimpl
def register_tools(register):
    register(ToolDefinition(name="twin", description="d", action_type=Nothing,
                            executor=lambda a: Observation.from_text({dist!r})))
    register(ToolDefinition(name={own!r}, description="d", action_type=Nothing,
                            executor=lambda a: Observation.from_text({own!r})))
"""


@pytest.fixture
def twins_site(install_dist: Any, shout_site: Path) -> Path:
    for dist, own in (("toolplug-left", "left_only"), ("toolplug-right", "right_only")):
        name = dist.removeprefix("toolplug-")
        install_dist(
            dist,
            "0.4.0",
            {name: f"tp_test_{name}"},
            {f"tp_test_{name}": TWIN.format(dist=dist, own=own)},
        )
    return shout_site


def test_loading_everything_skips_a_clashing_name_and_says_so(
    twins_site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolplug"), Toolset.load() as tools:
        assert {"shout", "left_only", "right_only"} <= set(tools)
        assert "twin" not in tools
        (problem,) = tools.problems
    assert "toolplug-left 0.4.0" in problem and "toolplug-right 0.4.0" in problem
    assert problem in caplog.text
    with pytest.raises(ToolConflictError, match=r"toolplug-left 0\.4\.0"):
        Toolset.load(["twin"])


def test_the_check_and_the_listing_report_a_clash(twins_site: Path) -> None:
    checked = _cli(twins_site, "plugins", "--check")
    assert checked.returncode == 1, checked.stdout
    conflicts = [line for line in checked.stdout.splitlines() if "conflict:" in line]
    assert len(conflicts) == 2  # under each of the two plugins
    assert "toolplug-left 0.4.0 (plugin 'left')" in conflicts[0]
    assert "toolplug-right 0.4.0 (plugin 'right')" in conflicts[0]
    as_json = {
        p["name"]: p for p in json.loads(_cli(twins_site, "plugins", "--check", "--json").stdout)
    }
    assert as_json["left"]["status"] == "ok" and as_json["left"]["conflicts"]
    assert not as_json["loud"]["conflicts"]
    listed = _cli(twins_site, "tools")
    assert listed.returncode == 0, listed.stderr
    assert "left_only" in listed.stdout and "\ntwin" not in listed.stdout
    assert "warning: twin: the tool name 'twin' is registered by more than one" in listed.stderr
    called = _cli(twins_site, "call", "twin", "{}")
    assert called.returncode == 2 and "toolplug-right 0.4.0" in called.stderr


def test_typed_fields_with_lone_surrogates_come_back_valid_utf8() -> None:
    import json

    from toolplug import Action, Observation, ToolDefinition
    from toolplug.formats import render

    class Say(Action):
        text: str = Field(description="Text.")

    class Said(Observation):
        said: str = Field(description="What was said.")
        names: dict[str, list[str]] = Field(default_factory=dict, description="Names.")

    def say(action: Say) -> Said:
        return Said.from_text("ok", said=action.text, names={action.text: [action.text]})

    tool = ToolDefinition(
        name="say", description="Say.", action_type=Say, observation_type=Said, executor=say
    )
    observation = tool.call({"text": "caf\udce9 \ud800"})
    assert not observation.is_error, observation.text
    structured = observation.structured_content()
    assert structured is not None and structured["said"] == "caf\\xe9 \\ud800"
    assert list(structured["names"].values()) == [["caf\\xe9 \\ud800"]]
    json.dumps(render(observation, "mcp"), ensure_ascii=False).encode("utf-8")  # strict


def named_echo(name: str) -> Any:
    """The echo tool under another name."""
    echo = make_echo_tool()
    return ToolDefinition(
        name=name,
        description=echo.description,
        action_type=echo.action_type,
        executor=echo.executor,
    )


def test_a_toolset_under_writers_and_readers_in_many_threads_stays_whole() -> None:
    """Two threads add and update (with aliases) while three read every way a host
    does: no read raises, and the toolset ends as the writers left it."""
    import threading

    toolset = Toolset([named_echo(f"base{i}") for i in range(20)])
    stop = threading.Event()
    errors: list[BaseException] = []

    def read() -> None:
        try:
            while not stop.is_set():
                for name, tool in toolset.items():
                    assert tool.name == name
                list(toolset.values())
                toolset.find("also0")
                toolset.aliases()
                toolset.unknown_tool("nope")
        except BaseException as exc:
            errors.append(exc)

    def churn() -> None:
        for round_ in range(100):
            gone = [f"base{i}" for i in range(10)] if round_ % 2 == 0 else []
            back = [] if round_ % 2 == 0 else [named_echo(f"base{i}") for i in range(10)]
            toolset.update(add=back, remove=gone)

    def grow() -> None:
        for i in range(100):
            toolset.add(named_echo(f"grown{i}"), aliases=[f"also{i}"])

    readers = [threading.Thread(target=read) for _ in range(3)]
    writers = [threading.Thread(target=churn), threading.Thread(target=grow)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for thread in [*readers, *writers]:
            thread.start()
        for thread in writers:
            thread.join()
    finally:
        stop.set()
        for thread in readers:
            thread.join()
        sys.setswitchinterval(interval)
    assert errors == []
    assert len(toolset) == 120
    assert toolset.find("also99") is toolset["grown99"]
    toolset.close()


class _Rendered(Observation):
    """An observation whose llm_content renders its own structured content."""

    count: int = Field(description="A count.")

    @property
    def llm_content(self) -> list[TextContent]:
        data = self.structured_content() or {}
        return [TextContent(text=f"count is {data.get('count')}")]


def test_an_llm_content_that_renders_structured_content_does_not_recurse() -> None:
    # structured_content() reads the text, which this override makes from
    # structured_content(): the inner call gets the fields alone.
    from toolplug.formats import render

    observation = _Rendered(count=3)
    assert observation.structured_content() == {"text": "count is 3", "count": 3}
    assert render(observation, "mcp")["content"] == [{"type": "text", "text": "count is 3"}]


def test_structured_content_is_right_in_threads_at_once() -> None:
    from concurrent.futures import ThreadPoolExecutor

    observations = [_Rendered(count=i) for i in range(200)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda o: o.structured_content(), observations))
    assert results == [{"text": f"count is {i}", "count": i} for i in range(200)]


# -- guard plugins and their settings (issue #27) -------------------------------------------

GUARD_CODE = """
from toolplug import Observation, hookimpl

@hookimpl
def add_options(options):
    options.add("shout_word", help="Refuse calls with this word.", env="TP_TEST_SHOUT_WORD")

class Refuser:
    def __init__(self, word):
        self.word = word

    @hookimpl(tryfirst=True)
    def tool_call(self, action):
        if self.word in action.model_dump_json():
            return Observation.error("refused: " + self.word)
        return None

@hookimpl
def load_guard(settings):
    if settings["shout_word"] == "explode":
        raise RuntimeError("the guard blew up")
    return Refuser(settings["shout_word"])
"""

ECHO_PLUGIN = """
from toolplug import hookimpl
from core_test_tools import make_echo_tool

@hookimpl
def register_tools(register):
    register(make_echo_tool())
"""


def _install_guard(
    install_dist: Any, name: str, code: str, *, marked: bool = True, echo: bool = True
) -> Path:
    """Install ``echo`` (a tool plugin) and a plugin ``name``, a guard when ``marked``;
    the path of its ``.dist-info``."""
    if echo:
        install_dist("tp-test-echo", "1.0", {"echo": "tp_test_echo"}, {"tp_test_echo": ECHO_PLUGIN})
    module = f"tp_test_{name}"
    info = install_dist(f"tp-test-{name}", "1.0", {name: module}, {module: code})
    if marked:
        with (info / "entry_points.txt").open("a") as file:
            file.write(f"\n[toolplug.guards]\n{name} = {module}\n")
    return Path(info)


def test_a_guard_that_raises_in_load_guard_fails_the_load_naming_it(install_dist: Any) -> None:
    _install_guard(install_dist, "gate", GUARD_CODE)
    with pytest.raises(PolicyError, match=r"plugin 'gate' could not apply.*the guard blew up"):
        Toolset.load(["echo"], settings={"shout_word": "explode"})
    with Toolset.load(["echo"], settings={"shout_word": "boo"}) as tools:
        assert tools.call("echo", {"text": "boo!"}).text == "refused: boo"
        assert tools.call("echo", {"text": "fine"}).text == "fine"


def test_a_guard_whose_add_options_raises_is_named_when_its_setting_is_given(
    install_dist: Any,
) -> None:
    broken = GUARD_CODE.replace('options.add("shout_word"', 'raise KeyError("no");options.add("x"')
    _install_guard(install_dist, "gate", broken)
    with pytest.raises(PolicyError, match=r"'gate' plugin is broken: its add_options hook"):
        Toolset.load(["echo"], settings={"shout_word": "boo"})
    with Toolset.load(["echo"]) as tools:  # without the setting, the tools still load
        assert tools.call("echo", {"text": "boo"}).text == "boo"


def test_a_setting_from_its_variable_and_none_meaning_not_given(
    install_dist: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _install_guard(install_dist, "gate", GUARD_CODE)
    monkeypatch.setenv("TP_TEST_SHOUT_WORD", "boo")
    with Toolset.load(["echo"], plugins="echo") as tools:  # the selection leaves it out
        assert tools.call("echo", {"text": "boo"}).is_error
    with Toolset.load(["echo"], settings={"shout_word": None}) as tools:  # None: the variable
        assert tools.call("echo", {"text": "boo"}).is_error
    monkeypatch.setenv("TP_TEST_SHOUT_WORD", "")
    with Toolset.load(["echo"]) as tools:  # empty: not given
        assert tools.call("echo", {"text": "boo"}).text == "boo"


def test_an_unmarked_plugin_is_no_guard_and_a_bad_setting_name_is_refused(
    install_dist: Any,
) -> None:
    """A plugin not in toolplug.guards is left out of a narrowed load, so its setting is
    unknown there; a setting's name must be an identifier (the declaration fails)."""
    _install_guard(install_dist, "gate", GUARD_CODE, marked=False)
    with pytest.raises(PolicyError, match=r"'shout_word'.*no loaded or installed plugin"):
        Toolset.load(["echo"], settings={"shout_word": "boo"})
    from toolplug.guards import Options

    with pytest.raises(ValueError, match="Python identifier"):
        Options("x").add("shout-word", help="")


def test_a_setting_two_plugins_declare_stays_with_the_first_the_other_is_broken(
    install_dist: Any,
) -> None:
    """As pytest refuses an option added twice: 'gate' and 'zgate' both declare
    ``shout_word``; 'gate' (first by name) keeps it, and 'zgate' is reported broken,
    naming the setting and both plugins, and is left out of the load."""
    _install_guard(install_dist, "gate", GUARD_CODE)
    twin = GUARD_CODE.replace('"refused: "', '"zgate refused: "')
    site = _install_guard(install_dist, "zgate", twin, echo=False).parent
    checked = _cli(site, "plugins", "--check", "--json")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    listed = {r["name"]: r for r in json.loads(checked.stdout)}
    assert listed["gate"]["status"] == "ok", listed["gate"]
    assert listed["zgate"]["status"] == "broken", listed["zgate"]
    for name in ("'shout_word'", "'gate'", "'zgate'"):
        assert name in listed["zgate"]["error"], listed["zgate"]
    with Toolset.load(["echo"], settings={"shout_word": "boo"}) as tools:
        assert tools.call("echo", {"text": "boo!"}).text == "refused: boo"
    narrowed = {r.name: r for r in ToolRegistry.from_plugins(tools=["echo"]).reports}
    assert narrowed["gate"].status == "ok" and narrowed["zgate"].status == "broken"


def test_a_plugin_that_declares_a_setting_twice_declares_nothing() -> None:
    from toolplug.guards import Options

    options = Options("gate")
    options.add("shout_word", help="Refuse calls with this word.")
    with pytest.raises(ValueError, match="'shout_word' twice"):
        options.add("shout_word", help="Again.")


# -- handlers of the wrong shape (issue #27) ----------------------------------------------


def test_handlers_of_the_wrong_shape_are_refused_by_name() -> None:
    """A handler that is not callable, or one directory given as ``roots`` (read letter
    by letter before), is a TypeError naming the field, at once, not mid-call."""
    from toolplug.interaction import Handlers

    with pytest.raises(TypeError, match=r"Handlers\(on_progress=\.\.\.\) must be a function"):
        Handlers(on_progress="print")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Handlers\(on_elicit=\.\.\.\).*got dict"):
        Handlers(on_elicit={"action": "accept"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"takes a list of directories.*roots=\['/srv/data'\]"):
        Handlers(roots="/srv/data")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"takes a list of directories"):
        Handlers(roots=Path("/srv/data"))  # type: ignore[arg-type]
    assert Handlers(roots=[Path("/srv/data")]).roots == ("/srv/data",)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Handlers.merged\(\) takes another Handlers"):
        Handlers().merged({"on_log": print})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Handlers() | {"on_log": print}  # type: ignore[operator]


def test_a_toolset_refuses_handlers_that_are_not_handlers() -> None:
    """A dict (or anything else) as ``handlers`` is refused before any tool is made;
    before, the toolset took it and every call failed later, or load() failed deep in
    dataclasses.replace()."""
    registry = ToolRegistry()
    with pytest.raises(TypeError, match=r"Toolset\(handlers=\.\.\.\) takes a toolplug.Handlers"):
        Toolset([make_echo_tool()], handlers={"on_progress": print})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Toolset.load\(handlers=\.\.\.\) takes a toolplug"):
        Toolset.load([], registry=registry, handlers={"on_log": print})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Toolset.load\(roots=\.\.\.\) takes a list"):
        Toolset.load([], registry=registry, roots="/srv/data")
    with pytest.raises(TypeError, match=r"Handlers\(on_log=\.\.\.\) must be a function"):
        Toolset.load([], registry=registry, on_log="print")  # type: ignore[arg-type]


# -- the output budget (toolplug.budget) ---------------------------------------------------


def test_a_hostile_result_is_budgeted_without_raising(tmp_path: Path) -> None:
    from toolplug import Budget, tool

    # Lone surrogates, NULs, no line break at all, and a text block in a subclass.
    class Sneaky(TextContent):
        pass

    hostile = ("\ud800\x00" + "z" * 997) * 500

    @tool
    def flood() -> Observation:
        """Return half a million hostile characters, twice."""
        return Observation(content=[TextContent(text=hostile), Sneaky(text=hostile)])

    folder = tmp_path / "spill"
    with Toolset([flood], budget=Budget(chars=2_000, folder=folder, keep=True)) as tools:
        result = tools.call("flood")
    assert not result.is_error and "cut here by the output budget (2,000)" in result.text
    assert len(result.text) < 2_100
    [spilled] = folder.iterdir()
    saved = spilled.read_bytes().decode("utf-8")  # valid UTF-8, whole
    assert len(saved) > 1_000_000 and saved.count("\x00") == 1_000


# -- tool search (toolplug.deferral) -------------------------------------------------------


def _deferred_toolset() -> Toolset:
    tools = Toolset([make_echo_tool()])
    for n in range(30):
        tools.add(
            ToolDefinition(
                name=f"fetch_{n}",
                description=f"Fetch record {n}.",
                action_type=Action,
                executor=lambda a: Observation.from_text("ok"),
            )
        )
    return tools.defer("fetch_*")


@pytest.mark.parametrize(
    "block",
    [
        {"type": "tool_search_tool_result", "tool_use_id": "s", "content": "not a dict"},
        {"type": "tool_search_tool_result", "tool_use_id": "s", "content": {"tool_references": 5}},
        {
            "type": "tool_search_tool_result",
            "tool_use_id": "s",
            "content": {"tool_references": [{"type": "tool_reference"}, "x", None]},
        },
        {
            "type": "tool_search_tool_result",
            "tool_use_id": "s",
            "content": {"tool_references": [{"type": "tool_reference", "tool_name": ["x"]}]},
        },
        {
            "type": "tool_search_tool_result",
            "tool_use_id": "s",
            "content": {
                "tool_references": [
                    {"type": "tool_reference", "tool_name": f"no_such_{i}"} for i in range(5000)
                ]
            },
        },
    ],
)
def test_malformed_search_results_reveal_nothing_and_never_raise(block: dict[str, Any]) -> None:
    with _deferred_toolset() as tools:
        call = {"type": "tool_use", "id": "t", "name": "echo", "input": {"text": "hi"}}
        [result] = tools.dispatch([block, call])
        assert result["content"] == [{"type": "text", "text": "hi"}]
        assert tools.deferral is not None and tools.deferral.revealed == frozenset()


@pytest.mark.parametrize(
    "items",
    [
        [{"type": "tool_search_output", "id": "o", "tools": "nope"}],
        [{"type": "tool_search_output", "id": "o", "tools": [{"type": "namespace", "tools": 3}]}],
        [{"type": "tool_search_output", "id": "o", "tools": [None, 7, {"type": "function"}]}],
        [{"type": "tool_search_call", "id": "c", "arguments": {"paths": ["x" * 100_000]}}],
    ],
)
def test_malformed_responses_search_items_are_skipped(items: list[Any]) -> None:
    with _deferred_toolset() as tools:
        call = {"type": "function_call", "call_id": "c1", "name": "echo", "arguments": "{}"}
        [result] = tools.dispatch([*items, call])
        assert result["call_id"] == "c1"  # the call ran (its bad arguments are its own)
        assert tools.deferral is not None and tools.deferral.revealed == frozenset()


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "x" * 1_000_000},
        {"query": "\x00\udcff fetch"},
        {"query": "fetch", "limit": 10**9},
        {"query": ["fetch"]},
        "not json {",
    ],
)
def test_search_tools_takes_hostile_arguments_without_raising(arguments: Any) -> None:
    with _deferred_toolset() as tools:
        out = tools.call("search_tools", arguments)
        assert isinstance(out, Observation) and out.text


def test_a_hostile_regex_search_ends_with_a_result() -> None:
    with _deferred_toolset() as tools:
        tools.defer("fetch_*", search="regex")
        for pattern in ["(a*)*$" + "a" * 50, "(?P<x>a)(?P=x)", "[", "a{1000000}"]:
            out = tools.call("search_tools", {"query": pattern})
            assert isinstance(out, Observation) and out.text


# -- native forms: hostile input and broken forms -----------------------------------------


def _native_echo(form: Any) -> Toolset:
    """The echo tool with ``form`` as its Anthropic native form, exported natively."""
    echo = make_echo_tool()
    tool = ToolDefinition(
        name=echo.name,
        description=echo.description,
        action_type=echo.action_type,
        observation_type=echo.observation_type,
        executor=echo.executor,
        native_forms={"anthropic": form},
    )
    toolset = Toolset([tool])
    toolset.export("anthropic", native=True)
    return toolset


def _say_form(arguments: Any = None) -> Any:
    from toolplug.formats import NativeForm

    class Say(NativeForm):
        def arguments(self, data: dict[str, Any]) -> Any:
            return arguments(data) if arguments else {"text": data["words"]}

    return Say("anthropic", {"type": "bash_20250124", "name": "say"})


@pytest.mark.parametrize(
    "raw",
    [None, 7, [1, 2], "[1, 2]", "{not json", DEEP_JSON, LONG_INT_JSON, {"words": _deep(5000)}, {}],
)
def test_hostile_native_input_is_an_error_result(raw: Any) -> None:
    with _native_echo(_say_form()) as toolset:
        [result] = toolset.dispatch([{"type": "tool_use", "id": "t1", "name": "say", "input": raw}])
    assert result["type"] == "tool_result" and result["tool_use_id"] == "t1"
    assert result.get("is_error") is True, result
    text = result["content"][0]["text"]
    assert text.startswith("Tool '") and len(text) < 2000


def _raise(exc: BaseException) -> Any:
    def arguments(data: dict[str, Any]) -> Any:
        raise exc

    return arguments


@pytest.mark.parametrize(
    "broken",
    [
        _raise(RuntimeError("form bug")),
        _raise(RecursionError("too deep")),
        _raise(KeyError("words")),
        lambda data: ["not", "a", "dict"],
        lambda data: {"no_such_field": 1},
    ],
)
def test_a_broken_form_translation_is_an_error_result(broken: Any) -> None:
    with _native_echo(_say_form(broken)) as toolset:
        [result] = toolset.dispatch(
            [{"type": "tool_use", "id": "t1", "name": "say", "input": {"words": "hi"}}]
        )
    assert result.get("is_error") is True and result["content"][0]["text"].strip()


def test_a_form_that_misreads_items_is_a_dispatch_error() -> None:
    from toolplug.formats import NativeForm
    from toolplug.model import ToolCall

    class Misnamed(NativeForm):
        def read_call(self, item: dict[str, Any], index: int) -> Any:
            return ToolCall("c1", "someone_else") if item.get("type") == "say_call" else None

    class Raising(NativeForm):
        def read_call(self, item: dict[str, Any], index: int) -> Any:
            raise TypeError("cannot read " + "x" * 10_000)

    for form, match in ((Misnamed, "a bug in the form"), (Raising, "malformed")):
        with _native_echo(form("anthropic", {"type": "bash_20250124", "name": "say"})) as toolset:
            with pytest.raises(DispatchError, match=match) as caught:
                toolset.dispatch([{"type": "say_call", "id": "c1"}])
            assert len(str(caught.value)) < 1000


def test_native_calls_from_an_async_host() -> None:
    async def main() -> list[Any]:
        async with _native_echo(_say_form()) as toolset:
            calls = [
                {"type": "tool_use", "id": f"t{i}", "name": "say", "input": {"words": str(i)}}
                for i in range(5)
            ]
            return await toolset.adispatch(calls)

    results = asyncio.run(main())
    assert [r["content"][0]["text"] for r in results] == ["0", "1", "2", "3", "4"]


# -- presets (issue #30) ------------------------------------------------------------------


FULLWIDTH_GPT_5 = "\uff27\uff30\uff34-5"  # not GPT-5: lower() keeps it fullwidth


@pytest.mark.parametrize(
    "model",
    ["", " ", "x" * 1_000_000, "\x00gpt-5", FULLWIDTH_GPT_5, "\udcffclaude-", "[gpt-5]", "*", "/"],
)
def test_any_model_name_comes_to_a_row(model: str) -> None:
    from toolplug.presets import Preset, preset_table

    choice = preset_table().choose(Preset("coding", model))
    assert choice.tools  # a model no family takes gets the default row, never an error
    if model in ("*", FULLWIDTH_GPT_5, "[gpt-5]"):  # glob characters in a model are literal
        assert choice.family.name == "default"


@pytest.mark.parametrize("preset", [42, None, ["coding"], b"coding", ""])
def test_a_preset_that_is_not_a_name_is_a_clear_error(preset: Any) -> None:
    from toolplug import PresetError, Toolset
    from toolplug.presets import Preset, preset_table

    with pytest.raises(PresetError, match="preset"):
        if preset is None:
            Preset("coding", model=5)  # type: ignore[arg-type]
        elif preset == "":
            Toolset.load(preset=preset)
        else:
            preset_table().choose(preset)


@pytest.mark.parametrize(
    "data", [None, [], "x", {"families": "gpt"}, {"rows": [{"preset": "p"}]}, {"rows": [[]] * 3}]
)
def test_hostile_preset_data_is_reported_not_raised(data: Any) -> None:
    from toolplug import hookimpl
    from toolplug.testing import registry_from

    class Plugin:
        @hookimpl
        def register_presets(self, register: Any) -> None:
            register(data)

    class Exits:
        @hookimpl
        def register_presets(self, register: Any) -> None:
            raise SystemExit(3)

    table = registry_from(Plugin(), Exits()).presets
    assert len(table.problems) == 2
    assert "does not validate" in table.problems[0]
    assert "SystemExit" in table.problems[1]
    assert list(table.presets()) == ["coding"]
