"""Every ``--help`` reads as plain text: no reST markup from the docstrings.

click prints a command's docstring as it is, so double backquotes, roles such as
:class:`X` and ``.. note::`` directives would reach the terminal. This walks every
command the installed ``toolplug`` has (plugin subcommands too, such as ``toolplug mcp
serve`` where toolplug-mcp is installed). The walk runs in process on the real command
group (a subprocess per page cost seconds each); one page is also read from a real
``toolplug`` process, to show the two print the same text.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from toolplug.cli import cli

MARKUP = re.compile(
    r"``"  # an inline literal
    r"|:[a-z]+(?::[a-z]+)?:`"  # a role: :class:`X`, :py:func:`f`
    r"|^\s*\.\. [a-z-]+::"  # a directive
    r"|^\s*:(?:param|returns?|raises)\b",  # a field list
    re.MULTILINE,
)


def help_of(*command: str) -> str:
    """The ``--help`` page of ``toolplug COMMAND...``, from the real command group."""
    out = CliRunner().invoke(cli, [*command, "--help"], prog_name="toolplug")
    assert out.exit_code == 0, out.output
    return out.output


def test_the_pages_read_in_process_are_the_real_commands_pages() -> None:
    real = subprocess.run(
        [str(Path(sys.executable).parent / "toolplug"), "call", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert real.returncode == 0, real.stderr
    # The same words; where lines wrap may differ (the terminal's width is read apart).
    assert real.stdout.split() == help_of("call").split()


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
