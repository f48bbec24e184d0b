"""Finding installed plugins through entry points and loading the enabled ones.

Listing reads package metadata only, and with it the range of core versions each plugin
declares (its ``Requires-Dist: toolplug ...``): a plugin whose range leaves out this core
is reported and never imported. Loading imports exactly the enabled plugins and
registers them with a pluggy plugin manager, checking their hooks as pluggy's
``check_pending`` does; a plugin that fails to import or to pass the checks is reported
and skipped, never fatal. What the plugins register (tools) is the registry's business:
:mod:`toolplug.registry` fills itself from the plugin manager this module loads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

from toolplug._text import MESSAGE_LIMIT, cut, cut_list
from toolplug.errors import PluginSelectionError

if TYPE_CHECKING:
    import pluggy

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
    #: Tool names this plugin shares with another plugin: one message per name, naming
    #: every distribution. None of them gets the name, the plugin's other tools load.
    conflicts: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, as ``toolplug plugins --json`` prints it."""
        return asdict(self)


class LoadGuard:
    """Tells a plugin's own ``KeyboardInterrupt`` from the user's Ctrl-C while loading.

    Loading runs plugin code (its import, its hooks), and a plugin that calls
    ``sys.exit()`` or raises ``KeyboardInterrupt`` (or any ``BaseException``) there is
    broken like one that raises ``ValueError``: the loaders catch ``BaseException`` and
    report it. A real Ctrl-C must still stop the host, so while the guard is entered
    (in the main thread), a SIGINT handler records that a SIGINT arrived and then does
    what the handler before it did (Python's own raises ``KeyboardInterrupt``). A
    failure that comes after a real SIGINT is the user's interrupt, not the plugin's:
    :meth:`check` raises ``KeyboardInterrupt`` for it, and leaving the guard raises it
    if a plugin swallowed the interrupt. In another thread no SIGINT is delivered (Python
    runs signal handlers in the main thread), so every failure there is the plugin's.
    """

    def __init__(self) -> None:
        self.interrupted = False
        self._previous: Any = None

    def __enter__(self) -> LoadGuard:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return self
        previous = signal.getsignal(signal.SIGINT)
        if not callable(previous):  # SIG_IGN or SIG_DFL: no KeyboardInterrupt to tell apart
            return self

        def on_sigint(signum: int, frame: Any) -> Any:
            self.interrupted = True
            return previous(signum, frame)

        try:
            signal.signal(signal.SIGINT, on_sigint)
        except ValueError:  # not the main interpreter
            return self
        self._previous = previous
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if self._previous is not None:
            import signal

            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        if self.interrupted and exc_type is None:
            raise KeyboardInterrupt

    def check(self, exc: BaseException) -> None:
        """Raise ``KeyboardInterrupt`` if ``exc`` came after a real SIGINT; else return."""
        if self.interrupted:
            if isinstance(exc, KeyboardInterrupt):
                raise exc
            raise KeyboardInterrupt from exc


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


def installed_plugins(
    plugins: str | Iterable[str] | None = None,
    *,
    eps: list[metadata.EntryPoint] | None = None,
) -> list[PluginReport]:
    """Every installed plugin, marked enabled or not by the selection. Imports nothing.

    ``eps`` are the entry points if the caller has read them already (reading them
    scans every installed distribution). Raises
    :class:`~toolplug.errors.PluginSelectionError` when the selection names a plugin
    that is not installed.
    """
    eps = installed_entry_points() if eps is None else eps
    selection = parse_selection(plugins)
    names = {ep.name for ep in eps}
    if selection is not None:
        unknown = [name for name in selection if name not in names]
        if unknown:
            raise PluginSelectionError(
                f"plugin(s) not installed: {cut_list(unknown)}. "
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
    _report_clashes(reports)
    for ep, report in zip(eps, reports):
        if report.error is None:
            report.error = core_range_error(ep, report)
            if report.error and report.enabled:
                report.status = "broken"
    return reports


def _core_requirement(ep: metadata.EntryPoint) -> str | None:
    """The specifiers of the plugin's ``Requires-Dist: toolplug ...``, or ``None``.

    Read from the METADATA file's headers with a line scan (no email parser: see
    :func:`_dist_of`). Only an unconditional requirement counts: one with a marker
    (``; extra == "test"``, ``; python_version < ...``) applies to some installs only.
    """
    dist = getattr(ep, "dist", None)
    try:
        text = dist.read_text("METADATA") if dist is not None else None
    except (OSError, ValueError):  # unreadable, or not UTF-8: nothing declared
        return None
    if not text:
        return None
    for line in text.splitlines():
        if not line:
            break  # the end of the headers: the long description follows
        # (a line of spaces is a folded header's continuation, e.g. a long License)
        key, _, value = line.partition(":")
        if key.strip().lower() != "requires-dist" or ";" in value:
            continue
        match = _REQUIREMENT.match(value.strip())
        if match and re.sub(r"[-_.]+", "-", match["name"]).lower() == "toolplug":
            return match["specifiers"].strip()
    return None


#: ``name [extras] specifiers`` (also in the older ``name (specifiers)`` spelling).
_REQUIREMENT = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?(?P<specifiers>[^()@]*)\)?$"
)


