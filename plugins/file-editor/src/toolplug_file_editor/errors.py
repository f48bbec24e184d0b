"""Every error the file editor defines, in one place.

The model never sees these raised: the executor turns them into an error observation.

The hierarchy::

    Exception
    └── EditorError     a request the editor cannot carry out (the message says why)
"""

from __future__ import annotations

__all__ = ["EditorError"]


class EditorError(Exception):
    """A request the editor cannot carry out. The message is written for the model to act on."""
