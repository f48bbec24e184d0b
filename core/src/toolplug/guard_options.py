"""Plugins' settings as command-line options: the command-line side of `toolplug.guards`.

A command built with ``cls=OptionsCommand`` takes, besides its own options, every
setting the installed guard plugins declare (their `add_options` hook), as ``--name``:
``toolplug call`` and ``toolplug mcp serve`` are built so, and a plugin's own command can
be too. The values given reach the command's function through :func:`given_settings`,
ready for ``ToolRegistry.from_plugins(settings=...)`` or ``Toolset.load(settings=...)``.
The guards are asked only when the command's options are read (it runs, or shows its
help), never for another command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

__all__ = ["OptionsCommand", "given_settings"]

_META_KEY = "toolplug.settings"


class OptionsCommand(click.Command):
    """A click command that also takes the installed guard plugins' settings.

    An option whose name or flag the command already has is not added (the command's
    own wins). The settings given are taken out of the function's keyword arguments:
    read them with :func:`given_settings`.
    """

    _guard_params: list[click.Option] | None = None

    def guard_params(self) -> list[click.Option]:
        """The options made of the guards' settings (asked once per command)."""
        if self._guard_params is None:
            from toolplug.guards import guard_options

            try:
                options, _reports = guard_options()
            except Exception:  # a broken install: the load itself will say what it is
                options = {}
            self._guard_params = [
                click.Option(
                    [option.flag, option.name],
                    type=click.Path(dir_okay=False, path_type=Path) if option.file else None,
                    default=None,
                    metavar=option.metavar,
                    help=f"{option.help.rstrip('.')}; from the '{option.plugin}' plugin.",
                )
                for option in options.values()
            ]
        return self._guard_params

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        """The command's own parameters, then the guards' options, then ``--help``."""
        params = super().get_params(ctx)
        help_option = self.get_help_option(ctx)
        own = [p for p in params if p is not help_option]
        names = {p.name for p in own}
        flags = {flag for p in own for flag in getattr(p, "opts", ())}
        extra = [p for p in self.guard_params() if p.name not in names and not set(p.opts) & flags]
        return [*own, *extra, *([help_option] if help_option in params else [])]

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command with the guards' settings moved to :func:`given_settings`."""
        own = {p.name for p in super().get_params(ctx)}
        settings = {}
        for param in self.guard_params():
            if param.name in ctx.params and param.name not in own:
                value = ctx.params.pop(param.name)
                if value is not None:
                    settings[param.name] = value
        ctx.meta[_META_KEY] = settings
        return super().invoke(ctx)


def given_settings(ctx: click.Context | None = None) -> dict[str, Any]:
    """The guards' settings given on the command line of the running `OptionsCommand`
    (``ctx``, else the current click context), by setting name."""
    ctx = ctx or click.get_current_context()
    return dict(ctx.meta.get(_META_KEY, {}))
