"""Helpers for testing plugins, and a conformance suite plugin tests subclass.

Load a registry straight from a plugin module, without installing it::

    from toolplug.testing import registry_from
    registry = registry_from(my_plugin)

Check a tool against what every toolplug tool promises, in a few lines::

    from toolplug.testing import ToolConformance

    class TestThinkConformance(ToolConformance):
        plugin = toolplug_think
        entry_point = "think"
        tool_name = "think"
        valid_arguments = {"thought": "the plan"}

A tool whose calls need something in the workspace prepares it, and names arguments
that fail so its error path is checked too::

    class TestReaderConformance(ToolConformance):
        plugin = toolplug_reader
        tool_name = "reader"
        valid_arguments = {"path": "notes.txt"}
        failing_call = {"path": "missing.txt"}

        def prepare_workspace(self, workspace):
            (workspace / "notes.txt").write_text("hello")

Run the installed command line as a user would with :func:`run_toolplug` (and read the
params it lists for a tool with :func:`params_listing`), and wait
(bounded) for something that happens on its own, such as a file a background job
writes, with :func:`wait_until`::

    from toolplug.testing import wait_until

    wait_until(lambda: (workspace / "done.txt").exists(), what="the job's file")

The provider checks are each format's own (see :mod:`toolplug.formats`): they use the
providers' SDK types (``openai``, ``anthropic``, ``google-genai``, ``botocore``, ``mcp``),
so install those in your test environment; a missing one fails loudly, never skips.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from toolplug.context import Tool, ToolContext
from toolplug.definition import ToolDefinition
from toolplug.formats import FormatRegistry, NativeForm, default_formats
from toolplug.model import Observation, ToolCall
from toolplug.names import provider_name
from toolplug.plugins import PluginReport, plugin_manager, register_plugin
from toolplug.registry import ToolRegistry
from toolplug.schema import check_openai_strict
from toolplug.toolset import Toolset

__all__ = [
    "ToolConformance",
    "check_openai_strict",
    "check_structured_content",
    "registry_from",
    "params_listing",
    "run_toolplug",
    "validate_observation_exports",
    "validate_tool_exports",
    "wait_until",
]

T = TypeVar("T")


def registry_from(*plugins: Any) -> ToolRegistry:
    """A registry filled from plugin modules or objects, as if they were installed.

    Each plugin is checked as an installed one is; one that fails is marked broken in
    the registry's ``reports`` (with the reason) and contributes no tools.
    """
    pm = plugin_manager()
    reports = []
    for index, plugin in enumerate(plugins):
        name = getattr(plugin, "__name__", None) or f"plugin{index}"
        error = register_plugin(pm, name, plugin)
        status = "broken" if error else "ok"
        reports.append(PluginReport(name, None, None, name, status=status, error=error))
    return ToolRegistry.from_plugin_manager(pm, reports)


def run_toolplug(
    *args: str,
    plugins: str | None = None,
    cwd: str | Path | None = None,
    input: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run this environment's ``toolplug`` command as a user would, and capture it.

    ``plugins`` sets ``TOOLPLUG_PLUGINS`` (``None`` leaves it unset: every plugin).
    """
    env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
    if plugins is not None:
        env["TOOLPLUG_PLUGINS"] = plugins
    script = Path(sys.executable).with_name("toolplug")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "toolplug"]
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        input=input,
        timeout=timeout,
    )


def params_listing(name: str, plugins: str | None = None) -> dict[str, Any]:
    """The JSON Schema properties that ``toolplug tools --params --json`` lists for the
    tool or factory ``name`` (``plugins``: as for :func:`run_toolplug`), to check that
    each param a plugin takes is typed and described."""
    done = run_toolplug("tools", "--params", "--json", plugins=plugins)
    assert done.returncode == 0, done.stderr
    [listed] = [item for item in json.loads(done.stdout) if item["name"] == name]
    properties: dict[str, Any] = listed["params"]["properties"]
    return properties


