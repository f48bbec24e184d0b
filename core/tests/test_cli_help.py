"""Every ``--help`` reads as plain text: no reST markup from the docstrings.

click prints a command's docstring as it is, so double backquotes, roles such as
:class:`X` and ``.. note::`` directives would reach the terminal. This walks every
command the installed ``toolplug`` has (plugin subcommands too, such as ``toolplug mcp
serve`` where toolplug-mcp is installed), each in its own real subprocess.
"""

from __future__ import annotations

import re
import subprocess
import sys

MARKUP = re.compile(
    r"``"  # an inline literal
    r"|:[a-z]+(?::[a-z]+)?:`"  # a role: :class:`X`, :py:func:`f`
    r"|^\s*\.\. [a-z-]+::"  # a directive
    r"|^\s*:(?:param|returns?|raises)\b",  # a field list
    re.MULTILINE,
)


def help_of(*command: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "toolplug", *command, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def subcommands(help_text: str) -> list[str]:
    """The names under a group's ``Commands:`` heading."""
    _, found, rest = help_text.partition("\nCommands:\n")
    if not found:
        return []
    names = []
    for line in rest.splitlines():
        if not line.startswith("  "):
            break
        if not line.startswith("   "):  # a wrapped description line is indented further
            names.append(line.split()[0])
    return names


def test_no_help_shows_rest_markup() -> None:
    pending: list[tuple[str, ...]] = [()]
    seen: dict[str, list[str]] = {}
    while pending:
        command = pending.pop()
        text = help_of(*command)
        seen[" ".join(command) or "toolplug"] = MARKUP.findall(text)
        pending.extend((*command, name) for name in subcommands(text))
    assert {"call", "tools", "plugins"} <= set(seen)
    assert {name: found for name, found in seen.items() if found} == {}


def test_the_markup_check_sees_markup() -> None:
    """The pattern itself: each kind of markup it must catch, and plain text it must not."""
    for text in ("use ``toolplug tools``", "a :class:`Toolset`", "  .. note::", "  :param x: y"):
        assert MARKUP.search(text), text
    assert not MARKUP.search("FACTORY/TOOL: mcp/get_current_time, 'toolplug tools' (a: b)")
