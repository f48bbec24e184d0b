"""Every error the bash tool defines, in one place.

The model never sees these: the executor turns them into an error observation.

The hierarchy::

    RuntimeError
    └── ShellError      the shell could not be started, or stopped answering
"""

from __future__ import annotations

__all__ = ["ShellError"]


class ShellError(RuntimeError):
    """The shell could not be started or stopped answering."""
