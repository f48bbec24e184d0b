"""The hook specifications: each one documented and exercised here."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import time
import types
from collections.abc import Generator
from pathlib import Path
from typing import Any

import click
import pluggy
import pytest
from click.testing import CliRunner
from core_test_tools import make_echo_tool
from pydantic import Field
from toolplug import (
    Action,
    Observation,
    PolicyError,
    TextContent,
    ToolContext,
    ToolDefinition,
    ToolRegistry,
    Toolset,
    hookimpl,
    hookspecs,
)
from toolplug.loop import background_loop, run_awaitable
from toolplug.testing import registry_from


def hook_names() -> list[str]:
    return [
        name
        for name, fn in vars(hookspecs).items()
        if inspect.isfunction(fn) and hasattr(fn, "toolplug_spec")
    ]


def test_every_hook_has_reference_docs_and_a_test() -> None:
    names = hook_names()
    assert set(names) >= {"register_tools", "register_commands", "tool_call"}
    this_file = Path(__file__).read_text()
    docs_page = Path(__file__).parents[2] / "docs" / "hooks.md"
    for name in names:
        doc = inspect.getdoc(getattr(hookspecs, name)) or ""
        documented = len(doc) > 200 and "Example" in doc and "```python" in doc
        assert documented, f"hook {name} is not documented"
        assert f"def test_{name}_" in this_file, f"hook {name} has no test here"
    page = docs_page.read_text()
    assert "::: toolplug.hookspecs" in page, "the hook reference is not generated"
    for name in names:  # the page renders only the members it lists
        assert f"        - {name}\n" in page, f"hook {name} is missing from docs/hooks.md"


def plugin(**hooks: Any) -> types.SimpleNamespace:
    return types.SimpleNamespace(**hooks)


# -- register_tools ----------------------------------------------------------------------


def test_register_tools_registers_by_name_and_alias() -> None:
    @hookimpl
    def register_tools(register: Any) -> None:
        register(make_echo_tool(), aliases=["say"])

    registry = registry_from(plugin(register_tools=register_tools))
    assert registry.names() == ["echo"] and registry.aliases() == {"say": "echo"}
    assert registry.reports[0].tools == ["echo"]


def test_register_tools_failure_skips_only_that_plugin() -> None:
    @hookimpl
    def good(register: Any) -> None:
        register(make_echo_tool())

    @hookimpl
    def bad(register: Any) -> None:
        register(make_echo_tool(), name="half")
        raise RuntimeError("cannot reach the license server")

    good_plugin = types.SimpleNamespace(register_tools=good, __name__="good")
    bad_plugin = types.SimpleNamespace(register_tools=bad, __name__="bad")
    registry = registry_from(good_plugin, bad_plugin)
    assert registry.names() == ["echo"], "a failing plugin's partial registrations are dropped"
    status = {r.name: (r.status, r.error) for r in registry.reports}
    assert status["good"] == ("ok", None)
    assert status["bad"][0] == "broken"
    assert "RuntimeError: cannot reach the license server" in str(status["bad"][1])


# -- tool_call ---------------------------------------------------------------------------
#
# Every case runs through a registry filled by registry_from(), on the sync and the async
# path, with a sync and an async executor, as a host would call the tool.


class Speak(Action):
    text: str = Field(description="What to say.")
    seconds: float = Field(default=0, description="How long to take.")


ran: list[str] = []


def speak(action: Speak) -> Observation:
    ran.append(action.text)
    time.sleep(action.seconds)
    return Observation.from_text(action.text)


async def aspeak(action: Speak) -> Observation:
    ran.append(action.text)
    await asyncio.sleep(action.seconds)
    return Observation.from_text(action.text)


def speak_tools(**kw: Any) -> types.SimpleNamespace:
    """A plugin registering `say` (a sync executor) and `asay` (an async one)."""

    @hookimpl
    def register_tools(register: Any) -> None:
        register(
            ToolDefinition(name="say", description="Say.", action_type=Speak, executor=speak, **kw)
        )
        register(
            ToolDefinition(
                name="asay", description="Say.", action_type=Speak, executor=aspeak, **kw
            )
        )

    return plugin(register_tools=register_tools, __name__="speakers")


def call_all(registry: Any, arguments: dict[str, Any], **kw: Any) -> list[Observation]:
    """Call `say` and `asay` with call() and with acall(): four observations."""
    out = []
    for name in ("say", "asay"):
        (tool,) = registry.resolve(name)
        out.append(tool.call(arguments, **kw))
        out.append(asyncio.run(tool.acall(arguments, **kw)))
    return out


@pytest.fixture(autouse=True)
def _clear_ran() -> None:
    ran.clear()


class NewStyle:
    __name__ = "new-style"

    def __init__(self) -> None:
        self.log: list[str] = []

    @hookimpl(wrapper=True)
    def tool_call(self, tool: Any, action: Any) -> Generator[None, Observation, Observation]:
        self.log.append(f"before {tool.name} {action.text}")
        observation = yield
        self.log.append(f"after {observation.text}")
        wrapped = TextContent(text=observation.text + " (wrapped)")
        return Observation(content=[wrapped], is_error=observation.is_error)


class OldStyle:
    __name__ = "old-style"

    def __init__(self) -> None:
        self.log: list[str] = []

    @hookimpl(hookwrapper=True)
    def tool_call(self, tool: Any, action: Any) -> Generator[None, Any, None]:
        self.log.append(f"before {tool.name}")
        outcome = yield
        observation = outcome.get_result()
        self.log.append(f"after {observation.text}")
        outcome.force_result(Observation.from_text(observation.text.upper()))


def test_tool_call_new_style_wrapper_sync_and_async() -> None:
    wrapper = NewStyle()
    observations = call_all(registry_from(speak_tools(), wrapper), {"text": "hi"})
    assert [o.text for o in observations] == ["hi (wrapped)"] * 4
    assert ran == ["hi"] * 4
    assert wrapper.log == ["before say hi", "after hi"] * 2 + ["before asay hi", "after hi"] * 2


def test_tool_call_old_style_wrapper_sync_and_async() -> None:
    wrapper = OldStyle()
    observations = call_all(registry_from(speak_tools(), wrapper), {"text": "hi"})
    assert [o.text for o in observations] == ["HI"] * 4
    assert wrapper.log == ["before say", "after hi"] * 2 + ["before asay", "after hi"] * 2


def test_tool_call_old_and_new_style_wrappers_nest_in_pluggy_order() -> None:
    # Registered later = called first (outermost): the old-style wrapper sees the
    # new-style wrapper's replacement and upper-cases it.
    observations = call_all(registry_from(speak_tools(), NewStyle(), OldStyle()), {"text": "hi"})
    assert [o.text for o in observations] == ["HI (WRAPPED)"] * 4


class ReadOnlySession:
    """A policy plugin: refuses a tool unless the text says it is harmless."""

    __name__ = "read-only-session"

    @hookimpl(tryfirst=True)
    def tool_call(self, action: Any) -> Observation | None:
        if action.text != "harmless":
            return Observation.error("refused: this session is read-only")
        return None


def test_tool_call_refusal_by_a_plain_impl_sync_and_async() -> None:
    wrapper = NewStyle()
    registry = registry_from(speak_tools(), ReadOnlySession(), wrapper)
    refused = call_all(registry, {"text": "rm -rf /"})
    assert all(o.is_error for o in refused)
    assert [o.text for o in refused] == ["refused: this session is read-only (wrapped)"] * 4
    assert ran == [], "a refused tool does not run"
    assert [o.text for o in call_all(registry, {"text": "harmless"})] == ["harmless (wrapped)"] * 4
    assert ran == ["harmless"] * 4


def test_tool_call_impl_that_raises_is_an_error_naming_the_plugin() -> None:
    class Gate:
        __name__ = "gate"

        @hookimpl
        def tool_call(self) -> None:
            raise PermissionError("the policy server is down")

    class Tracer:
        __name__ = "tracer"

        @hookimpl(wrapper=True)
        def tool_call(self) -> Generator[None, Observation, Observation]:
            yield
            raise ConnectionError("collector unreachable")

    class LegacyTracer:
        __name__ = "legacy-tracer"

        @hookimpl(hookwrapper=True)
        def tool_call(self) -> Generator[None, Any, None]:
            raise ValueError("bad sampling rate")
            yield

    cases = [
        (
            Gate(),
            "Tool '{}' was stopped by plugin 'gate': PermissionError: the policy server is down",
            0,
        ),
        (
            Tracer(),
            "Tool '{}' was stopped by plugin 'tracer': ConnectionError: collector unreachable",
            4,
        ),
        (
            LegacyTracer(),
            "Tool '{}' was stopped by plugin 'legacy-tracer': ValueError: bad sampling rate",
            0,
        ),
    ]
    for impl, message, runs in cases:
        ran.clear()
        observations = call_all(registry_from(speak_tools(), impl), {"text": "x"})
        names = ["say", "say", "asay", "asay"]
        assert [o.text for o in observations] == [message.format(n) for n in names]
        assert all(o.is_error for o in observations)
        assert len(ran) == runs


def test_tool_call_wrapper_may_catch_what_an_inner_impl_raised() -> None:
    class Gate:
        __name__ = "gate"

        @hookimpl
        def tool_call(self) -> None:
            raise PermissionError("no badge")

    class Guard:
        __name__ = "guard"

        @hookimpl(wrapper=True)
        def tool_call(self) -> Generator[None, Observation, Observation]:
            try:
                return (yield)
            except PermissionError as exc:
                return Observation.error(f"denied ({exc})")

    observations = call_all(registry_from(speak_tools(), Gate(), Guard()), {"text": "x"})
    assert [o.text for o in observations] == ["denied (no badge)"] * 4


def test_tool_call_wrapper_that_returns_before_yield_says_how_to_refuse() -> None:
    class EarlyReturn:
        __name__ = "early-return"

        @hookimpl(wrapper=True)
        def tool_call(self) -> Generator[None, Observation, Observation]:
            return Observation.error("no")
            yield  # type: ignore[unreachable]

    observations = call_all(registry_from(speak_tools(), EarlyReturn()), {"text": "x"})
    for o in observations:
        assert o.is_error and "stopped by plugin 'early-return'" in o.text
        assert "did not yield" in o.text and "@hookimpl(tryfirst=True)" in o.text
    assert ran == [], "the tool does not run"


def test_tool_call_timeouts_hold_under_wrappers() -> None:
    wrapper = NewStyle()
    registry = registry_from(speak_tools(timeout=0.1), wrapper)
    observations = call_all(registry, {"text": "slow", "seconds": 5})
    for o in observations:
        assert (
            o.is_error and "did not finish within 0.1 seconds" in o.text and "(wrapped)" in o.text
        )
    fast = call_all(registry, {"text": "fast"}, timeout=30)
    assert [o.text for o in fast] == ["fast (wrapped)"] * 4


def test_tool_call_async_path_keeps_the_callers_loop_and_context() -> None:
    request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
    seen: list[Any] = []

    class Audit:
        @hookimpl(wrapper=True)
        def tool_call(self) -> Generator[None, Observation, Observation]:
            seen.append(request_id.get())
            return (yield)

    async def where(action: Speak) -> Observation:
        seen.append(asyncio.get_running_loop())
        return Observation.from_text("here")

    @hookimpl
    def register_tools(register: Any) -> None:
        register(
            ToolDefinition(name="where", description="Where.", action_type=Speak, executor=where)
        )

    (tool,) = registry_from(plugin(register_tools=register_tools), Audit()).resolve("where")

    async def main() -> asyncio.AbstractEventLoop:
        request_id.set("req-7")
        assert (await tool.acall({"text": "x"})).text == "here"
        return asyncio.get_running_loop()

    loop = asyncio.run(main())
    assert seen == ["req-7", loop], "the wrapper sees the caller's context; the tool its loop"


def test_tool_call_without_plugin_impls_does_not_go_through_pluggy() -> None:
    @hookimpl
    def register_tools(register: Any) -> None:
        register(make_echo_tool())

    def hook_calls(registry: Any) -> list[str]:
        calls: list[str] = []
        registry._plugin_manager.add_hookcall_monitoring(
            lambda name, impls, kwargs: calls.append(name), lambda *args: None
        )
        return calls

    plain = registry_from(plugin(register_tools=register_tools))
    calls = hook_calls(plain)
    (tool,) = plain.resolve("echo")
    assert tool.call({"text": "x"}).text == "x"
    assert asyncio.run(tool.acall({"text": "x"})).text == "x"
    assert calls == []
    hooked_registry = registry_from(plugin(register_tools=register_tools), NewStyle())
    calls = hook_calls(hooked_registry)
    (hooked,) = hooked_registry.resolve("echo")
    assert hooked.call({"text": "x"}).text == "x (wrapped)"
    assert calls == ["tool_call"]


def test_tool_call_hook_called_by_hand_does_not_run_the_tool() -> None:
    registry = registry_from(speak_tools(), NewStyle())
    (tool,) = registry.resolve("say")
    observation = tool._hooks(tool=tool, action=Speak(text="x"), context=None, pending=None)
    assert observation.is_error and "outside ToolDefinition.call()" in observation.text
    # Without the call to run, pluggy refuses to call toolplug's own implementation.
    with pytest.warns(UserWarning, match="pending"), pytest.raises(pluggy.HookCallError):
        tool._hooks(tool=tool, action=Speak(text="x"), context=None)
    assert ran == []


def test_tool_call_hooks_do_not_apply_to_unregistered_tools() -> None:
    tool = make_echo_tool()
    assert tool.call({"text": "plain"}).text == "plain"


# -- register_presets --------------------------------------------------------------------


def test_register_presets_adds_a_family_and_its_row(tmp_path: Path) -> None:
    from toolplug import Preset, Toolset

    @hookimpl
    def register_presets(register: Any) -> None:
        register(
            {
                "families": [{"name": "gemini", "models": ["gemini-*"]}],
                "rows": [{"preset": "coding", "family": "gemini", "tools": ["say"]}],
            }
        )

    registry = registry_from(speak_tools(), plugin(register_presets=register_presets))
    assert registry.presets.problems == []
    with Toolset.load(preset=Preset("coding", "Gemini-2.5-Pro"), registry=registry) as tools:
        assert list(tools) == ["say"]
        assert tools.preset is not None and tools.preset.family.name == "gemini"


# -- register_commands -------------------------------------------------------------------


def test_register_commands_adds_a_subcommand(install_dist: Any) -> None:
    install_dist(
        "toolplug-hello",
        "0.3.0",
        {"hello": "tp_test_hello"},
        {
            "tp_test_hello": '''
            import click
            from toolplug import hookimpl

            @hookimpl
            def register_commands(cli):
                @cli.command()
                @click.argument("who")
                def hello(who):
                    """Say hello."""
                    click.echo(f"hello {who}")
        '''
        },
    )
    from toolplug.cli import ToolplugGroup, cli

    assert isinstance(cli, click.Group) and isinstance(cli, ToolplugGroup)
    cli._plugins_loaded = False
    try:
        result = CliRunner().invoke(cli, ["hello", "world"])
        assert result.exit_code == 0, result.output
        assert result.output == "hello world\n"
        help_text = CliRunner().invoke(cli, ["--help"]).output
        assert "hello" in help_text and "Say hello." in help_text
    finally:
        cli.commands.pop("hello", None)
        cli._plugins_loaded = False


@pytest.mark.parametrize("name", hook_names())
def test_hook_spec_signatures_are_stable(name: str) -> None:
    params = list(inspect.signature(getattr(hookspecs, name)).parameters)
    expected = {
        "register_tools": ["register"],
        "register_commands": ["cli"],
        "register_formats": ["register"],
        "register_presets": ["register"],
        "tool_call": ["tool", "action", "context", "pending"],
        "add_options": ["options"],
        "load_guard": ["settings", "approver"],
    }
    assert params == expected[name]


def test_tool_call_async_def_impl_is_refused_when_the_plugin_loads(install_dist: Any) -> None:
    class AsyncAudit:
        __name__ = "async-audit"

        @hookimpl
        async def tool_call(self, tool: Any) -> None:
            return None

    (refused,) = registry_from(AsyncAudit()).reports
    assert refused.status == "broken"
    assert "the tool_call hook is 'async def'" in str(refused.error)

    install_dist(
        "toolplug-async-audit",
        "0.1.0",
        {"async_audit": "tp_test_async_audit"},
        {
            "tp_test_async_audit": """
            from toolplug import hookimpl

            @hookimpl
            def register_tools(register):
                pass

            @hookimpl(wrapper=True)
            async def tool_call(tool, action):
                yield
        """
        },
    )
    registry = ToolRegistry.from_plugins("async_audit")
    (report,) = [r for r in registry.reports if r.name == "async_audit"]
    assert report.status == "broken"
    assert "the tool_call hook is 'async def'" in str(report.error)
    assert "@hookimpl(wrapper=True)" in str(report.error)


def test_tool_call_nested_async_calls_under_a_wrapper_do_not_run_out_of_threads() -> None:
    """A tool that calls a tool, deeper than the hook threads are many, and uses to_thread."""
    tools: dict[str, Any] = {}

    async def descend(action: Speak) -> Observation:
        depth = int(action.text)
        if depth == 0:
            return Observation.from_text(await asyncio.to_thread(lambda: "bottom"))
        inner = await tools["descend"].acall({"text": str(depth - 1)})
        return Observation.from_text(f"{depth}>{inner.text}")

    @hookimpl
    def register_tools(register: Any) -> None:
        register(
            ToolDefinition(
                name="descend", description="Go down.", action_type=Speak, executor=descend
            )
        )

    wrapper = NewStyle()
    (tools["descend"],) = registry_from(plugin(register_tools=register_tools), wrapper).resolve(
        "descend"
    )
    depth = 24  # more than the pooled hook threads (16)

    async def main() -> list[Observation]:
        calls = [tools["descend"].acall({"text": str(depth)}, timeout=60) for _ in range(3)]
        return await asyncio.gather(*calls)

    for observation in asyncio.run(main()):
        assert not observation.is_error, observation.text
        assert observation.text.endswith("1>bottom (wrapped)" + " (wrapped)" * depth)
    assert len(wrapper.log) == 2 * 3 * (depth + 1)


def test_register_formats_the_core_formats_come_through_the_hook() -> None:
    from toolplug.formats import core, default_formats

    registered: list[object] = []
    core.register_formats(registered.append)
    assert [f.name for f in registered] == list(default_formats())  # type: ignore[attr-defined]


def test_tool_call_gets_the_context_the_tool_was_created_with(tmp_path: Path) -> None:
    seen: list[Any] = []

    class Watcher:
        __name__ = "watcher"

        @hookimpl(tryfirst=True)
        def tool_call(self, tool: Any, context: Any) -> None:
            seen.append((tool.name, context.workspace if context else None))

    registry = registry_from(speak_tools(), Watcher())
    context = ToolContext(workspace=tmp_path)
    (tool,) = registry.resolve("say", context)
    assert tool.call({"text": "hi"}).text == "hi"
    assert asyncio.run(tool.acall({"text": "hi"})).text == "hi"
    (default,) = registry.resolve("asay")
    default.call({"text": "hi"})
    assert seen == [("say", tmp_path), ("say", tmp_path), ("asay", Path.cwd())]


def test_tool_call_can_await_on_the_callers_loop_through_run_awaitable() -> None:
    """An async approver a hook awaits runs on the loop that called acall (where the
    host's clients live), and on toolplug's background loop for a sync call."""
    loops: list[Any] = []

    async def approve(text: str) -> bool:
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0)
        return text == "harmless"

    class AsyncApprover:
        __name__ = "async-approver"

        @hookimpl(tryfirst=True)
        def tool_call(self, action: Any) -> Observation | None:
            if run_awaitable(approve(action.text), timeout=10):
                return None
            return Observation.error("not approved")

    registry = registry_from(speak_tools(), AsyncApprover())
    (tool,) = registry.resolve("asay")

    async def host() -> tuple[Any, list[Observation]]:
        return asyncio.get_running_loop(), [
            await tool.acall({"text": "harmless"}),
            await tool.acall({"text": "rm -rf /"}),
        ]

    host_loop, observations = asyncio.run(host())
    assert [o.text for o in observations] == ["harmless", "not approved"]
    assert loops == [host_loop, host_loop]
    assert tool.call({"text": "harmless"}).text == "harmless"
    assert loops[-1] is background_loop()


# -- add_options and load_guard ---------------------------------------------------------


class ReadOnlyPolicy:
    """What a load_guard hook returns: refuses every call whose text is not harmless."""

    def __init__(self, name: str) -> None:
        self.name = name

    @hookimpl(tryfirst=True)
    def tool_call(self, action: Any) -> Observation | None:
        if action.text != "harmless":
            return Observation.error(f"refused by policy {self.name}")
        return None


def policy_plugin(approvers: list[Any]) -> types.SimpleNamespace:
    """A guard with the setting ``policy``, as toolplug-policy declares it."""

    @hookimpl
    def add_options(options: Any) -> None:
        options.add("policy", help="A policy.", metavar="NAME")

    @hookimpl
    def load_guard(settings: dict[str, Any], approver: Any) -> Any:
        source = settings["policy"]
        if source == "broken":
            raise PolicyError("broken.toml, line 3: rule 1: unknown decision 'alow'")
        approvers.append(approver)
        return ReadOnlyPolicy(str(source)) if source == "read-only" else None

    return plugin(add_options=add_options, load_guard=load_guard, __name__="policy")


def test_add_options_declares_the_settings_a_load_accepts() -> None:
    """A declared setting is taken by name; one no plugin declares is an error that
    lists the known ones, and applies nothing."""
    approvers: list[Any] = []
    registry = registry_from(speak_tools(), policy_plugin(approvers))
    with pytest.raises(PolicyError, match=r"'polcy'.*known settings: policy\b"):
        registry.apply_settings({"polcy": "read-only"})
    assert approvers == []
    registry.apply_settings({"policy": "read-only"})
    assert [o.text for o in call_all(registry, {"text": "rm -rf /"})] == [
        "refused by policy read-only"
    ] * 4


def test_load_guard_governs_every_call_of_that_registry_only() -> None:
    approvers: list[Any] = []
    governed = registry_from(speak_tools(), policy_plugin(approvers))
    free = registry_from(speak_tools(), policy_plugin(approvers))
    (before,) = governed.resolve("say")  # resolved before the policy: obeys it too
    governed.apply_policy("read-only", approver=print)
    assert approvers == [print]
    refused = [o.text for o in call_all(governed, {"text": "rm -rf /"})]
    assert refused == ["refused by policy read-only"] * 4
    assert before.call({"text": "rm -rf /"}).is_error
    assert ran == []
    assert [o.text for o in call_all(free, {"text": "rm -rf /"})] == ["rm -rf /"] * 4


def test_load_guard_errors_stop_the_load() -> None:
    registry = registry_from(speak_tools(), policy_plugin([]))
    with pytest.raises(PolicyError, match=r"broken\.toml, line 3"):
        registry.apply_policy("broken")
    with pytest.raises(PolicyError, match=r"policy=no-such.*loaded nothing"):
        registry.apply_policy("no-such")
    with pytest.raises(PolicyError, match="pip install toolplug-policy"):
        registry_from(speak_tools()).apply_policy("read-only")
    with pytest.raises(PolicyError, match="not loaded from plugins"):
        ToolRegistry().apply_policy("read-only")
    with pytest.raises(PolicyError, match="pip install toolplug-policy"):
        Toolset.load(["say"], registry=registry_from(speak_tools()), policy="read-only")
    with pytest.raises(PolicyError, match="pip install toolplug-policy"):
        Toolset.load(
            ["say"], registry=registry_from(speak_tools()), settings={"policy": "read-only"}
        )


def _policy_plugin_installed() -> bool:
    from toolplug.plugins import installed_entry_points

    return any(ep.name == "policy" for ep in installed_entry_points())


@pytest.mark.skipif(_policy_plugin_installed(), reason="toolplug-policy is installed here")
def test_load_policy_without_the_policy_plugin_says_how_to_get_it(tmp_path: Path) -> None:
    """The core's own env has no toolplug-policy: asking for a policy, by argument or by
    TOOLPLUG_POLICY, for a selective load or a full one, names the fix."""
    policy = tmp_path / "policy.toml"
    policy.write_text('default = "deny"\n')
    with pytest.raises(PolicyError, match="pip install toolplug-policy"):
        ToolRegistry.from_plugins(tools=["echo"], policy=policy)
    with pytest.raises(PolicyError, match="pip install toolplug-policy"):
        ToolRegistry.from_plugins(policy=policy)
