"""Every error the grep tool defines, in one place.

The model never sees these raised: the executor turns them into an error observation
that says what to change. A host sees :class:`PatternError` from the engines.

The hierarchy::

    ValueError
    └── PatternError     a pattern, glob or file type that cannot be searched
    TimeoutError
    └── SearchTimeout    the search took longer than its timeout and was stopped
    Exception
    └── Refused          a call the tool will not run (the message says what to change)
"""

from __future__ import annotations

__all__ = ["PatternError", "Refused", "SearchTimeout"]


class PatternError(ValueError):
    """A pattern (or glob, or type) that cannot be searched; the message says why."""


class SearchTimeout(TimeoutError):
    """The search took longer than its timeout and was stopped."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"the search took longer than {timeout:g} seconds and was stopped")


class Refused(Exception):
    """A call the tool will not run; the message tells the model what to change."""
