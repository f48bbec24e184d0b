"""Finding installed plugins through entry points and loading the enabled ones.

Listing reads package metadata only. Loading imports exactly the enabled plugins; one
that fails to import or whose hook raises is reported and skipped, never fatal.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

from toolplug.errors import PluginSelectionError

if TYPE_CHECKING:
    import pluggy

    from toolplug.registry import ToolRegistry

ENTRY_POINT_GROUP = "toolplug"
ENV_VAR = "TOOLPLUG_PLUGINS"


@dataclass
class PluginReport:
    """One installed plugin: where it comes from, whether it is enabled, and how it did."""

    name: str
    distribution: str | None
    version: str | None
    value: str
    enabled: bool = True
    status: str = "not loaded"  # "ok", "broken", "disabled" or "not loaded"
    error: str | None = None
    tools: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, as ``toolplug plugins --json`` prints it."""
        return asdict(self)


def installed_entry_points() -> list[metadata.EntryPoint]:
    """Entry points in the ``toolplug`` group, sorted by name (imports nothing)."""
    return sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def _dist_of(ep: metadata.EntryPoint) -> tuple[str | None, str | None]:
    """The distribution's name and version.

    Read from the ``.dist-info`` folder's name where there is one (``name-version``, as
    the wheel spec lays it out): parsing every plugin's METADATA file would cost about a
    millisecond each, which is most of ``toolplug plugins`` with many plugins installed.
    """
    dist = getattr(ep, "dist", None)
    if dist is None:
        return None, None
    folder = getattr(dist, "_path", None)
    if folder is not None and folder.name.endswith(".dist-info"):
        name, sep, version = folder.name[: -len(".dist-info")].partition("-")
        if sep and version:
            return name.replace("_", "-"), version
    return dist.metadata["Name"], dist.version


def parse_selection(plugins: str | Iterable[str] | None) -> list[str] | None:
    """The enabled plugin names: the argument, else ``TOOLPLUG_PLUGINS``; ``None`` = all.

    An empty string or list enables none.
    """
    if plugins is None:
        plugins = os.environ.get(ENV_VAR)
        if plugins is None:
            return None
    if isinstance(plugins, str):
        plugins = plugins.split(",")
    return [name.strip() for name in plugins if name.strip()]


def installed_plugins(plugins: str | Iterable[str] | None = None) -> list[PluginReport]:
    """Every installed plugin, marked enabled or not by the selection. Imports nothing.

    Raises :class:`~toolplug.errors.PluginSelectionError` when the selection names a
    plugin that is not installed.
    """
    eps = installed_entry_points()
    selection = parse_selection(plugins)
    names = {ep.name for ep in eps}
    if selection is not None:
        unknown = [name for name in selection if name not in names]
        if unknown:
            raise PluginSelectionError(
                f"plugin(s) not installed: {', '.join(unknown)}. "
                f"Installed plugins: {', '.join(sorted(names)) or 'none'}."
            )
    reports = []
    for ep in eps:
        dist, version = _dist_of(ep)
        enabled = selection is None or ep.name in selection
        reports.append(
            PluginReport(
                name=ep.name,
                distribution=dist,
                version=version,
                value=ep.value,
                enabled=enabled,
                status="not loaded" if enabled else "disabled",
            )
        )
    return reports


def plugin_manager() -> pluggy.PluginManager:
    """A fresh plugin manager that knows toolplug's hook specifications.

    It holds toolplug's own ``tool_call`` implementation, the one that runs the tool
    (see `toolplug._builtin_hooks`), so that pluggy calls the hook as a whole, and it
    refuses an ``async def`` hook implementation when its plugin registers.
    """
    from toolplug import _builtin_hooks, hookspecs

    pm: pluggy.PluginManager = _builtin_hooks.PluginManager(ENTRY_POINT_GROUP)
    pm.add_hookspecs(hookspecs)
    pm.register(_builtin_hooks, name=_builtin_hooks.NAME)
    return pm


def _error_text(exc: BaseException) -> str:
    import traceback

    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" (at {last[0].filename}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"


def load_plugins(
    plugins: str | Iterable[str] | None = None,
    pm: pluggy.PluginManager | None = None,
) -> tuple[pluggy.PluginManager, list[PluginReport]]:
    """Import the enabled plugins and register them with a plugin manager."""
    pm = pm or plugin_manager()
    reports = installed_plugins(plugins)
    eps = {ep.name: ep for ep in installed_entry_points()}
    for report in reports:
        if not report.enabled:
            continue
        try:
            obj = eps[report.name].load()
            pm.register(obj, name=report.name)
        except Exception as exc:
            report.status, report.error = "broken", _error_text(exc)
        else:
            report.status = "ok"
    return pm, reports


def call_each(
    pm: pluggy.PluginManager,
    hook_name: str,
    kwargs_for: Callable[[str], dict[str, Any]],
    on_error: Callable[[str, BaseException], None],
) -> None:
    """Call one hook plugin by plugin, so a failure is charged to the plugin that raised."""
    hook = getattr(pm.hook, hook_name)
    for impl in reversed(hook.get_hookimpls()):
        kwargs = kwargs_for(impl.plugin_name)
        try:
            impl.function(*[kwargs[name] for name in impl.argnames])
        except Exception as exc:
            on_error(impl.plugin_name, exc)


def fill_registry(
    registry: ToolRegistry, pm: pluggy.PluginManager, reports: list[PluginReport]
) -> ToolRegistry:
    """Let every registered plugin register its tools into ``registry``."""
    from toolplug.registry import Source

    by_name = {r.name: r for r in reports}

    def source_of(plugin: str) -> Source:
        report = by_name.get(plugin)
        if report is None:
            return Source(plugin)
        return Source(plugin, report.distribution, report.version)

    def kwargs_for(plugin: str) -> dict[str, Any]:
        source = source_of(plugin)

        def register(tool: Any, name: str | None = None, aliases: Iterable[str] = ()) -> str:
            registered = registry.register(tool, name=name, aliases=aliases, source=source)
            if plugin in by_name:
                by_name[plugin].tools.append(registered)
            return registered

        return {"register": register}

    def on_error(plugin: str, exc: BaseException) -> None:
        registry.unregister_source(plugin)
        report = by_name.get(plugin)
        if report is not None:
            report.status, report.error, report.tools = "broken", _error_text(exc), []
        pm.unregister(name=plugin)

    call_each(pm, "register_tools", kwargs_for, on_error)
    registry.reports = reports
    registry._hooks = pm.hook.tool_call
    return registry


def load_registry(plugins: str | Iterable[str] | None = None) -> ToolRegistry:
    """A registry filled from the enabled installed plugins.

    ``plugins`` is the selection: a comma-separated string or a list of entry-point
    names; ``None`` falls back to ``TOOLPLUG_PLUGINS``, and when that is unset too,
    every installed plugin is enabled.
    """
    from toolplug.registry import ToolRegistry

    pm, reports = load_plugins(plugins)
    return fill_registry(ToolRegistry(), pm, reports)
