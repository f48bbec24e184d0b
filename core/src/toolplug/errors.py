"""Every error toolplug raises to a host, in one place.

Models never see these: a model's bad call comes back as an error observation. Hosts
and plugin authors see them when they misuse the API or the environment is broken.

The hierarchy::

    ToolError                       base class; the message says what to do
    ├── ArgumentError               arguments that cannot become the tool's action (ValueError)
    ├── UnknownToolError            a tool name nothing registered (LookupError)
    ├── ToolParamsError             params a tool does not take, or a missing one (TypeError)
    ├── ToolConflictError           two plugins registered one tool name
    ├── PluginSelectionError        a plugin enabled by name that is not installed (ValueError)
    ├── SchemaError                 a schema the requested export cannot express (ValueError)
    ├── FormatError                 a format not registered, or a broken one (ValueError)
    ├── DispatchError               calls in no shape any format reads (ValueError)
    ├── ComposeError                a composed response unusable as a whole (ValueError)
    ├── PolicyError                 a permission policy that cannot be loaded (ValueError)
    ├── LimitError                  an export the provider would refuse (toolplug.limits)
    ├── SearchError                 a tool search query or regex that cannot run (ValueError)
    ├── PresetError                 an unknown preset, or rows a plugin cannot add (ValueError)
    └── SamplingError               the host cannot answer an MCP server's sampling request
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "ArgumentError",
    "ComposeError",
    "DispatchError",
    "FormatError",
    "LimitError",
    "LimitWarning",
    "PluginSelectionError",
    "PolicyError",
    "PresetError",
    "SamplingError",
    "SchemaError",
    "SearchError",
    "ToolConflictError",
    "ToolError",
    "ToolParamsError",
    "UnknownToolError",
]


class ToolError(Exception):
    """Base class of toolplug's errors; the message says what to do."""


class ArgumentError(ToolError, ValueError):
    """The arguments cannot be turned into the tool's action; the message says why.

    The safe entry points turn it into an error observation for the model.
    """


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


class SchemaError(ToolError, ValueError):
    """A schema cannot be expressed in the requested export format."""


class FormatError(ToolError, ValueError):
    """A provider format name that is not registered, or a format that breaks the interface."""


class DispatchError(ToolError, ValueError):
    """The calls given to dispatch are in no shape a format reads (a host bug, not a model's)."""


class ComposeError(ToolError, ValueError):
    """A composed response that cannot be used as a whole; the message says why.

    The message is written for the model: send it back and ask for a new response.
    """


class PolicyError(ToolError, ValueError):
    """A permission policy the host asked for cannot be loaded: a malformed file (the
    message names the file, the line and the problem), or no plugin to enforce it."""


class SamplingError(ToolError):
    """The host cannot answer an MCP server's sampling request: it gave no ``on_sample``
    handler, or the handler failed. The MCP client sends the message to the server."""


class PresetError(ToolError, ValueError):
    """A tool set per model family that cannot be had: an unknown preset (the message
    lists the known ones), or rows a plugin adds that are malformed or taken
    (:mod:`toolplug.presets`)."""


class LimitError(ToolError):
    """An export the provider would refuse (``check="error"``); ``violations`` (each a
    `toolplug.limits.Violation`) says which tool breaks which rule."""

    def __init__(self, violations: Sequence[Any]) -> None:
        self.violations = list(violations)
        super().__init__(limit_report(self.violations))


class SearchError(ToolError, ValueError):
    """A tool search that cannot run (`toolplug.search`): an empty query, or a regex
    pattern that is too long, invalid (the message gives the character), beyond the
    linear-time engine, or asked for without ``toolplug[regex]`` installed. The message
    is written so a model can fix its search."""


class LimitWarning(UserWarning):
    """An export the provider would refuse (``check="warn"``, the default)."""


def limit_report(violations: Sequence[Any]) -> str:
    """The message of a `LimitError` or `LimitWarning`: a line per broken rule."""
    lines = [f"{len(violations)} tool definition limit(s) broken; the request would fail:"]
    lines.extend(f"- {v}" for v in violations)
    return "\n".join(lines)
