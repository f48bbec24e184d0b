"""The :class:`ToolRegistry`: every tool that is available, by name."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolplug import guards as _guards, plugins as _plugins
from toolplug._text import cut_list
from toolplug.context import Tool, ToolContext
from toolplug.definition import ToolDefinition
from toolplug.errors import (
    PolicyError,
    ToolConflictError,
    ToolError,
    ToolParamsError,
    UnknownToolError,
)
from toolplug.formats import FormatRegistry, default_formats, fill_formats
from toolplug.names import unknown_tool_message
from toolplug.params import FactoryParams, factory_of, factory_params
from toolplug.plugins import PluginReport

if TYPE_CHECKING:
    import pluggy
    from pluggy import HookCaller

    from toolplug.presets import PresetTable

log = logging.getLogger("toolplug")


@dataclass(frozen=True)
class Source:
    """Where a registration came from: the plugin and its distribution."""

    plugin: str
    distribution: str | None = None
    version: str | None = None

    def __str__(self) -> str:
        if self.distribution:
            return f"{self.distribution} {self.version or ''} (plugin '{self.plugin}')".replace(
                "  ", " "
            )
        return f"plugin '{self.plugin}'"


@dataclass
class Registration:
    """One registered tool: what to build it from, and where it came from."""

    name: str
    target: Any
    kind: str  # "instance", "class" or "factory"
    aliases: tuple[str, ...] = ()
    source: Source | None = None
    conflicts: list[Source | None] = field(default_factory=list)

    @property
    def params(self) -> FactoryParams:
        """The params it is created with (none for an instance), read once."""
        return factory_params(factory_of(self.target, self.kind))


class ToolRegistry:
    """What is available: tool name -> instance, class or factory, with aliases.

    Usually filled from installed plugins with :meth:`from_plugins`; tests and embedded
    hosts can :meth:`register` directly. :meth:`resolve` turns a :class:`Tool` spec into
    created :class:`ToolDefinition` objects.
    """

    def __init__(self) -> None:
        self._tools: dict[str, Registration] = {}
        self._aliases: dict[str, str] = {}
        #: What happened to each plugin when this registry was loaded.
        self.reports: list[PluginReport] = []
        self._hooks: HookCaller | None = None
        self._plugin_manager: pluggy.PluginManager | None = None
        #: For plugins from the installed entry points (from_plugins): the installed
        #: guards' settings and load reports, read once when the registry was loaded.
        self._installed_guards: tuple[dict[str, _guards.Option], list[PluginReport]] | None
        self._installed_guards = None
        #: The provider formats: the core's, and those of the plugins loaded with it.
        self.formats: FormatRegistry = default_formats()
        self._presets: PresetTable | None = None

    @classmethod
    def from_plugins(
        cls,
        plugins: str | Iterable[str] | None = None,
        *,
        tools: Iterable[str] | None = None,
        settings: Mapping[str, Any] | None = None,
        policy: Any = None,
        approver: Callable[..., Any] | None = None,
    ) -> ToolRegistry:
        """A registry filled from the enabled installed plugins.

        ``plugins`` is the selection: a comma-separated string or a list of entry-point
        names; ``None`` falls back to ``TOOLPLUG_PLUGINS``, and when that is unset too,
        every installed plugin is enabled.

        ``tools`` names the tools the caller is about to resolve. With no selection at
        all, and when every one of those names is a plugin's entry-point name, only
        those plugins and the installed guard plugins (see :mod:`toolplug.guards`) are
        imported; if some name is no entry point's, or a plugin so loaded does not
        register its namesake, every plugin is loaded after all.

        ``settings`` are the plugins' settings (see :meth:`apply_settings`); those not
        given are read from the environment variables the plugins declare for them. A
        guard plugin whose setting is given is loaded even when the selection leaves it
        out. ``policy`` is the shortcut for ``settings={"policy": policy}`` (a
        permission policy file, else ``TOOLPLUG_POLICY``; needs ``toolplug-policy``),
        ``approver`` the host's callable for calls a guard asks about.
        """
        settings = _guards.with_policy(settings, policy)
        selection = _plugins.parse_selection(plugins)
        eps = _plugins.installed_entry_points()
        options, guard_reports = _guards.guard_options(eps)
        settings = _guards.given_settings(settings, options)
        # A guard whose setting is given comes whatever the selection (only for its
        # hooks); a narrowed load takes every guard.
        owners = {options[name].plugin for name in settings if name in options}
        if selection is not None and not owners.issubset(selection):
            selection = [*selection, *sorted(owners - set(selection))]
        registry: ToolRegistry | None = None
        if selection is None and tools is not None:
            wanted = sorted(set(tools))
            if {ep.name for ep in eps}.issuperset(wanted):
                guards = [r.name for r in guard_reports]
                names = sorted({*wanted, *guards})
                registry = cls.from_plugin_manager(*_plugins.load_plugins(names, eps=eps))
                if not all(name in registry for name in wanted):
                    registry = None
        if registry is None:
            registry = cls.from_plugin_manager(*_plugins.load_plugins(selection, eps=eps))
        registry._installed_guards = (options, guard_reports)
        if settings:
            registry.apply_settings(settings, approver)
        return registry

    @classmethod
    def from_plugin_manager(
        cls, pm: pluggy.PluginManager, reports: list[PluginReport]
    ) -> ToolRegistry:
        """A registry filled by the plugins registered with ``pm``.

        Every plugin's ``register_tools`` hook is called on its own; one that raises is
        marked broken in ``reports``, its tools are forgotten, and it is unregistered.
        """
        registry = cls()
        by_name = {r.name: r for r in reports}

        def kwargs_for(plugin: str) -> dict[str, Any]:
            report = by_name.get(plugin)
            source = (
                Source(plugin, report.distribution, report.version) if report else Source(plugin)
            )

            def register(tool: Any, name: str | None = None, aliases: Iterable[str] = ()) -> str:
                registered = registry.register(tool, name=name, aliases=aliases, source=source)
                if report is not None:
                    report.tools.append(registered)
                return registered

            return {"register": register}

        def on_error(plugin: str, exc: BaseException) -> None:
            registry.unregister_source(plugin)
            report = by_name.get(plugin)
            if report is not None:
                report.status, report.error, report.tools = "broken", _plugins.error_text(exc), []
            pm.unregister(name=plugin)

        # A plugin declaring a setting another declared first is broken (toolplug.guards).
        for plugin, error in _guards.setting_clashes(pm).items():
            report = by_name.get(plugin)
            if report is not None:
                report.status, report.error = "broken", error
            pm.unregister(name=plugin)
        _plugins.call_each(pm, "register_tools", kwargs_for, on_error)
        for name, message in registry.clashes().items():
            entry = registry._tools[name]
            for source in (entry.source, *entry.conflicts):
                report = by_name.get(source.plugin) if source else None
                if report is not None:
                    report.conflicts.append(message)
        registry.formats = FormatRegistry()
        with _plugins.LoadGuard():  # a Ctrl-C during it is raised on leaving
            failures = fill_formats(registry.formats, pm)
        for plugin, exc in failures:
            on_error(plugin, exc)
        registry.reports = reports
        registry._hooks = pm.hook.tool_call
        registry._plugin_manager = pm
        return registry

    def apply_settings(
        self, settings: Mapping[str, Any], approver: Callable[..., Any] | None = None
    ) -> None:
        """Hand the plugins their settings: each guard so given governs every call of
        this registry's tools, resolved before and after alike.

        ``settings`` maps a setting's name to its value; each goes to the plugin that
        declared it (`add_options` hook), loaded or installed guard, whose `load_guard`
        hook returns what wraps the calls. ``approver`` (sync or async;
        ``approver(tool, action, reason) -> bool``) answers the calls a guard asks about.

        Raises :class:`PolicyError` for a setting no plugin takes (the message lists
        the known ones) or that its plugin cannot apply: then no tool should be used.
        """
        if self._plugin_manager is None:
            raise PolicyError(
                "this registry was not loaded from plugins, so it has no plugin to take "
                "settings: build it with ToolRegistry.from_plugins(settings=...)"
            )
        pm = self._plugin_manager
        broken: dict[str, str] = {}  # the plugins that could not say what they take
        options = _guards.plugin_options(pm, broken)
        if self._installed_guards is not None:
            installed, reports = self._installed_guards
            options = {**installed, **options}
            broken.update({r.name: r.error for r in reports if r.error})
        given = _guards.given_settings(settings, options, env=False)

        def load(plugin: str) -> None:
            """Load an installed guard the selection left out: its hooks count, its
            tools (if it had any) are not added."""
            _pm, reports = _plugins.load_plugins([plugin], pm)
            self.reports.extend(reports)

        _guards.apply_settings(pm, given, options, approver, load=load, broken=broken)

    def apply_policy(self, policy: Any, approver: Callable[..., Any] | None = None) -> None:
        """The shortcut for ``apply_settings({"policy": policy}, approver)``: make every
        call go through a permission policy (``toolplug-policy``'s setting)."""
        self.apply_settings(_guards.with_policy(None, policy), approver)

    @property
    def presets(self) -> PresetTable:
        """The tool sets per model family: the core's table and what the loaded plugins
        add (see :mod:`toolplug.presets`), read when first asked for."""
        if self._presets is None:
            from toolplug.presets import preset_table

            self._presets = preset_table(self._plugin_manager, formats=list(self.formats))
        return self._presets

    # -- registering -----------------------------------------------------------------

    def register(
        self,
        tool: Any,
        *,
        name: str | None = None,
        aliases: Iterable[str] = (),
        source: Source | None = None,
    ) -> str:
        """Register a tool instance, a ``ToolDefinition`` subclass, or a factory.

        Returns the name it was registered under.
        """
        default: str | None
        if isinstance(tool, ToolDefinition):
            kind, default = "instance", tool.name
        elif inspect.isclass(tool) and issubclass(tool, ToolDefinition):
            kind, default = "class", getattr(tool, "name", None)
        elif callable(tool):
            kind, default = "factory", getattr(tool, "__name__", None)
        else:
            raise TypeError(
                "register() takes a ToolDefinition instance, a ToolDefinition subclass "
                f"or a factory function, not {type(tool).__name__}"
            )
        tool_name = name or default
        if not isinstance(tool_name, str) or not tool_name:
            raise TypeError(f"register({tool!r}) needs name=...")
        entry = Registration(tool_name, tool, kind, tuple(aliases), source)
        for key in (tool_name, *entry.aliases):
            self._claim(key, entry)
        self._tools.setdefault(tool_name, entry)
        return tool_name

    def _claim(self, key: str, entry: Registration) -> None:
        owner = self._owner(key)
        if owner is None:
            if key != entry.name:
                self._aliases[key] = entry.name
            return
        if owner.source == entry.source and owner.target is entry.target:
            return
        if key != entry.name:
            # An alias is a convenience: a real name or an earlier alias keeps it.
            log.warning("tool alias '%s' of %s is taken; ignored", key, entry.source)
            return
        if owner.source == entry.source and owner.source is not None:
            raise ToolError(f"{entry.source} registers the tool name '{key}' twice")
        # Two plugins want one name: neither gets it; resolving it explains why.
        owner.conflicts.append(entry.source)
        entry.conflicts.append(owner.source)

    def _owner(self, key: str) -> Registration | None:
        if key in self._tools:
            return self._tools[key]
        if key in self._aliases:
            return self._tools.get(self._aliases[key])
        return None

    def unregister_source(self, plugin: str) -> None:
        """Forget every tool a plugin registered (used when its hook fails midway)."""
        gone = {n for n, e in self._tools.items() if e.source and e.source.plugin == plugin}
        for tool_name in gone:
            del self._tools[tool_name]
        self._aliases = {a: n for a, n in self._aliases.items() if n not in gone}
        for entry in self._tools.values():  # a name it contested is no longer contested
            entry.conflicts = [s for s in entry.conflicts if s is None or s.plugin != plugin]

    # -- looking up ------------------------------------------------------------------

    def names(self) -> list[str]:
        """Registered tool names (not aliases), sorted."""
        return sorted(self._tools)

    def aliases(self) -> dict[str, str]:
        """Alias -> tool name."""
        return dict(self._aliases)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._owner(name) is not None

    def __iter__(self) -> Iterator[Registration]:
        return iter(self._tools[n] for n in self.names())

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> Registration:
        """The registration for a name or alias; clear errors for unknown or contested."""
        entry = self._owner(name)
        if entry is None:
            raise UnknownToolError(self._unknown_message(name))
        if entry.conflicts:
            raise ToolConflictError(_clash_message(entry))
        return entry

    def clashes(self) -> dict[str, str]:
        """Tool names that more than one plugin registered, each with the message that
        names them all (``get`` and ``resolve`` raise :class:`ToolConflictError` with it)."""
        return {e.name: _clash_message(e) for e in self._tools.values() if e.conflicts}

    def _unknown_message(self, name: str) -> str:
        # A factory (mcp) makes tools but is none: it is named apart, not as available.
        factories = [n for n in self.names() if self._tools[n].kind == "factory"]
        tools = [n for n in self.names() if n not in factories]
        message = unknown_tool_message(name, tools, aliases=[*self._aliases, *factories])
        if factories:
            message += (
                f" Factories, whose tools are called as FACTORY/TOOL: {', '.join(factories)}."
            )
        broken = {r.name: r for r in self.reports if r.status == "broken"}
        if name in broken:
            message += f" The plugin '{name}' is broken: {broken[name].error}"
        elif broken:
            message += f" Broken plugins (see `toolplug plugins --check`): {', '.join(broken)}."
        return message

    def resolve(
        self, spec: str | Tool, context: ToolContext | None = None
    ) -> list[ToolDefinition[Any, Any]]:
        """Create the definitions a spec names, with the spec's params."""
        spec = Tool.parse(spec)
        entry = self.get(spec.name)
        context = context or ToolContext()
        params = dict(spec.params)
        if entry.kind == "instance":
            if params:
                raise ToolParamsError(
                    f"tool '{entry.name}' takes no params, got: {cut_list(list(params))}"
                )
            created: Any = [entry.target]
        else:
            factory = entry.target.create if entry.kind == "class" else entry.target
            params = entry.params.check(entry.name, params)
            try:
                created = factory(context, **params)
            except ToolError:
                raise
            except (TypeError, ValueError) as exc:
                raise ToolParamsError(f"could not create tool '{entry.name}': {exc}") from exc
        if isinstance(created, ToolDefinition):
            created = [created]
        tools = list(created)
        for tool in tools:
            if not isinstance(tool, ToolDefinition):
                raise ToolError(
                    f"the factory of tool '{entry.name}' returned {type(tool).__name__}, "
                    "not ToolDefinition objects"
                )
        return [tool.bind_hooks(self._hooks, context) for tool in tools]

    def find(
        self,
        name: str,
        params: dict[str, Any] | None = None,
        context: ToolContext | None = None,
    ) -> Found:
        """The one tool ``name`` calls, created with ``params``, and what came with it.

        ``name`` is a registered name or alias, ``FACTORY/TOOL`` for one tool of a
        factory (only that factory is run), or the name of a tool a factory creates
        (``get_current_time``, which the ``mcp`` factory makes): then the factories are
        run one by one until one creates it, and the tools of those that did not are
        closed at once. A factory that fails, or does not take ``params``, is passed over.

        The caller closes what it gets (``with registry.find(...) as tool:``): the
        factory's other tools may share the found tool's resources (a server). Raises
        :class:`UnknownToolError` when no tool has the name, and :class:`ToolError`
        (:class:`ToolParamsError` for params) when the tool cannot be created or the
        name is a factory's, which makes more than one tool.
        """
        registered, _, wanted = name.partition("/") if "/" in name else (name, "", name)
        spec = Tool(registered, dict(params or {}))
        context = context or ToolContext()
        try:
            created = self.resolve(spec, context)
        except UnknownToolError:
            found = None if "/" in name else self._created_by_a_factory(name, spec, context)
            if found is None:
                raise  # it names the factories apart from the tools
            created = found
        matching = [t for t in created if t.name == wanted]
        if not matching and len(created) == 1 and "/" not in name:
            matching = created  # an alias: the tool has its own name
        if len(matching) == 1:
            return Found(matching[0], created)
        _close_all(created)
        if "/" in name:
            message = unknown_tool_message(wanted, [t.name for t in created])
            raise UnknownToolError(
                f"{message} (the tools '{registered}' creates, called as {registered}/TOOL)"
            )
        names = ", ".join(t.name for t in created) or "none"
        raise ToolError(
            f"'{registered}' creates these tools: {names}; call one as {registered}/TOOL"
        )

    def _created_by_a_factory(
        self, name: str, spec: Tool, context: ToolContext
    ) -> list[ToolDefinition[Any, Any]] | None:
        """The tools of the first factory that creates a tool called ``name`` (``None``:
        none does); the factories after it are not run."""
        for entry in self:
            if entry.kind == "instance":
                continue
            try:
                tools = self.resolve(Tool(entry.name, spec.params), context)
            except (Exception, SystemExit):
                continue
            if any(tool.name == name for tool in tools):
                return tools
            _close_all(tools)
        return None


@dataclass
class Found:
    """The tool :meth:`ToolRegistry.find` found, and every tool its factory created with
    it (the found one included): close them when done, or use it in a ``with`` block."""

    tool: ToolDefinition[Any, Any]
    created: list[ToolDefinition[Any, Any]]

    def close(self) -> None:
        """Close every tool created with the found one."""
        _close_all(self.created)

    def __enter__(self) -> ToolDefinition[Any, Any]:
        return self.tool

    def __exit__(self, *exc: object) -> None:
        self.close()


def _close_all(tools: Iterable[ToolDefinition[Any, Any]]) -> None:
    for tool in tools:
        tool.close()


def _installed(eps: Iterable[Any], name: str) -> bool:
    return any(ep.name == name for ep in eps)


def _clash_message(entry: Registration) -> str:
    sources = [entry.source, *entry.conflicts]
    return (
        f"the tool name '{entry.name}' is registered by more than one plugin: "
        + " and ".join(str(s or "the host") for s in sources)
        + "; none of them is loaded. Uninstall or disable all but one of them."
    )
