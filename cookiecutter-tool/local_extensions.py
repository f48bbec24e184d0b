"""The template's Jinja filters, and the one-line error for a bad answer.

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
"""

from __future__ import annotations

import keyword
import logging
from pathlib import Path

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


# -- a bad answer is one line --------------------------------------------------------------


class _HookFailureIsReported(logging.Filter):
    """Drops cookiecutter's traceback for a failed pre-generation hook.

    The hook (``hooks/pre_gen_project.py``) has already printed what is wrong and how
    to fix it; cookiecutter would follow that with its own traceback of the hook's exit
    status. Only that record is dropped: every other message of cookiecutter stays.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return "pre_gen_project hook script didn't exit successfully" not in record.getMessage()


_hooks_logger = logging.getLogger("cookiecutter.hooks")
if not any(isinstance(f, _HookFailureIsReported) for f in _hooks_logger.filters):
    _hooks_logger.addFilter(_HookFailureIsReported())
