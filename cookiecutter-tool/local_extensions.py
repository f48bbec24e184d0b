"""The template's Jinja filters, and the check of the answers.

Cookiecutter loads this module because ``cookiecutter.json`` names its filters under
``_extensions``:

- ``string_body`` puts any answer inside a double-quoted string literal. Template
  sources write ``"{{ cookiecutter.x | string_body }}"``: the quotes stay in the
  source, which keeps ``pyproject.toml`` valid TOML and the hook valid Python before
  rendering, and the filter escapes what goes between them (the same escapes hold in
  YAML's double-quoted strings).
- ``resolve_source``, ``kind_of_source`` and ``install_command`` turn the
  ``toolplug_source`` answer into the CI workflow's install step.
- ``py_name`` makes a tool name a Python name.
- ``checked_answers`` checks every answer (the last computed value renders it): a wrong
  one stops the bake, before anything is written, with one ``ERROR:`` line per problem.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cookiecutter.exceptions import FailedHookException
from cookiecutter.utils import simple_filter

# Escapes that mean the same in TOML basic strings and Python string literals.
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@simple_filter
def string_body(value: object) -> str:
    """The text of ``value`` escaped for the inside of "..." in TOML and in Python."""
    out = []
    for char in str(value):
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


# -- where toolplug comes from (the toolplug_source answer) -------------------------------

#: The answer that means "the package index": pip finds toolplug like any package.
INDEX = "index"


def _is_url(value: str) -> bool:
    return value.startswith("git+") or "://" in value


@simple_filter
def resolve_source(value: object) -> str:
    """The toolplug_source answer with a path made absolute (resolved where cookiecutter runs).

    The CI steps run in the baked project's folder, so a relative path would point
    elsewhere there. ``index`` and URLs are kept as they are.
    """
    text = str(value).strip()
    if text == INDEX or _is_url(text) or not text:
        return text
    return str(Path(text).expanduser().resolve())


def source_kind(source: str) -> str:
    """What a resolved toolplug_source is: ``index``, ``checkout``, ``wheelhouse``,
    ``git`` (a pip VCS URL of a checkout), ``url`` (a page of wheels, for pip's
    ``--find-links``), or ``invalid``."""
    if source == INDEX:
        return "index"
    if source.startswith("git+"):
        return "git"
    if source.startswith(("http://", "https://", "file://")):
        return "url"
    folder = Path(source)
    if source and (folder / "core" / "pyproject.toml").is_file():
        return "checkout"
    if source and folder.is_dir() and any(folder.glob("toolplug-*.whl")):
        return "wheelhouse"
    return "invalid"


#: The install step of the baked CI workflow, per kind of source. ``$TOOLPLUG_SOURCE`` is
#: the workflow's variable holding the resolved answer; the project's own dependencies
#: come from the index in every case.
INSTALL_COMMANDS = {
    "index": "python -m pip install '.[test]'",
    "checkout": "python -m pip install \"$TOOLPLUG_SOURCE/core\" '.[test]'",
    "git": "python -m pip install \"toolplug @ $TOOLPLUG_SOURCE#subdirectory=core\" '.[test]'",
    "wheelhouse": "python -m pip install --find-links \"$TOOLPLUG_SOURCE\" '.[test]'",
    "url": "python -m pip install --find-links \"$TOOLPLUG_SOURCE\" '.[test]'",
}


@simple_filter
def install_command(source: object) -> str:
    """The workflow's install command for a resolved toolplug_source (empty if invalid)."""
    return INSTALL_COMMANDS.get(source_kind(str(source)), "")


@simple_filter
def kind_of_source(source: object) -> str:
    """:func:`source_kind` as a filter, for the hook and the workflow's comment."""
    return source_kind(str(source))


@simple_filter
def py_name(value: object) -> str:
    """A tool name as a Python name: a keyword (``class``) gets a trailing underscore."""
    text = str(value)
    return f"{text}_" if keyword.iskeyword(text) else text


# -- the answers, checked before anything is written ---------------------------------------

# A tool name is the entry point, part of the package name and the name every provider
# sees: lowercase ASCII identifiers fit all of them (OpenAI allows at most 64 characters).
TOOL_NAME_RULE = re.compile(r"[a-z][a-z0-9_]{0,63}")
# PEP 508 distribution names.
DISTRIBUTION_RULE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
# Enough to catch a slip; the package index checks the rest when you publish.
EMAIL_RULE = re.compile(r"[^@\s]+@[^@\s]+")


class AnswerError(FailedHookException):
    """One or more wrong answers: the message has one ``ERROR:`` line for each.

    A :class:`~cookiecutter.exceptions.FailedHookException`, so that cookiecutter's
    command line prints the message alone and exits 1 (as for a hook that fails, but
    without its "Hook script failed" line), and a program that calls
    ``cookiecutter()`` gets the exception it gets for a failing hook.
    """


def problems(answers: Mapping[str, Any]) -> list[str]:
    """Every wrong answer, each as a sentence that says how to fix it."""
    found = []
    description = str(answers.get("description", ""))
    if not description.strip() or "\n" in description:
        found.append("description must be one non-empty line: what the tool does, for a model.")
    kind = str(answers.get("kind", ""))
    if kind not in ("function", "class"):
        found.append(f"kind {kind!r} must be 'function' or 'class'.")
    resolved = str(answers.get("__toolplug_source", ""))
    if source_kind(resolved) == "invalid":
        found.append(
            f"toolplug_source {str(answers.get('toolplug_source', ''))!r} ({resolved}) is not "
            "'index', a checkout of toolplug (a folder with core/pyproject.toml), a "
            "wheelhouse (a folder with a toolplug-*.whl) or a URL (git+https://... or "
            "https://...)."
        )
    email = str(answers.get("author_email", ""))
    if not EMAIL_RULE.fullmatch(email):
        found.append(f"author_email {email!r} is not an email address (name@example.com).")
    tool_name = str(answers.get("tool_name", ""))
    if not TOOL_NAME_RULE.fullmatch(tool_name):
        found.append(
            f"tool_name {tool_name!r} is not a valid identifier for a tool: use lowercase "
            "letters, digits and underscores, start with a letter, at most 64 characters "
            "(for example 'word_count')."
        )
        return found  # the names below derive from the tool name: report them once it is right
    slug = str(answers.get("project_slug", ""))
    if not DISTRIBUTION_RULE.fullmatch(slug):
        found.append(
            f"project_slug {slug!r} is not a valid distribution name "
            "(letters, digits, '.', '_' and '-'; for example 'toolplug-word-count')."
        )
    package = str(answers.get("package_name", ""))
    if not package.isidentifier() or keyword.iskeyword(package):
        found.append(f"package_name {package!r} is not a valid Python package name.")
    return found


@simple_filter
def checked_answers(answers: Mapping[str, Any]) -> str:
    """``ok``, or :class:`AnswerError` naming every wrong answer.

    ``cookiecutter.json``'s last computed value renders it with every answer so far:
    cookiecutter renders the answers before it writes a file or runs a hook, so a wrong
    answer stops the bake with nothing written and nothing else printed.
    """
    found = problems(answers)
    if found:
        raise AnswerError("\n".join(f"ERROR: {problem}" for problem in found))
    return "ok"
