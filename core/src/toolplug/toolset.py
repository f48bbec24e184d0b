"""The :class:`Toolset`: the tools one host session uses, and their lifetime."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import (
    Callable,
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    Mapping,
    ValuesView,
)
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from toolplug.budget import DEFAULT_BUDGET, Budget, Spill, as_budget
from toolplug.context import Tool, ToolContext
from toolplug.definition import ToolDefinition
from toolplug.errors import ToolError
from toolplug.formats import FormatRegistry, default_formats
from toolplug.guards import with_policy
from toolplug.interaction import DEFAULT_HANDLERS, CallScope, Handlers, _as_roots, current
from toolplug.model import Observation, ToolCall
from toolplug.registry import ToolRegistry

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from toolplug.compose import ComposedOptions, ComposedResult
    from toolplug.deferral import Deferral, Deferred, Search
    from toolplug.dispatch import DispatchOptions
    from toolplug.formats.forms import Native, NativeTools
    from toolplug.limits import Check
    from toolplug.names import NameMap
    from toolplug.presets import Preset, PresetChoice

AnyTool = ToolDefinition[Any, Any]
log = logging.getLogger("toolplug")


def _checked(handlers: Any, where: str) -> Handlers:
    """``handlers`` if it is a :class:`Handlers`, else a :class:`TypeError` saying so."""
    if not isinstance(handlers, Handlers):
        raise TypeError(
            f"{where} takes a toolplug.Handlers, got {type(handlers).__name__}; write "
            "Handlers(on_progress=..., on_log=..., on_elicit=..., on_sample=..., roots=...)"
        )
    return handlers


def _preset_choice(
    registry: ToolRegistry, preset: Preset | str, specs: list[Tool] | None
) -> tuple[PresetChoice, list[Tool]]:
    """What ``preset`` comes to in ``registry``'s table, and the specs of its tools.

    A tool of its row that no enabled plugin registered is refused before any tool is
    created, naming the preset and the family that wanted it.
    """
    if specs is not None:
        raise TypeError("Toolset.load() takes specs or a preset, not both")
    choice = registry.presets.choose(preset)
    choice.check(registry)
    for problem in registry.presets.problems:  # a plugin's rows refused, and why
        log.warning("Toolset.load(): %s", problem)
    return choice, [Tool(name) for name in choice.tools]


@dataclass(frozen=True)
class ToolChange:
    """A tool that came, went or changed after the toolset was made (see
    :meth:`Toolset.update`)."""

    kind: Literal["added", "removed", "changed"]
    name: str


@dataclass(frozen=True)
class _Contents:
    """What a toolset holds at one moment: never changed, only replaced whole.

    A reader takes ``self._contents`` once and works on that, so a thread that reads
    while another adds or updates sees the toolset before or after, never half-way
    (a name from one mapping looked up in the next one).
    """

    tools: Mapping[str, AnyTool] = field(default_factory=lambda: MappingProxyType({}))
    aliases: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


class Toolset(Mapping[str, AnyTool]):
    """The created tools of one host session, by name.

    Build it with :meth:`load` (from the registry of installed plugins) or directly from
    definitions. It exports every schema at once, calls tools by name, and closes every
    executor exactly once when it closes (use it as a context manager, sync or async).

    ``handlers`` are the host's: the tools' progress reports, log messages and
    questions go to them during every call made through the toolset (see
    :mod:`toolplug.interaction`).

    ``budget`` (a :class:`~toolplug.Budget`, a number of characters, or ``None`` for
    none) holds every tool's result to an output budget: a longer text reaches the
    model as its head and tail, and the whole is saved in a spill folder removed when
    the toolset closes (see :mod:`toolplug.budget`). A tool belongs to one toolset: it
    takes that toolset's budget when added.

    Reading it from several threads while another calls :meth:`add` or :meth:`update`
    is safe: ``items()``, ``values()``, ``keys()`` and iteration each see one whole
    state, before or after. Copy it with ``dict(toolset.items())``: ``dict(toolset)``
    looks each name up again, and a name removed meanwhile raises ``KeyError``.
    """

    def __init__(
        self,
        tools: Iterable[AnyTool] = (),
        *,
        formats: FormatRegistry | None = None,
        handlers: Handlers | None = None,
        budget: Budget | int | None = DEFAULT_BUDGET,
    ) -> None:
        self._contents = _Contents()
        chosen = as_budget(budget)
        #: The output budget at work (``None``: results are never cut); see
        #: :mod:`toolplug.budget`.
        self.spill: Spill | None = None if chosen is None else Spill(chosen)
        self._closed = False
        # What update() took out (closed with the rest) and what it changed.
        self._retired: list[AnyTool] = []
        self._changes: list[ToolChange] = []
        self._update_lock = threading.Lock()
        # The plugin tool or factory each tool of load() came from (see factories()).
        self._factories: dict[str, str] = {}
        # Per format, the tools the last export declared in their native form (the
        # calls dispatch then reads natively; see native_exports()).
        self._native: dict[str, frozenset[str]] = {}
        #: The tools this toolset defers, and those revealed so far (see :meth:`defer`).
        self.deferral: Deferred | None = None
        #: What :meth:`load` left out and why (a tool name two plugins registered).
        self.problems: list[str] = []
        #: The preset :meth:`load` made this toolset from (its family, its row): its
        #: native choice is the default of :meth:`export`.
        self.preset: PresetChoice | None = None
        #: The provider formats this toolset exports to and dispatches from: the
        #: registry's (the core's and the loaded plugins'), else the core's own.
        self.formats: FormatRegistry = formats if formats is not None else default_formats()
        #: What the tools' progress, logs and questions go to during calls.
        self.handlers: Handlers = (
            DEFAULT_HANDLERS if handlers is None else _checked(handlers, "Toolset(handlers=...)")
        )
        for tool in tools:
            self.add(tool)

    @classmethod
    def load(
        cls,
        specs: Iterable[str | Tool | Mapping[str, Any]] | None = None,
        *,
        workspace: str | Path | None = None,
        context: ToolContext | None = None,
        registry: ToolRegistry | None = None,
        plugins: str | Iterable[str] | None = None,
        settings: Mapping[str, Any] | None = None,
        policy: Any = None,
        approver: Callable[..., Any] | None = None,
        handlers: Handlers | None = None,
        on_progress: Callable[..., Any] | None = None,
        on_log: Callable[..., Any] | None = None,
        on_elicit: Callable[..., Any] | None = None,
        on_sample: Callable[..., Any] | None = None,
        roots: Iterable[str | Path] = (),
        budget: Budget | int | None = DEFAULT_BUDGET,
        preset: Preset | str | None = None,
    ) -> Toolset:
        """Create the named tools (all registered tools when ``specs`` is ``None``).

        ``registry`` defaults to one loaded from the installed plugins enabled by
        ``plugins`` (or ``TOOLPLUG_PLUGINS``). When neither chooses, and every tool
        named is also a plugin's entry-point name (``["bash", "glob"]``), only those
        plugins are imported (see :meth:`ToolRegistry.from_plugins`). A created tool
        answers to the aliases of the registration it came from. If one tool cannot be
        created, the ones already created are closed and the error is raised.

        A tool name that two plugins registered raises :class:`ToolConflictError` when
        ``specs`` names it; when loading everything, that name is left out, the rest is
        loaded, and the clash (naming both distributions) is in :attr:`problems` and
        logged as a warning on the ``toolplug`` logger.

        ``settings`` are the plugins' settings, by name, each handed to the plugin that
        declared it (a guard plugin's, such as toolplug-policy's ``policy``: see
        :mod:`toolplug.guards`); those not given are read from the environment
        variables the plugins declare. ``policy`` is the shortcut for
        ``settings={"policy": policy}``, a permission policy file every call of these
        tools goes through (else ``TOOLPLUG_POLICY``; needs ``toolplug-policy``).
        ``approver`` (sync or async, ``approver(tool, action, rule) -> bool``) answers
        the calls a guard says to ask about. A setting no plugin takes, or one that
        cannot be applied (a malformed policy), raises :class:`PolicyError` and no
        tool is created. Given a ``registry``, the settings are applied to it (and so to
        every toolset it creates); with none, a given registry is used as is.

        ``handlers`` (a :class:`~toolplug.Handlers`: the tools' progress, logs,
        questions and sampling requests go to them) default to the ``context``'s.
        ``on_progress``, ``on_log``, ``on_elicit``, ``on_sample`` and ``roots`` are
        shortcuts for one more ``Handlers`` merged on top of those
        (:meth:`~toolplug.Handlers.merged`). The tools' context
        carries the result too (``ToolContext.handlers``), for tools that need the
        handlers between calls. ``budget`` is the output budget (see :class:`Toolset`).

        ``preset`` (a :class:`~toolplug.Preset`, or a preset's name for its default
        row) creates the tools of a tool set for a model family instead of ``specs``:
        ``preset=Preset("coding", model="gpt-5.1")`` (see :mod:`toolplug.presets`).
        The toolset keeps the choice in :attr:`preset`, and :meth:`export` declares
        the tools the row names for a format in their native form unless told
        otherwise. An unknown preset raises :class:`~toolplug.PresetError` listing
        the known ones; a tool of the row that no enabled plugin registered raises
        :class:`~toolplug.UnknownToolError` naming the preset.
        """
        parsed = None if specs is None else [Tool.parse(spec) for spec in specs]
        if context is None:
            context = ToolContext(workspace=Path(workspace)) if workspace else ToolContext()
        # The shortcuts are one more Handlers, on top of the given (or the context's).
        shortcuts = Handlers(
            on_progress=on_progress,
            on_log=on_log,
            on_elicit=on_elicit,
            on_sample=on_sample,
            roots=_as_roots(roots, "Toolset.load(roots=...)"),
        )
        if handlers is None:
            handlers = context.handlers or DEFAULT_HANDLERS
        chosen = _checked(handlers, "Toolset.load(handlers=...)") | shortcuts
        if registry is None:
            wanted = None if parsed is None else [spec.name for spec in parsed]
            registry = ToolRegistry.from_plugins(
                plugins, tools=wanted, settings=settings, policy=policy, approver=approver
            )
        elif settings or policy is not None:
            registry.apply_settings(with_policy(settings, policy), approver)
        if context.handlers is not chosen:
            context = replace(context, handlers=chosen)
        choice: PresetChoice | None = None
        if preset is not None:
            choice, parsed = _preset_choice(registry, preset, parsed)
        toolset = cls(formats=registry.formats, handlers=chosen, budget=budget)
        toolset.preset = choice
        toolset.problems.extend(registry.presets.problems if choice else ())
        if parsed is None:
            # Everything: a name two plugins registered is left out, and said so.
            clashes = registry.clashes()
            parsed = [Tool(name) for name in registry.names() if name not in clashes]
            toolset.problems.extend(clashes.values())
            for message in clashes.values():
                log.warning("Toolset.load(): %s", message)
        granted = registry.aliases()  # not those another tool's name or alias has taken
        created: list[AnyTool] = []
        try:
            for spec in parsed:
                entry = registry.get(spec.name)
                created = registry.resolve(spec, context)
                # Aliases name one tool: a factory that creates several has none here.
                aliases = [a for a in entry.aliases if granted.get(a) == entry.name]
                if len(created) != 1:
                    aliases = []
                for tool in created:
                    toolset.add(tool, aliases=aliases)
                    toolset._factories[tool.name] = entry.name
        except BaseException:
            # The failing spec's tools that did not get in (a name clash) are closed
            # too: a factory's servers and processes end with the failed load.
            for tool in created:
                if toolset.get(tool.name) is not tool:
                    tool.close()
            toolset.close()
            raise
        return toolset

    def add(self, tool: AnyTool, *, aliases: Iterable[str] = ()) -> None:
        """Add a created tool; its name must be new in this toolset.

        ``aliases`` are other names :meth:`find`, :meth:`call` and dispatch accept for
        it. An alias that is already a tool's name or another tool's alias is ignored:
        the name or the earlier alias keeps it.
        """
        with self._update_lock:
            now = self._contents
            if tool.name in now.tools:
                origins = [t.origin for t in (now.tools[tool.name], tool) if t.origin]
                where = f" ({'; '.join(origins)})" if origins else ""
                raise ToolError(f"two tools in one toolset are named '{tool.name}'{where}")
            tools = {**now.tools, tool.name: tool}
            taken = dict(now.aliases)
            for alias in aliases:
                if alias != tool.name and alias not in tools:
                    taken.setdefault(alias, tool.name)
            self._contents = _Contents(MappingProxyType(tools), MappingProxyType(taken))
        tool._spill = self.spill
        # A tool whose kind can come and go while it runs (an MCP server's tools)
        # learns its toolset, to bring the changes with update().
        added_to = getattr(tool, "added_to", None)
        if callable(added_to):
            added_to(self)

    def update(
        self, *, add: Iterable[AnyTool] = (), remove: Iterable[str] = ()
    ) -> list[ToolChange]:
        """Add and remove tools after the toolset was made, for tools that change while
        it lives (an MCP server that says its tool list changed); returns the changes.

        A name both removed and added is a tool that ``changed``. The mapping is
        replaced whole, so a thread reading the toolset meanwhile sees it before or
        after, never half-way. Removed tools stay open until the toolset closes (a call
        may still be running in one). A name already taken raises :class:`ToolError`
        and nothing changes; a closed toolset takes nothing (the added tools are
        closed). :meth:`changes` gives the changes to the host.
        """
        added, gone = list(add), set(remove)
        with self._update_lock:
            if self._closed:
                for tool in added:
                    tool.close()
                return []
            now = self._contents
            tools = {name: tool for name, tool in now.tools.items() if name not in gone}
            for tool in added:
                if tool.name in tools:
                    raise ToolError(f"two tools in one toolset are named '{tool.name}'")
                tools[tool.name] = tool
                tool._spill = self.spill
            self._retired.extend(now.tools[name] for name in gone if name in now.tools)
            names = {tool.name for tool in added}
            changes = [ToolChange("changed" if name in gone else "added", name) for name in names]
            changes += [ToolChange("removed", name) for name in gone - names if name in now.tools]
            aliases = {a: n for a, n in now.aliases.items() if n in tools}
            # One assignment: readers get the old contents or the new, whole.
            self._contents = _Contents(MappingProxyType(tools), MappingProxyType(aliases))
            self._changes.extend(changes)
        return changes

    def changes(self) -> list[ToolChange]:
        """The tools added, removed or changed by :meth:`update` since the last time
        this was asked (for a host that exports its tools again when they change)."""
        with self._update_lock:
            changes, self._changes = self._changes, []
        return changes

    def find(self, name: str) -> AnyTool | None:
        """The tool with this name or alias, or ``None``; a tool's own name comes first.

        With tools deferred, ``search_tools`` (the local tool search) is found too.
        """
        now = self._contents
        tool = now.tools.get(name)
        if tool is None and name in now.aliases:
            tool = now.tools.get(now.aliases[name])
        if tool is None and self.deferral is not None and name == self.deferral.search_tool().name:
            tool = self.deferral.search_tool()
        return tool

    def factories(self) -> dict[str, str]:
        """Tool name -> the plugin tool or factory :meth:`load` created it with (``"mcp"``
        for an MCP server's tools); tools added otherwise are not listed."""
        return dict(self._factories)

    def defer(
        self,
        *patterns: str | Deferral,
        above: int | None = None,
        keep: Iterable[str] = (),
        search: Search = "bm25",
        namespaces: bool = False,
    ) -> Toolset:
        """Defer tools: their definitions reach the model only when it searches for them.

        ``patterns`` are tool names, plugin tool or factory names (``"mcp"``: every MCP
        server's tools) or globs over names (``"github__*"``); none means every tool.
        ``above``: only while the toolset holds more than this many tools. ``keep``:
        names or globs never deferred. ``search``: ``"bm25"`` or ``"regex"``.
        ``namespaces``: the ``responses`` export groups each factory's deferred
        functions into one namespace. Replaces an earlier deferral (what it revealed is
        forgotten); returns the toolset. See :mod:`toolplug.deferral`.

        A :class:`~toolplug.Deferral` (a rule made once, for many toolsets) may be given
        instead, alone: ``toolset.defer(rule)``.
        """
        from toolplug.deferral import Deferral, defer

        if len(patterns) == 1 and isinstance(patterns[0], Deferral):
            rule = patterns[0]
        elif all(isinstance(p, str) for p in patterns):
            names = tuple(p for p in patterns if isinstance(p, str))
            rule = Deferral(names, above, tuple(keep), search, namespaces)
        else:
            raise TypeError("defer() takes names and globs, or one Deferral alone")
        self.deferral = defer(self, rule)
        return self

    def aliases(self) -> dict[str, str]:
        """Alias -> the name of the tool it leads to."""
        now = self._contents
        return {a: n for a, n in now.aliases.items() if a not in now.tools}

    # -- mapping ---------------------------------------------------------------------
    # Every view and iteration works on one snapshot (Mapping's own ones would look
    # each name up again, in whatever the toolset holds by then).

    def __getitem__(self, name: str) -> AnyTool:
        return self._contents.tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._contents.tools)

    def __len__(self) -> int:
        return len(self._contents.tools)

    def __contains__(self, name: object) -> bool:
        return name in self._contents.tools

    def keys(self) -> KeysView[str]:
        """The tools' names, as they were when asked."""
        return self._contents.tools.keys()

    def values(self) -> ValuesView[AnyTool]:
        """The tools, as they were when asked."""
        return self._contents.tools.values()

    def items(self) -> ItemsView[str, AnyTool]:
        """(name, tool) pairs, as they were when asked."""
        return self._contents.tools.items()

    def __repr__(self) -> str:
        return f"Toolset({', '.join(self._contents.tools)})"

    # -- exports ---------------------------------------------------------------------

    def provider_names(self) -> NameMap:
        """Names every provider accepts for these tools, and the way back.

        A name with a dot, or longer than 64 characters (an MCP server's tool behind a
        prefix), is exported under a mapped name; :meth:`dispatch` maps it back.
        """
        from toolplug.names import name_map

        return name_map(self)

    def export(
        self,
        format: str,
        *,
        check: Check = "warn",
        native: Native | None = None,
        **options: Any,
    ) -> list[dict[str, Any]]:
        """Every tool declared for one provider format, as its request takes them.

        ``format`` is a registered format's name (:attr:`formats`): ``openai``,
        ``responses``, ``anthropic``, ``gemini``, ``bedrock``, ``mcp``, ``toolplug``, or
        a plugin's. Tools are exported under :meth:`provider_names` where the provider
        restricts names. ``options`` are the format's (``strict=True`` for OpenAI's,
        ``security_risk=True`` for every one). Gemini's list holds one ``Tool`` with
        every declaration; Bedrock's is ``toolConfig["tools"]``.

        With tools deferred (:meth:`defer`), ``anthropic`` and ``responses`` mark them
        for the provider's own tool search; every other format leaves out those not yet
        revealed and adds the ``search_tools`` tool. The tools keep the toolset's order.

        The export is checked against what the provider refuses (:mod:`toolplug.limits`:
        too many tools, schema caps; names are already mapped to fit): ``check="warn"`` (the
        default) warns with a :class:`~toolplug.LimitWarning` naming each tool
        and rule, ``"error"`` raises :class:`~toolplug.LimitError`, ``"off"``
        skips the check.

        ``native`` (``True``, or the names of some tools) declares each chosen tool that
        has a native form for ``format`` in that form (Anthropic's
        ``text_editor_20250728``, say) instead of as a function; see
        :mod:`toolplug.formats.forms`. Native declarations come first, in the toolset's
        order, then the function declarations. The toolset remembers, per format, which
        tools its last export declared natively: :meth:`dispatch` reads their calls so.
        A deferred native tool carries ``"defer_loading": true`` where the provider
        searches tools itself, and is left out until revealed elsewhere. Two tools whose
        native forms take one name, or a native name that another tool's function
        declaration has, raise :class:`ToolError`. Left out (``None``), ``native`` is
        the choice of the toolset's :attr:`preset` for ``format``, else ``False``.
        """
        from toolplug.formats.forms import native_tools

        if native is None:
            native = self.preset.native(format) if self.preset is not None else False

        fmt = self.formats[format]
        names = self.provider_names()
        tools = list(self.values())
        chosen = native_tools(tools, native, formats=(format,)).get(format, {})
        natives = {tool.name: form for tool, form in chosen.values()}
        named = [
            (names.external(tool.name) if fmt.maps_names else tool.name, tool)
            for tool in tools
            if tool.name not in natives
        ]
        taken = {form.call_name for form in natives.values()} & {name for name, _ in named}
        if taken:
            raise ToolError(
                f"the {format} native name(s) {', '.join(sorted(taken))} are also the names of "
                "tools exported as functions; export those tools natively too, or not at all"
            )
        if self.deferral is None:
            exported = fmt.export_tools(named, **options)
        else:
            exported = self.deferral.export(fmt, named, **options)
        if natives:
            exported = self._native_declarations(fmt, tools, natives, **options) + exported
        # Replaced whole, never changed in place: dispatch may be reading it.
        self._native = {**self._native, format: frozenset(natives)}
        if check != "off":
            from toolplug.limits import enforce

            enforce(format, exported, check, **options)
        return exported

    def _native_declarations(
        self, fmt: Any, tools: list[AnyTool], natives: Mapping[str, Any], **options: Any
    ) -> list[dict[str, Any]]:
        """The native declarations of an export, in the toolset's order, deferral kept."""
        deferred = set(self.deferral.deferred()) if self.deferral is not None else set()
        revealed = self.deferral.revealed if self.deferral is not None else frozenset()
        declared = []
        for tool in tools:
            form = natives.get(tool.name)
            if form is None:
                continue
            declaration = form.declare(tool, **options)
            if tool.name in deferred:
                if fmt.searches_tools:
                    declaration["defer_loading"] = True
                elif tool.name not in revealed:
                    continue  # found with search_tools, then exported
            declared.append(declaration)
        return declared

    def native_exports(self) -> NativeTools:
        """Per format, the calls read natively: the call name -> (tool, form) of each
        tool the last :meth:`export` in that format declared in its native form."""
        from toolplug.formats.forms import native_tools

        found: NativeTools = {}
        for format, chosen in self._native.items():
            if chosen:
                tools = [t for t in self.values() if t.name in chosen]
                found.update(native_tools(tools, True, formats=(format,)))
        return found

    def to_openai_tools(
        self, strict: bool = False, *, security_risk: bool = False
    ) -> list[dict[str, Any]]:
        """``export("openai")``: every tool for OpenAI Chat Completions."""
        return self.export("openai", strict=strict, security_risk=security_risk)

    def to_responses_tools(
        self, strict: bool = False, *, security_risk: bool = False, native: Native | None = None
    ) -> list[dict[str, Any]]:
        """``export("responses")``: every tool for the OpenAI Responses API (``native``:
        as for :meth:`export`)."""
        return self.export("responses", strict=strict, security_risk=security_risk, native=native)

    def to_anthropic_tools(
        self, *, security_risk: bool = False, native: Native | None = None
    ) -> list[dict[str, Any]]:
        """``export("anthropic")``: every tool for Anthropic Messages (``native``: as for
        :meth:`export`)."""
        return self.export("anthropic", security_risk=security_risk, native=native)

    def to_gemini_tools(self, *, security_risk: bool = False) -> list[dict[str, Any]]:
        """``export("gemini")``: one Gemini ``Tool`` with every function declaration."""
        return self.export("gemini", security_risk=security_risk)

    def to_bedrock_tools(self, *, security_risk: bool = False) -> list[dict[str, Any]]:
        """``export("bedrock")``: Bedrock Converse's ``toolConfig["tools"]``."""
        return self.export("bedrock", security_risk=security_risk)

    def to_mcp_tools(self, *, security_risk: bool = False) -> list[dict[str, Any]]:
        """``export("mcp")``: every tool as an MCP ``Tool`` (names stay as they are)."""
        return self.export("mcp", security_risk=security_risk)

    def render(self, observation: Observation, format: str, call_id: str = "") -> Any:
        """One observation as a format's tool result (``dispatch`` does this for a batch).

        ``call_id`` is the provider's id of the call being answered.
        """
        return self.formats[format].render_result(ToolCall(call_id, ""), observation)

    # -- calling ---------------------------------------------------------------------

    def unknown_tool(self, name: str) -> Observation:
        """The error observation for a name that is neither a tool's nor an alias."""
        from toolplug.names import unknown_tool_message

        now = self._contents
        return Observation.error(unknown_tool_message(name, now.tools, aliases=self.aliases()))

    def call(
        self,
        name: str,
        arguments: Any = None,
        *,
        timeout: float | None = None,
        call_id: str | None = None,
    ) -> Observation:
        """Call a tool by name or alias; an unknown name is an error observation that
        suggests the closest names. Never raises.

        The tool's progress, logs and questions go to :attr:`handlers`, marked with
        ``call_id`` (the provider's id of the call) when given.
        """
        tool = self.find(name)
        if tool is None:
            return self.unknown_tool(name)
        token = current.set(CallScope(self.handlers, tool.name, call_id))
        try:
            return tool.call(arguments, timeout=timeout)
        finally:
            current.reset(token)

    async def acall(
        self,
        name: str,
        arguments: Any = None,
        *,
        timeout: float | None = None,
        call_id: str | None = None,
    ) -> Observation:
        """Async :meth:`call`; async handlers run on the caller's event loop."""
        tool = self.find(name)
        if tool is None:
            return self.unknown_tool(name)
        scope = CallScope(self.handlers, tool.name, call_id, asyncio.get_running_loop())
        token = current.set(scope)
        try:
            return await tool.acall(arguments, timeout=timeout)
        finally:
            current.reset(token)

    # -- dispatch and compose (see toolplug.dispatch and toolplug.compose) -------------

    def dispatch(self, calls: Any, **options: Unpack[DispatchOptions]) -> list[Any]:
        """Run a batch of provider tool calls; results come back in the same shape.

        Calls to tools the last export declared natively (``export(format,
        native=True)``) are read and answered in their native form, unless
        ``native=`` says otherwise (see :func:`toolplug.dispatch.dispatch`)."""
        from toolplug.dispatch import dispatch

        return dispatch(self, calls, **options)

    async def adispatch(self, calls: Any, **options: Unpack[DispatchOptions]) -> list[Any]:
        """Async :meth:`dispatch`."""
        from toolplug.dispatch import adispatch

        results: list[Any] = await adispatch(self, calls, **options)
        return results

    def compose(
        self,
        output_schema: Mapping[str, Any] | type[BaseModel] | None = None,
        *,
        strict: bool = False,
    ) -> dict[str, Any]:
        """One JSON schema for a response holding tool calls and a final output
        (see :func:`toolplug.compose.compose`)."""
        from toolplug.compose import compose

        return compose(self, output_schema, strict=strict)

    def run_composed(self, response: Any, **options: Unpack[ComposedOptions]) -> ComposedResult:
        """Validate a composed response, dispatch its calls, return results and output."""
        from toolplug.compose import run_composed

        return run_composed(self, response, **options)

    # -- lifetime --------------------------------------------------------------------

    def close(self) -> None:
        """Close every tool's executor, once (those :meth:`update` removed too), and
        remove the output budget's spill files (unless it keeps them)."""
        with self._update_lock:
            if self._closed:
                return
            self._closed = True
        for tool in [*self._contents.tools.values(), *self._retired]:
            tool.close()
        if self.spill is not None:
            self.spill.close()

    async def aclose(self) -> None:
        """Close every tool's executor, once, concurrently."""
        with self._update_lock:
            if self._closed:
                return
            self._closed = True
        tools = [*self._contents.tools.values(), *self._retired]
        await asyncio.gather(*(tool.aclose() for tool in tools))
        if self.spill is not None:
            self.spill.close()

    def __enter__(self) -> Toolset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Toolset:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