def wait_until(
    predicate: Callable[[], T],
    timeout: float = 30.0,
    interval: float = 0.05,
    *,
    what: str | None = None,
) -> T:
    """Call ``predicate`` until it returns a true value, and return that value.

    For what happens on its own (a background job's file, a server that comes up, a
    process that goes away): the predicate is called at once, then every ``interval``
    seconds, and once more at the deadline. If it is still false ``timeout`` seconds
    on, an ``AssertionError`` says ``what`` was awaited (the predicate's name without
    it), so a test fails instead of hanging. The timeout is a bound on waiting, never
    a check of speed: make it generous.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        left = deadline - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(interval, left))
    described = what or getattr(predicate, "__name__", repr(predicate))
    raise AssertionError(f"still waiting for {described} after {timeout} s")


# -- export checks ------------------------------------------------------------------------


def _check_schema_shape(schema: Mapping[str, Any], where: str) -> None:
    assert schema.get("type") == "object", f"{where}: the root must be an object schema"
    assert "properties" in schema, f"{where}: an object schema needs 'properties'"
    assert "$schema" not in schema, f"{where}: '$schema' is rejected by providers"


def validate_tool_exports(
    tool: ToolDefinition[Any, Any], formats: FormatRegistry | None = None
) -> None:
    """Check a tool's export in every format against the provider's own definitions.

    Each format checks with its provider's SDK types (``openai``, ``anthropic``,
    ``google-genai``, ``botocore``, ``mcp``): install them in the test environment; a
    missing one fails the check with the package to install. ``formats`` defaults to
    the core's.
    """
    formats = formats if formats is not None else default_formats()
    assert provider_name(tool.name) == tool.name, (
        f"'{tool.name}' is not a name every provider takes (it would be exported as "
        f"'{provider_name(tool.name)}'): a letter or _, then letters, digits, _ or -, "
        "at most 64"
    )
    _check_schema_shape(tool.input_schema(), tool.name)
    toolset = Toolset([tool], formats=formats)
    for security_risk in (False, True):
        for name, fmt in formats.items():
            variants: list[dict[str, Any]] = (
                [{"strict": False}, {"strict": True}] if "strict" in fmt.options else [{}]
            )
            for options in variants:
                for exported in toolset.export(name, security_risk=security_risk, **options):
                    try:
                        fmt.check_tool(exported)
                    except ImportError:
                        raise
                    except Exception as exc:
                        raise AssertionError(
                            f"{tool.name}: the {fmt.title} export {options or ''} is refused: {exc}"
                        ) from exc
    _check_native_exports(tool, toolset, formats)
    for prop, sub in tool.input_schema().get("properties", {}).items():
        assert sub.get("description"), f"{tool.name}: parameter '{prop}' has no description"


def _check_native_exports(
    tool: ToolDefinition[Any, Any], toolset: Toolset, formats: FormatRegistry
) -> None:
    """Each native form's declaration against its SDK type, and in place of the
    function declaration in a native export."""
    for name, form in tool.native_forms.items():
        if name not in formats:
            continue  # a form for a format this host does not load
        declared = form.declare(tool)
        try:
            form.check_tool(declared)
        except ImportError:
            raise
        except Exception as exc:
            raise AssertionError(
                f"{tool.name}: the {name} native declaration is refused: {exc}"
            ) from exc
        exported = toolset.export(name, native=True, check="off")
        assert declared in exported, f"{tool.name}: the {name} native export leaves out {form!r}"
        assert len(exported) == 1, (
            f"{tool.name}: the {name} native export holds more than the native form: {exported}"
        )


def validate_observation_exports(
    observation: Observation,
    call_id: str = "call_1",
    formats: FormatRegistry | None = None,
    native_forms: Iterable[NativeForm] = (),
) -> None:
    """Check an observation's tool result in every format against the providers' types,
    and as each of ``native_forms`` renders it (a tool's :attr:`native_forms` values)."""
    formats = formats if formats is not None else default_formats()
    for fmt in formats.values():
        result = fmt.render_result(ToolCall(call_id, "a_tool"), observation)
        try:
            fmt.check_result(result, observation)
        except ImportError:
            raise
        except Exception as exc:
            raise AssertionError(f"the {fmt.title} result is refused: {exc}") from exc
    for form in native_forms:
        if form.format not in formats:
            continue
        fmt = formats[form.format]
        call = ToolCall(call_id, form.call_name)
        try:
            form.check_result(form.render_result(call, observation, fmt), observation, fmt)
        except ImportError:
            raise
        except Exception as exc:
            raise AssertionError(
                f"the {fmt.title} native result of {form!r} is refused: {exc}"
            ) from exc


def _strings_in(value: Any) -> Iterator[str]:
    """Every string in JSON data: itself, or the values (at any depth) it holds."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings_in(item)


def _is_json_of(text: str, data: Any) -> bool:
    try:
        return bool(json.loads(text) == data)
    except ValueError:
        return False


def check_structured_content(
    observation: Observation, output_schema: Mapping[str, Any] | None = None
) -> None:
    """Check that a result's ``structuredContent`` can stand in for its text.

    pydantic-ai, openai-agents and smolagents give the model the structured content
    instead of the text blocks, so it must carry the text the model reads: as one of
    its strings (the core puts it under ``"text"``) or as the JSON the text is. With
    the tool's ``output_schema``, a successful result must also have structured
    content, and that content must validate against the schema (with ``jsonschema``,
    which the ``mcp`` package brings), as MCP clients check it.
    """
    structured = observation.structured_content()
    if output_schema is not None and not observation.is_error:
        assert structured is not None, (
            "the tool declares an outputSchema, so a successful result needs "
            "structuredContent (MCP clients refuse one without it)"
        )
    if structured is None:
        return
    text = observation.text
    assert (
        not text or any(s == text for s in _strings_in(structured)) or _is_json_of(text, structured)
    ), (
        "structuredContent leaves out the text the model reads, and hosts that prefer "
        f"it (pydantic-ai, openai-agents, smolagents) never show it: {text[:300]!r} is "
        f"not in {json.dumps(structured)[:300]}"
    )
    if output_schema is not None:
        import jsonschema

        try:
            jsonschema.validate(structured, dict(output_schema))
        except jsonschema.ValidationError as exc:
            raise AssertionError(
                f"structuredContent does not match the outputSchema: {exc.message}"
            ) from exc


# -- the conformance suite ----------------------------------------------------------------

#: Exceptions that mean the tool's code is wrong (a missing import, a misspelt name),
#: never that the call failed: the conformance suite fails when a call raises one, even
#: though the core turns it into an error observation like any other exception.
BUG_EXCEPTIONS: tuple[type[BaseException], ...] = (
    NameError,
    AttributeError,
    ImportError,
    SyntaxError,
)


class _RaisedExceptions(logging.Handler):
    """Collects the exceptions the runner reports on the ``toolplug`` logger."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.raised: list[BaseException] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self.raised.append(record.exc_info[1])


def _skip(reason: str) -> None:
    import pytest  # imported here: the rest of this module is usable without pytest

    pytest.skip(reason)


class ToolConformance:
    """Checks every toolplug tool must pass. Subclass it in a ``Test...`` class.

    Set ``plugin`` (the plugin module), ``tool_name``, and ``valid_arguments`` (a call
    that succeeds). Optional:

    - ``entry_point``: checked against the installed distributions when set;
    - ``tool_params``: params for ``create``;
    - ``created_tool_name``: when a factory's tools are named otherwise;
    - ``failing_call``: arguments the action accepts but the call fails on (a file
      that does not exist, a command that fails); the suite checks an error
      observation comes back. Without it that check is skipped, with the reason;
    - :meth:`prepare_workspace`: override it to put what the calls need (a file, a
      database) in the workspace before the tool is created.

    A successful call's ``structuredContent`` must carry the text the model reads and
    match the tool's ``outputSchema`` (:func:`check_structured_content`): hosts such as
    pydantic-ai show the model that instead of the text blocks.

    Every call must return an observation whose failures are the tool's own: a call
    that raises a ``NameError``, ``AttributeError``, ``ImportError`` or ``SyntaxError``
    (a bug in the tool's code, such as a missing import in an error branch) fails the
    suite, even though a host would only see an error observation.
    """

    plugin: ClassVar[Any] = None
    tool_name: ClassVar[str] = ""
    #: The name of the created tool to check, when it differs from the registered name
    #: (a factory that creates several tools).
    created_tool_name: ClassVar[str | None] = None
    entry_point: ClassVar[str | None] = None
    tool_params: ClassVar[Mapping[str, Any]] = {}
    valid_arguments: ClassVar[Mapping[str, Any] | None] = None
    #: Arguments that validate but make the call fail, in the workspace
    #: :meth:`prepare_workspace` made; ``None`` skips the failing-call check.
    failing_call: ClassVar[Mapping[str, Any] | None] = None

    def prepare_workspace(self, workspace: Path) -> None:
        """Fill the (empty) workspace before the tool is created; the default does nothing.

        Override it when a valid call needs something there::

            def prepare_workspace(self, workspace):
                (workspace / "notes.db").write_bytes(make_database())
        """

    def _workspace(self, tmp_path: Path) -> Path:
        """The workspace of one check: a fresh folder, prepared by the subclass."""
        workspace = tmp_path / "workspace"
        workspace.mkdir()
        self.prepare_workspace(workspace)
        return workspace

    def _tools(self, workspace: Path) -> list[ToolDefinition[Any, Any]]:
        registry = registry_from(self.plugin)
        return registry.resolve(
            Tool(self.tool_name, dict(self.tool_params)), ToolContext(workspace=workspace)
        )

    def _formats(self) -> FormatRegistry:
        """The core's formats and the plugin's own, if it registers any."""
        return registry_from(self.plugin).formats

    @contextlib.contextmanager
    def _tool(self, tmp_path: Path) -> Iterator[ToolDefinition[Any, Any]]:
        """The tool under test in a prepared workspace; every tool created is closed after."""
        tools = self._tools(self._workspace(tmp_path))
        try:
            wanted = self.created_tool_name or self.tool_name
            yield next(t for t in tools if t.name == wanted)
        finally:
            for tool in tools:
                tool.close()

    def _call(self, tool: ToolDefinition[Any, Any], arguments: Any) -> Observation:
        """Call the tool; fail if the call raised, or raised an exception that is a bug."""
        handler = _RaisedExceptions()
        logger = logging.getLogger("toolplug")
        level = logger.level
        logger.addHandler(handler)
        logger.setLevel(min(level or logging.INFO, logging.INFO))
        try:
            observation = tool.call(arguments)
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
        assert isinstance(observation, Observation), f"{tool.name} returned {observation!r}"
        bugs = [exc for exc in handler.raised if isinstance(exc, BUG_EXCEPTIONS)]
        assert not bugs, (
            f"{tool.name} raised {type(bugs[0]).__name__}: {bugs[0]} for {arguments!r}; "
            "that is a bug in the tool's code, not a failure of the call"
        )
        return observation

    def _check_error(
        self, observation: Observation, arguments: Any, tool: ToolDefinition[Any, Any]
    ) -> None:
        assert observation.is_error, f"{arguments!r} was accepted: {observation.text}"
        assert observation.text.strip(), "an error observation must say what went wrong"
        validate_observation_exports(
            observation, formats=self._formats(), native_forms=tool.native_forms.values()
        )
        check_structured_content(observation)

    def test_registers_its_tool(self, tmp_path: Path) -> None:
        registry = registry_from(self.plugin)
        assert self.tool_name in registry, f"{self.tool_name} not in {registry.names()}"
        assert all(r.status == "ok" for r in registry.reports), registry.reports
        for tool in self._tools(self._workspace(tmp_path)):
            tool.close()

    def test_discovered_through_entry_point(self) -> None:
        if self.entry_point is None:
            _skip("no entry_point is set on the conformance class")
        from toolplug.plugins import installed_entry_points

        names = {ep.name for ep in installed_entry_points()}
        assert self.entry_point in names, (
            f"entry point '{self.entry_point}' is not installed (installed: {sorted(names)}); "
            "pip install the distribution in the test environment"
        )
        registry = ToolRegistry.from_plugins([self.entry_point])
        assert self.tool_name in registry

    def test_exports_validate(self, tmp_path: Path) -> None:
        with self._tool(tmp_path) as tool:
            validate_tool_exports(tool, formats=self._formats())

    def test_valid_call(self, tmp_path: Path) -> None:
        if self.valid_arguments is None:
            _skip("no valid_arguments are set on the conformance class")
        with self._tool(tmp_path) as tool:
            observation = self._call(tool, dict(self.valid_arguments or {}))
            assert not observation.is_error, observation.text
            validate_observation_exports(
                observation, formats=self._formats(), native_forms=tool.native_forms.values()
            )
            check_structured_content(observation, tool.output_schema())

    def test_bad_arguments_give_error_observation(self, tmp_path: Path) -> None:
        with self._tool(tmp_path) as tool:
            for bad in ("{not json", "[1, 2]", {"__no_such_field__": {"x": [1]}}):
                observation = self._call(tool, bad)
                if bad == {"__no_such_field__": {"x": [1]}} and not observation.is_error:
                    continue  # a tool without required fields may run with the key dropped
                self._check_error(observation, bad, tool)

    def test_a_missing_required_field_is_named(self, tmp_path: Path) -> None:
        if self.valid_arguments is None:
            _skip("no valid_arguments are set on the conformance class")
        with self._tool(tmp_path) as tool:
            required = [
                name
                for name in tool.input_schema().get("required", [])
                if name in (self.valid_arguments or {})
            ]
            if not required:
                _skip(f"{tool.name} has no required field to leave out")
            for field in required:
                arguments = {k: v for k, v in (self.valid_arguments or {}).items() if k != field}
                observation = self._call(tool, arguments)
                self._check_error(observation, arguments, tool)
                assert field in observation.text, (
                    f"the error for a call without '{field}' does not name it: {observation.text}"
                )

    def test_a_failing_call_gives_error_observation(self, tmp_path: Path) -> None:
        if self.failing_call is None:
            _skip(
                "no failing_call is set: give arguments the action accepts but the call "
                "fails on (a missing file, say), to check the tool's error path"
            )
        with self._tool(tmp_path) as tool:
            arguments = dict(self.failing_call or {})
            self._check_error(self._call(tool, arguments), arguments, tool)

    def test_close_is_safe(self, tmp_path: Path) -> None:
        tools = self._tools(self._workspace(tmp_path))
        for tool in tools:
            tool.close()
            tool.close()

    def test_unknown_params_are_refused(self, tmp_path: Path) -> None:
        from toolplug.errors import ToolParamsError

        registry = registry_from(self.plugin)
        try:
            tools = registry.resolve(
                Tool(self.tool_name, {**self.tool_params, "__no_such_param__": 1}),
                ToolContext(workspace=self._workspace(tmp_path)),
            )
        except ToolParamsError as exc:
            assert "__no_such_param__" in str(exc)
        else:
            for tool in tools:
                tool.close()
            raise AssertionError("an unknown param was accepted")
