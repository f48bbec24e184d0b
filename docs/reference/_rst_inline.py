"""A griffe extension for the API reference (named in mkdocs.yml; not a page).

toolplug's docstrings are prose with Google-style sections where a function takes
arguments (``Args:``, as ``ToolDefinition.from_function`` reads them) and Markdown
code fences, but they name code the reST way: ``:class:`Toolset```, ``:meth:`x```,
double backquotes, and ``text::`` before an indented example. mkdocstrings renders
docstrings as Markdown, so before rendering this turns a role into a code span and a
``::`` into a colon (the indented block after it is then a Markdown code block).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj|const):`(?P<target>[^`]+)`")
_LITERAL = re.compile(r"(?m)^(?P<text>.*\S)?[ \t]*::[ \t]*$")


def _role(match: re.Match[str]) -> str:
    target = match["target"]
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target}`"


def _literal(match: re.Match[str]) -> str:
    text = match["text"]
    return f"{text}:" if text else ""


def markdown(text: str) -> str:
    """The docstring ``text`` with its reST roles and ``::`` markers made Markdown."""
    return _LITERAL.sub(_literal, _ROLE.sub(_role, text))


class RstInline(griffe.Extension):
    """Rewrite each docstring's reST inline markup as Markdown when it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
