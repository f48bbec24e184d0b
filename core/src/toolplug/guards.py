"""Guard plugins: plugins that wrap every call, and the settings they take.

A *guard* is a plugin whose ``tool_call`` implementations wrap or refuse the calls of
every tool (a permission policy, tracing, an audit log, a third party's rule). The core
names none of them: a plugin says it is one in its distribution's metadata, with an
entry point of the same name in the ``toolplug.guards`` group beside its ``toolplug``
one:

```toml fragment
[project.entry-points.toolplug]
audit = "my_audit"

[project.entry-points."toolplug.guards"]
audit = "my_audit"
```

Being a guard changes two things. A load narrowed to the tools a host names
(``toolplug call bash``, ``Toolset.load(["bash"])``, with no plugin selection) still
loads every installed guard: the user did not choose to leave it out. And a guard's
settings are known before any tool plugin is imported, so ``toolplug call`` and
``toolplug mcp serve`` offer them as options, and a setting given to a load whose
selection leaves its guard out loads that guard (for its hooks, not its tools).

Any plugin declares its settings with the `add_options` hook; each setting is a key of
``Toolset.load(settings=...)`` and ``ToolRegistry.from_plugins(settings=...)``, an
option of the ``toolplug`` commands built with
`toolplug.guard_options.OptionsCommand`, and may be read from an environment variable.
The values given reach the plugin that declared them through its `load_guard` hook,
which returns the object that governs that registry's calls. A setting belongs to one
plugin: a later plugin that declares it too is reported broken and left out (see
`plugin_options`). See docs/hooks.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any

from toolplug import plugins as _plugins
from toolplug.errors import PolicyError

if TYPE_CHECKING:
    import pluggy

__all__ = [
    "GUARD_GROUP",
    "Option",
    "Options",
    "apply_settings",
    "guard_options",
    "installed_guards",
    "plugin_options",
    "setting_clashes",
    "with_policy",
]

#: The entry-point group in which a plugin declares itself a guard (same name).
GUARD_GROUP = "toolplug.guards"

#: Where to get the plugin behind a shortcut the core keeps (``Toolset.load(policy=)``).
_SHORTCUT_DISTRIBUTIONS = {"policy": "toolplug-policy"}


@dataclass(frozen=True)
class Option:
    """One setting a plugin takes, as it declared it with ``options.add(...)``."""

    #: The key in ``settings={...}``: a Python identifier (``"policy"``).
    name: str
    #: One line for ``--help``.
    help: str
    #: The entry-point name of the plugin that declared it.
    plugin: str
    #: What ``--help`` shows for the value.
    metavar: str = "VALUE"
    #: An environment variable read when the setting is not given.
    env: str | None = None
    #: The value is a file's path: the CLI refuses a directory and passes a `Path`.
    file: bool = False

    @property
    def flag(self) -> str:
        """The command-line option: ``--`` and the name with dashes."""
        return "--" + self.name.replace("_", "-")


class Options:
    """What the `add_options` hook gets: call :meth:`add` once per setting."""

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        #: The settings declared so far.
        self.declared: list[Option] = []

    def add(
        self,
        name: str,
        *,
        help: str,
        metavar: str = "VALUE",
        env: str | None = None,
        file: bool = False,
    ) -> None:
        """Declare the setting ``name`` (a Python identifier, such as ``"policy"``).

        ``help`` is its line in ``--help``; ``env`` an environment variable read when it
        is not given; ``file`` marks a file's path (the CLI passes a `pathlib.Path`).
        """
        if not (isinstance(name, str) and name.isidentifier()):
            raise ValueError(f"a setting's name must be a Python identifier, not {name!r}")
        if any(option.name == name for option in self.declared):
            raise ValueError(f"the plugin '{self.plugin}' declares the setting {name!r} twice")
        self.declared.append(Option(name, help, self.plugin, metavar, env, file))


def installed_guards(eps: list[metadata.EntryPoint] | None = None) -> list[str]:
    """The names of the installed plugins that declare themselves guards (sorted).

    Read from metadata only; a ``toolplug.guards`` entry point counts when the same
    distribution has a ``toolplug`` entry point of that name.
    """
    eps = _plugins.installed_entry_points() if eps is None else eps
    guards = set()
    for ep in eps:
        dist = getattr(ep, "dist", None)
        if dist is None:
            continue
        try:
            marked = dist.entry_points.select(group=GUARD_GROUP, name=ep.name)
        except Exception:  # unreadable metadata: not a guard, the load reports the rest
            continue
        if marked:
            guards.add(ep.name)
    return sorted(guards)


def plugin_options(
    pm: pluggy.PluginManager, failures: dict[str, str] | None = None
) -> dict[str, Option]:
    """The settings the plugins registered with ``pm`` declare, by name.

    A plugin whose `add_options` raises declares nothing (its error goes in
    ``failures``, by plugin name). So does one that declares a setting a plugin
    registered before it declares, as pytest refuses an option added twice: the first
    keeps the setting (plugins are loaded in the order of their names), and the error
    names the setting and both plugins (see :func:`setting_clashes`).
    """
    collected, failed = _declared(pm)
    found, clashes = _assign(collected)
    if failures is not None:
        failures.update(failed)
        failures.update(clashes)
    return found


def setting_clashes(pm: pluggy.PluginManager) -> dict[str, str]:
    """The plugins registered with ``pm`` that declare a setting an earlier one declares,
    by name, with the error to report them broken by (see :func:`plugin_options`)."""
    return _assign(_declared(pm)[0])[1]


def _declared(pm: pluggy.PluginManager) -> tuple[list[Options], dict[str, str]]:
    """What each plugin declares, in the order they were registered, and the errors of
    those whose `add_options` raised (they declare nothing)."""
    collected: list[Options] = []
    failed: dict[str, str] = {}

    def kwargs_for(plugin: str) -> dict[str, Any]:
        collected.append(Options(plugin))
        return {"options": collected[-1]}

    def on_error(plugin: str, exc: BaseException) -> None:
        collected.pop()  # what it declared before it raised does not count
        failed[plugin] = f"its add_options hook failed: {_plugins.error_text(exc)}"

    _plugins.call_each(pm, "add_options", kwargs_for, on_error)
    order = {name: index for index, (name, _) in enumerate(pm.list_name_plugin())}
    collected.sort(key=lambda options: order.get(options.plugin, len(order)))
    return collected, failed


def _assign(collected: list[Options]) -> tuple[dict[str, Option], dict[str, str]]:
    """Each setting to the first plugin that declares it; the plugins that come later
    with one already taken declare nothing, with the error that says why."""
    found: dict[str, Option] = {}
    clashes: dict[str, str] = {}
    for options in collected:
        taken = [
            found[option.name]
            for option in options.declared
            if option.name in found and found[option.name].plugin != options.plugin
        ]
        if taken:
            clashes[options.plugin] = _clash_message(options.plugin, taken[0])
            continue
        for option in options.declared:
            found.setdefault(option.name, option)
    return found, clashes


def _clash_message(plugin: str, kept: Option) -> str:
    """Why ``plugin`` is left out: ``kept``'s plugin declared that setting first."""
    return (
        f"its setting '{kept.name}' ({kept.flag}) is declared by the plugin "
        f"'{kept.plugin}' too, which keeps it, so '{plugin}' is not loaded (as pytest "
        f"refuses an option added twice). Uninstall one of '{kept.plugin}' and "
        f"'{plugin}', or have one of them rename the setting."
    )