def core_range_error(ep: metadata.EntryPoint, report: PluginReport) -> str | None:
    """Why the plugin cannot load with this core, or ``None`` when it can.

    A plugin declares the core versions it supports by its distribution's requirement
    on ``toolplug`` (``toolplug>=0.2,<0.3``). A core outside that range is refused
    before the plugin is imported: its import or its hooks would fail in ways that do
    not say why. A range the core cannot read is not held against the plugin.
    """
    from toolplug import __version__
    from toolplug._versions import contains

    specifiers = _core_requirement(ep)
    if not specifiers or contains(specifiers, __version__) is not False:
        return None
    # Lower bounds first, as people write ranges (metadata sorts them: "<0.3,>=0.2").
    clauses = [clause.strip() for clause in specifiers.split(",")]
    specifiers = ",".join(sorted(clauses, key=lambda c: not c.startswith((">", "~", "="))))
    dist = report.distribution or "its distribution"
    return (
        f"{dist} {report.version or ''} supports toolplug {specifiers}, but toolplug "
        f"{__version__} is installed, so it is not loaded. Install a {dist} release made "
        f"for toolplug {__version__}, or a toolplug in its range "
        f"(pip install 'toolplug{specifiers}')."
    ).replace("  ", " ")


def _report_clashes(reports: list[PluginReport]) -> None:
    """Mark every plugin whose entry-point name another distribution also uses.

    pluggy knows a plugin by that name, so only one of them could be registered, and
    which one would depend on the order of ``sys.path``: neither is loaded instead.
    """
    by_name: dict[str, list[PluginReport]] = {}
    for report in reports:
        by_name.setdefault(report.name, []).append(report)
    for name, same in by_name.items():
        if len(same) < 2:
            continue
        same.sort(key=lambda r: (r.distribution or "", r.version or ""))
        dists = [f"{r.distribution or '?'} {r.version or ''}".strip() for r in same]
        listed = ", ".join(dists[:-1]) + " and " + dists[-1]
        error = (
            f"the plugin name '{name}' is used by {len(same)} distributions, {listed}; "
            f"{'neither' if len(same) == 2 else 'none of them'} is loaded. "
            "Uninstall all but one of them "
            f"(pip uninstall {same[-1].distribution or '...'})."
        )
        for report in same:
            report.error = error
            if report.enabled:
                report.status = "broken"


def plugin_manager(*, bare: bool = False) -> pluggy.PluginManager:
    """A fresh plugin manager that knows toolplug's hook specifications.

    It holds toolplug's own ``tool_call`` implementation, the one that runs the tool
    (see `toolplug._builtin_hooks`), so that pluggy calls the hook as a whole, and the
    core's formats (`toolplug.formats.core`), registered before any plugin's; it
    refuses an ``async def`` hook implementation when its plugin registers. A ``bare``
    one holds neither: it is for asking plugins (their settings), not for calls.
    """
    from toolplug import _builtin_hooks, hookspecs

    pm: pluggy.PluginManager = _builtin_hooks.PluginManager(ENTRY_POINT_GROUP)
    pm.add_hookspecs(hookspecs)
    if bare:
        return pm
    from toolplug.formats import core as core_formats

    pm.register(_builtin_hooks, name=_builtin_hooks.NAME)
    pm.register(core_formats, name=core_formats.NAME)
    return pm


def error_text(exc: BaseException) -> str:
    """An exception as a report shows it: type, message, and where it was raised."""
    import traceback

    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" (at {last[0].filename}:{last[0].lineno})" if last else ""
    try:
        message = cut(str(exc), MESSAGE_LIMIT)
    except Exception as inner:
        message = f"(its message could not be read: {type(inner).__name__})"
    return f"{type(exc).__name__}{': ' if message else ''}{message}{where}"


def known_hooks(pm: pluggy.PluginManager) -> list[str]:
    """The names of the hooks ``pm`` has specifications for, sorted."""
    return sorted(
        name
        for name, caller in vars(pm.hook).items()
        if not name.startswith("_") and caller.has_spec()
    )


