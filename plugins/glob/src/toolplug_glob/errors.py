"""Every error the glob tool defines, in one place.

The model never sees these raised: the executor turns them into an error observation
that says what to change. A host sees :class:`PatternError` from
:func:`~toolplug_glob.compile_glob` and :func:`~toolplug_glob.split_pattern`.

The hierarchy::

    ValueError
    └── PatternError     a pattern that cannot match anything (the message says what to fix)
    TimeoutError
    └── SearchTimeout    the walk took longer than its timeout and was stopped
    Exception
    └── Refused          a call the tool will not run (the message says what to change)
"""

from __future__ import annotations

__all__ = ["PatternError", "Refused", "SearchTimeout"]


class PatternError(ValueError):
    """A pattern that cannot match anything; the message says what to fix."""


class SearchTimeout(TimeoutError):
    """The walk took longer than its timeout and was stopped."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"the search took longer than {timeout:g} seconds and was stopped")
        self.timeout = timeout


class Refused(Exception):
    """A call the tool will not run; the message tells the model what to change."""