def guard_options(
    eps: list[metadata.EntryPoint] | None = None,
) -> tuple[dict[str, Option], list[_plugins.PluginReport]]:
    """The settings every installed guard declares, and the guards' load reports.

    The guards are imported (into a plugin manager of their own) to ask them; none of
    their hooks other than `add_options` runs.
    """
    eps = _plugins.installed_entry_points() if eps is None else eps
    guards = installed_guards(eps)
    if not guards:
        return {}, []
    # Only the guards' entry points: each one checked costs a read of its METADATA, and
    # every load comes here (same-named ones stay, to be reported as a clash).
    eps = [ep for ep in eps if ep.name in guards]
    pm, reports = _plugins.load_plugins(guards, _plugins.plugin_manager(bare=True), eps=eps)
    failures: dict[str, str] = {}
    options = plugin_options(pm, failures)
    for report in reports:  # the reports of this side load only: none is shown
        report.error = report.error or failures.get(report.name)
    return options, reports


def with_policy(settings: Mapping[str, Any] | None, policy: Any) -> dict[str, Any]:
    """``settings`` with the ``policy=`` shortcut folded in (the shortcut wins).

    ``Toolset.load(policy=...)``, ``ToolRegistry.from_plugins(policy=...)`` and
    ``build_server(policy=...)`` keep the keyword they had before settings existed: it
    is ``settings={"policy": ...}``, the setting toolplug-policy declares.
    """
    merged = dict(settings or {})
    if policy is not None:
        merged["policy"] = policy
    return merged


