"""The ``toolplug`` script's entry point.

``toolplug plugins`` is what hosts and scripts call most, and it reads package metadata
only; this module answers it without importing click or pydantic, so listing fifty
plugins costs little more than reading their entry points. Everything else, and any
option this fast path does not know, goes to the click command line in
:mod:`toolplug.cli`.
"""

from __future__ import annotations

import sys


def _plugins_fast(args: list[str]) -> bool:
    """Handle ``plugins [--json] [--check] [--plugins A,B]``; False if the args are others."""
    as_json = check = False
    selection: str | None = None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--json":
            as_json = True
        elif arg == "--check":
            check = True
        elif arg == "--plugins" and rest:
            selection = rest.pop(0)
        elif arg.startswith("--plugins="):
            selection = arg.partition("=")[2]
        else:
            return False
    from toolplug._text import printable
    from toolplug.errors import ToolError
    from toolplug.listing import check_status, plugin_reports, render_plugins

    try:
        reports = plugin_reports(selection, check=check)
    except ToolError as exc:
        sys.stderr.write(printable(f"Error: {exc}\n"))
        sys.exit(2)
    sys.stdout.write(printable(render_plugins(reports, as_json=as_json, check=check)))
    if check:
        sys.stdout.flush()
        sys.exit(check_status(reports))
    return True


def main() -> None:
    """Run the command line."""
    args = sys.argv[1:]
    if args[:1] == ["plugins"] and _plugins_fast(args[1:]):
        return
    from toolplug.cli import cli

    cli()
