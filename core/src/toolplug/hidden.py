"""Paths a ``tool_call`` hook hides from one call, and how tools that read over a
directory learn of them.

A guard (a permission policy, a third party's filter) decides about a call by its
arguments: a ``path`` that names a directory passes, yet the call may then read files
inside it that the guard would refuse by name (``grep`` over ``.`` reading ``.env``).
So the guard's plain ``tool_call`` implementation, as it lets such a call go on, says
which paths the call must not read::

    from toolplug import hide_paths, hookimpl

    @hookimpl(tryfirst=True)
    def tool_call(tool, action):
        hide_paths(lambda path: path.endswith("/.env"), by="the .env guard")
        return None

and a tool that reads many files (grep, glob) asks, for each file it is about to read
or list::

    from toolplug import hidden_paths

    hidden = hidden_paths()  # None when nothing is hidden: the fast path
    if hidden is not None and hidden.hides("/abs/path/of/file"):
        ...  # skip it, and say so in the observation

Paths are absolute. What is hidden holds for the one call whose hook set it (the core
opens a fresh scope around each call through the hook, and carries it into the threads
and event loops the tool runs in), and for tool calls made from inside it. A tool that
does not ask reads what it reads: hiding is a promise of the tools that ask, not a wall.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable

__all__ = ["HiddenPaths", "hidden_paths", "hide_paths"]


class HiddenPaths:
    """What the hooks of the current call hid: each a predicate on an absolute path,
    and who hid it (for the tool's note)."""

    __slots__ = ("_rules",)

    def __init__(self) -> None:
        self._rules: list[tuple[Callable[[str], bool], str]] = []

    def hides(self, path: str | os.PathLike[str]) -> bool:
        """Whether some hook hid this absolute path from the call."""
        text = os.fspath(path)
        return any(predicate(text) for predicate, _ in self._rules)

    @property
    def by(self) -> str:
        """Who hid paths, in words (``the policy``, or several joined by ``and``)."""
        names = list(dict.fromkeys(name for _, name in self._rules))
        return " and ".join(names)

    def __bool__(self) -> bool:
        return bool(self._rules)


#: The current call's hidden paths (set by the core around each call through the hook).
_current: contextvars.ContextVar[HiddenPaths | None] = contextvars.ContextVar(
    "toolplug_hidden_paths", default=None
)


def hide_paths(predicate: Callable[[str], bool], *, by: str) -> None:
    """Hide from the current call every absolute path for which ``predicate`` is true.

    For a ``tool_call`` hook implementation; ``by`` names who hides them (``"the
    policy"``), for the note a tool adds. Raises :class:`RuntimeError` outside a call.
    """
    hidden = _current.get()
    if hidden is None:
        raise RuntimeError(
            "hide_paths() is for a tool_call hook implementation, while it decides a call"
        )
    hidden._rules.append((predicate, by))


def hidden_paths() -> HiddenPaths | None:
    """What is hidden from the current call, or ``None`` when nothing is (for a tool's
    executor: check each file it reads over a directory with :meth:`HiddenPaths.hides`)."""
    hidden = _current.get()
    return hidden if hidden else None


def _open_scope() -> contextvars.Token[HiddenPaths | None]:
    """A fresh scope for one call through the hook; inside a call, the outer call's
    rules hold too (a tool called from a tool reads on the outer call's behalf)."""
    fresh = HiddenPaths()
    outer = _current.get()
    if outer is not None:
        fresh._rules.extend(outer._rules)
    return _current.set(fresh)


def _close_scope(token: contextvars.Token[HiddenPaths | None]) -> None:
    _current.reset(token)
