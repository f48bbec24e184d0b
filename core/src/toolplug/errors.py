"""Errors raised to hosts (never to models: those get error observations)."""

from __future__ import annotations


class ToolError(Exception):
    """Base class of toolplug's errors; the message says what to do."""


class UnknownToolError(ToolError, LookupError):
    """A tool name that no enabled plugin registered."""

    def __str__(self) -> str:  # LookupError would quote the message
        return str(self.args[0]) if self.args else ""


class ToolParamsError(ToolError, TypeError):
    """Params a tool does not take, or a required one missing."""


class ToolConflictError(ToolError):
    """Two plugins registered the same tool name."""


class PluginSelectionError(ToolError, ValueError):
    """A plugin named for enabling that is not installed."""
