"""The editor's one internal exception; the executor turns it into an error observation."""

from __future__ import annotations


class EditorError(Exception):
    """A request the editor cannot carry out. The message is written for the model to act on."""