def hook_mistakes(pm: pluggy.PluginManager, plugin: object) -> str | None:
    """What is wrong with a registered plugin's hooks, or ``None`` when nothing is.

    pluggy's ``check_pending`` in one plugin's terms: an implementation of a hook that
    has no specification (a misspelled name) is an error, unless marked
    ``optionalhook``; and so is a plugin with no implementation at all, which would
    otherwise load as ``ok`` and contribute nothing.
    """
    hooks = known_hooks(pm)
    known = f"Known hooks: {', '.join(hooks)}."
    callers = pm.get_hookcallers(plugin) or []
    unknown = []
    for caller in callers:
        if caller.has_spec():
            continue
        for impl in caller.get_hookimpls():
            if impl.plugin is plugin and not impl.optionalhook:
                function = impl.function.__name__
                what = function if function == caller.name else f"{function} (as {caller.name})"
                unknown.append(what + _did_you_mean(caller.name, hooks))
    if unknown:
        return (
            f"{'; '.join(unknown)}: marked @hookimpl, but no toolplug hook has that name. {known}"
        )
    if callers:
        return None
    message = "no function is marked @hookimpl (from toolplug import hookimpl)."
    unmarked = []
    for attr in dir(plugin):
        if attr.startswith("_") or not callable(getattr(plugin, attr, None)):
            continue
        if attr in hooks:
            unmarked.append(f"{attr} is named like a hook but not marked @hookimpl")
        elif _did_you_mean(attr, hooks):
            unmarked.append(f"{attr} is not marked @hookimpl{_did_you_mean(attr, hooks)}")
    if unmarked:
        message += " " + "; ".join(unmarked) + "."
    return f"{message} {known}"


def _did_you_mean(name: str, hooks: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, hooks, n=1, cutoff=0.8)
    return f" (did you mean {close[0]}?)" if close else ""


def register_plugin(pm: pluggy.PluginManager, name: str, plugin: object) -> str | None:
    """Register one plugin object and check its hooks; the error text, or ``None``.

    A plugin that fails the check is unregistered again, so that it has no effect.
    """
    import pluggy

    # pluggy's own messages for these two would dump every registered plugin
    other = pm.get_name(plugin)
    if other is not None:
        return f"it is the same object as the plugin '{other}', which is loaded instead"
    if pm.has_plugin(name):
        return f"the plugin name '{name}' is taken by {pm.get_plugin(name)!r}"
    try:
        pm.register(plugin, name=name)
    except pluggy.PluginValidationError as exc:  # a hook's signature: where is pluggy's
        return f"{type(exc).__name__}: {exc}"
    except Exception as exc:
        return error_text(exc)
    mistake = hook_mistakes(pm, plugin)
    if mistake is not None:
        pm.unregister(plugin)
    return mistake


def load_plugins(
    plugins: str | Iterable[str] | None = None,
    pm: pluggy.PluginManager | None = None,
    *,
    eps: list[metadata.EntryPoint] | None = None,
) -> tuple[pluggy.PluginManager, list[PluginReport]]:
    """Import the enabled plugins and register them with a plugin manager.

    ``eps`` are the installed entry points, if the caller has read them already.

    Plugins that fail to import (raising anything, ``SystemExit`` included), fail
    pluggy's checks, or whose entry-point name is taken by another distribution are
    reported as broken and left out. The user's Ctrl-C still stops the load (see
    :class:`LoadGuard`).
    """
    pm = pm or plugin_manager()
    eps = installed_entry_points() if eps is None else eps
    reports = installed_plugins(plugins, eps=eps)
    # A name two distributions claim is already reported broken: neither is loaded.
    by_name = {ep.name: ep for ep in eps}
    with LoadGuard() as guard:
        for report in reports:
            if not report.enabled or report.error:
                continue
            try:
                obj = by_name[report.name].load()
            except BaseException as exc:  # sys.exit() at import too: see LoadGuard
                guard.check(exc)
                report.status, report.error = "broken", error_text(exc)
                continue
            try:
                error = register_plugin(pm, report.name, obj)
            except BaseException as exc:  # a plugin object whose attributes raise
                guard.check(exc)
                error = error_text(exc)
            report.status, report.error = ("broken", error) if error else ("ok", None)
    return pm, reports


def call_each(
    pm: pluggy.PluginManager,
    hook_name: str,
    kwargs_for: Callable[[str], dict[str, Any]],
    on_error: Callable[[str, BaseException], None],
) -> None:
    """Call one hook plugin by plugin, so a failure is charged to the plugin that raised.

    Any exception counts, ``SystemExit`` and the plugin's own ``KeyboardInterrupt``
    included; the user's Ctrl-C still stops the call (see :class:`LoadGuard`).
    """
    hook = getattr(pm.hook, hook_name)
    with LoadGuard() as guard:
        for impl in reversed(hook.get_hookimpls()):
            kwargs = kwargs_for(impl.plugin_name)
            try:
                impl.function(*[kwargs[name] for name in impl.argnames])
            except BaseException as exc:  # sys.exit() in a hook too: see LoadGuard
                guard.check(exc)
                on_error(impl.plugin_name, exc)
