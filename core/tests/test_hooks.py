"""The hook specifications: each one documented and exercised here."""

from __future__ import annotations

import asyncio
import inspect
import types
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from core_test_tools import make_echo_tool
from toolplug import Observation, hookimpl, hookspecs
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
    assert "::: toolplug.hookspecs" in docs_page.read_text(), "the hook reference is not generated"


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


def test_tool_call_wrapper_sees_action_and_observation_sync_and_async() -> None:
    log: list[str] = []

    class Audit:
        @hookimpl(wrapper=True)
        def tool_call(self, tool: Any, action: Any) -> Any:
            log.append(f"before {tool.name} {action.text}")
            observation = yield
            log.append(f"after {observation.text}")
            return observation

    @hookimpl
    def register_tools(register: Any) -> None:
        register(make_echo_tool())

    registry = registry_from(plugin(register_tools=register_tools), Audit())
    (tool,) = registry.resolve("echo")
    assert tool.call({"text": "a"}).text == "a"
    assert asyncio.run(tool.acall({"text": "b"})).text == "b"
    assert log == ["before echo a", "after a", "before echo b", "after b"]


def test_tool_call_refusal_before_yield_and_by_plain_impl() -> None:
    ran: list[str] = []

    class Policy:
        @hookimpl(wrapper=True)
        def tool_call(self, action: Any) -> Any:
            if action.text == "rm -rf /":
                return Observation.error("refused: destructive command")
            return (yield)

    class Quota:
        @hookimpl
        def tool_call(self, action: Any) -> Observation | None:
            return Observation.error("quota exceeded") if action.text == "big" else None

    def run(action: Any) -> Observation:
        ran.append(action.text)
        return Observation.from_text(action.text)

    tool_def = make_echo_tool()
    tool_def.executor = run

    @hookimpl
    def register_tools(register: Any) -> None:
        register(tool_def)

    registry = registry_from(plugin(register_tools=register_tools), Policy(), Quota())
    (tool,) = registry.resolve("echo")
    assert tool.call({"text": "rm -rf /"}).text == "refused: destructive command"
    assert asyncio.run(tool.acall({"text": "big"})).text == "quota exceeded"
    assert tool.call({"text": "ok"}).text == "ok"
    assert ran == ["ok"]


def test_tool_call_wrapper_may_replace_the_observation_and_failures_are_contained() -> None:
    class Redact:
        @hookimpl(wrapper=True)
        def tool_call(self) -> Any:
            observation = yield
            return Observation.from_text(observation.text.replace("secret", "******"))

    class Broken:
        @hookimpl(wrapper=True)
        def tool_call(self, tool: Any) -> Any:
            if tool.name == "echo":
                raise RuntimeError("tracer down")
            yield

    @hookimpl
    def register_tools(register: Any) -> None:
        register(make_echo_tool())

    (tool,) = registry_from(plugin(register_tools=register_tools), Redact()).resolve("echo")
    assert tool.call({"text": "my secret"}).text == "my ******"
    (tool,) = registry_from(plugin(register_tools=register_tools), Broken()).resolve("echo")
    obs = tool.call({"text": "x"})
    assert obs.is_error and "stopped by plugin" in obs.text and "tracer down" in obs.text


def test_tool_call_hooks_do_not_apply_to_unregistered_tools() -> None:
    tool = make_echo_tool()
    assert tool.call({"text": "plain"}).text == "plain"


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
        "tool_call": ["tool", "action"],
    }
    assert params == expected[name]


def test_register_formats_the_core_formats_come_through_the_hook() -> None:
    from toolplug.formats import builtin, default_formats

    registered: list[object] = []
    builtin.register_formats(registered.append)
    assert [f.name for f in registered] == list(default_formats())  # type: ignore[attr-defined]