def given_settings(
    settings: Mapping[str, Any] | None, options: Mapping[str, Option], *, env: bool = True
) -> dict[str, Any]:
    """The settings given (``None`` values left out), and with ``env`` those read from
    the declared environment variables for the ones not given."""
    given = {name: value for name, value in (settings or {}).items() if value is not None}
    if env:
        for name, option in options.items():
            if name not in given and option.env and os.environ.get(option.env):
                given[name] = os.environ[option.env]
    return given


def apply_settings(
    pm: pluggy.PluginManager,
    settings: Mapping[str, Any],
    options: Mapping[str, Option],
    approver: Callable[..., Any] | None,
    *,
    load: Callable[[str], None],
    broken: Mapping[str, str],
) -> None:
    """Hand each plugin the settings it declared, and register what it returns in ``pm``.

    ``load(plugin)`` registers a plugin that declared a given setting but is not in
    ``pm`` yet; ``broken`` maps guards that could not be loaded to their error, for the
    message about a setting nobody takes. Raises :class:`PolicyError` for a setting no
    plugin declared, or one its plugin loaded nothing for.
    """
    unknown = [name for name in settings if name not in options]
    if unknown:
        raise PolicyError(_unknown_message(unknown, settings, options, broken))
    by_plugin: dict[str, dict[str, Any]] = {}
    for name, value in settings.items():
        by_plugin.setdefault(options[name].plugin, {})[name] = value
    for plugin, values in by_plugin.items():
        if not pm.has_plugin(plugin):
            load(plugin)
        impls = [i for i in pm.hook.load_guard.get_hookimpls() if i.plugin_name == plugin]
        guard = None
        for impl in reversed(impls):
            kwargs = {"settings": dict(values), "approver": approver}
            try:
                guard = impl.function(*[kwargs[arg] for arg in impl.argnames])
            except PolicyError:
                raise  # the plugin's own account of what is wrong
            except Exception as exc:
                raise PolicyError(
                    f"the plugin '{plugin}' could not apply its settings "
                    f"({', '.join(values)}): {_plugins.error_text(exc)}"
                ) from exc
            if guard is not None:
                break
        if guard is None:
            given = ", ".join(f"{name}={value}" for name, value in values.items())
            raise PolicyError(
                f"the plugin '{plugin}' takes the setting(s) {given}, but its load_guard "
                "hook loaded nothing for them"
            )
        pm.register(guard, name=f"{plugin}:{'+'.join(values)}:{id(guard)}")


def _unknown_message(
    unknown: list[str],
    settings: Mapping[str, Any],
    options: Mapping[str, Option],
    broken: Mapping[str, str],
) -> str:
    """Why settings nobody declared cannot be used, and what to do about it."""
    name = unknown[0]
    what = f"the setting '{name}' was given ({settings[name]})"
    if len(unknown) > 1:
        what = f"the settings {', '.join(repr(n) for n in unknown)} were given"
    known = ", ".join(sorted(options)) or "none"
    if broken:  # perhaps the one that takes it: no install hint, the fix is there
        why = "; ".join(f"the '{p}' plugin is broken: {error}" for p, error in broken.items())
        return f"{what}, but no plugin that works takes it (known settings: {known}); {why}"
    fix = next((_SHORTCUT_DISTRIBUTIONS[n] for n in unknown if n in _SHORTCUT_DISTRIBUTIONS), None)
    hint = f": pip install {fix}" if fix else ": install the plugin that takes it"
    return f"{what}, but no loaded or installed plugin takes it (known settings: {known}){hint}"
