"""What a host hands to tools: the :class:`ToolContext`, and :class:`Tool` specs."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolplug.interaction import Handlers


@dataclass(frozen=True)
class ToolContext:
    """What a tool factory gets from its host session.

    ``workspace`` is the directory the tools work in (file paths resolve against it),
    ``env`` the environment they may pass on, ``timeout`` and ``max_output`` the host's
    default limits (a tool may take its own through params), ``handlers`` the host's
    progress, log, question and sampling handlers (:mod:`toolplug.interaction`; filled
    by ``Toolset.load``, for tools that need them between calls), and ``extra``
    anything else a host and its plugins agree on.
    """

    workspace: Path = field(default_factory=Path.cwd)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    timeout: float | None = None
    max_output: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    handlers: Handlers | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "workspace", Path(self.workspace).expanduser().resolve())


@dataclass(frozen=True)
class Tool:
    """A tool as a user names it in config: a registered name and its parameters."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, spec: str | Tool | Mapping[str, Any]) -> Tool:
        """Accept a name, a ``Tool``, or a mapping ``{"name": ..., "params": {...}}``."""
        if isinstance(spec, Tool):
            return spec
        if isinstance(spec, str):
            return cls(name=spec)
        if isinstance(spec, Mapping) and isinstance(spec.get("name"), str):
            return cls(name=spec["name"], params=dict(spec.get("params") or {}))
        raise TypeError(
            f"a tool spec is a name, a Tool or a {{'name', 'params'}} mapping: {spec!r}"
        )
