"""Every error the policy plugin defines, in one place.

A policy file that cannot be loaded reaches the host as the core's
:class:`toolplug.PolicyError` (the message names the file, the line and the problem):
the loading turns :class:`GlobError` and :class:`ArgumentPathError` into it. A script
the shell reader cannot read for sure is not an error to the host either: the policy
treats it as unmatched (see :mod:`toolplug_policy.shell`).

The hierarchy::

    ValueError
    ├── GlobError             a ``path`` glob that cannot be compiled
    ├── ArgumentPathError     an argument path not of the form ``$.key``, ``$.a[0]``, ``$.list[*]``
    └── ShellParseError       a script that could not be understood for sure
        └── ShellTimeout      reading the script took longer than the limit
"""

from __future__ import annotations

__all__ = ["ArgumentPathError", "GlobError", "ShellParseError", "ShellTimeout"]


class GlobError(ValueError):
    """A glob that cannot be compiled; the message says what is wrong with it."""


class ArgumentPathError(ValueError):
    """An argument path that is not of the form ``$.key``, ``$.a.b[0]``, ``$.list[*]``."""


class ShellParseError(ValueError):
    """The script could not be understood for sure; the message says why."""


class ShellTimeout(ShellParseError):
    """Reading the command took longer than the limit (never cached: the machine may
    only have been busy)."""
