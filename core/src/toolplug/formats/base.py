"""The interface of a provider format: :class:`ToolFormat`.

A format knows one provider's shapes: how a tool is declared to it, how its model's tool
calls look, and how a tool's result goes back. Everything else (naming, running calls,
concurrency) is the same for every provider and lives above this layer.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from toolplug.content import TextContent, block_as_text
from toolplug.model import Observation, ToolCall

if TYPE_CHECKING:
    from toolplug.definition import ToolDefinition

    AnyTool = ToolDefinition[Any, Any]

__all__ = [
    "NO_OUTPUT",
    "SKIP",
    "NotACall",
    "ToolFormat",
    "plain",
    "require",
    "result_text",
    "validate_sdk_type",
]


class NotACall:
    """The type of :data:`SKIP`: an item a format recognises that calls no tool."""

    def __repr__(self) -> str:
        return "SKIP"


SKIP = NotACall()
"""What :meth:`ToolFormat.read_call` returns for its own items that are not calls."""


def plain(value: Any) -> Any:
    """SDK objects (pydantic models) as the provider's wire JSON; anything else unchanged."""
    if value is None or isinstance(value, (dict, list, tuple, str, int, float, ToolCall)):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_none=True)
    return value


class ToolFormat:
    """One provider's tool format. Subclass it, set :attr:`name`, and override the methods.

    A format is stateless: one instance serves every toolset. Register it through the
    ``register_formats`` hook (see :mod:`toolplug.hookspecs`).
    """

    #: The name hosts pass to ``Toolset.export(name)`` and ``dispatch(format=name)``.
    name: ClassVar[str] = ""
    #: What it is, for people: "OpenAI Chat Completions".
    title: ClassVar[str] = ""
    #: Whether the provider restricts tool names: tools are then exported under the
    #: names of :class:`toolplug.names.NameMap`, and calls are mapped back.
    maps_names: ClassVar[bool] = True
    #: A fallback format claims only what no other format claimed (MCP's bare
    #: ``{"name", "arguments"}``): detection tries it last.
    fallback: ClassVar[bool] = False
    #: The export options :meth:`export_tool` takes besides ``name`` and ``security_risk``.
    options: ClassVar[tuple[str, ...]] = ()
    #: Whether the provider searches deferred tools itself (a server-side tool search):
    #: deferred tools are then exported by :meth:`export_deferred`; for the other
    #: formats they are left out and toolplug's ``search_tools`` is exported instead
    #: (see :mod:`toolplug.deferral`).
    searches_tools: ClassVar[bool] = False

    # -- tools --------------------------------------------------------------------------

    def export_tool(
        self, tool: AnyTool, *, name: str | None = None, security_risk: bool = False, **options: Any
    ) -> dict[str, Any]:
        """One tool's declaration for this provider, under ``name`` (default: its own)."""
        raise NotImplementedError

    def export_tools(
        self, tools: Sequence[tuple[str, AnyTool]], **options: Any
    ) -> list[dict[str, Any]]:
        """The declarations of several tools, as the provider's request takes them.

        ``tools`` pairs each tool with the name to show. The default is one entry per
        tool; a provider that groups declarations (Gemini) overrides it.
        """
        return [self.export_tool(tool, name=name, **options) for name, tool in tools]

    def export_deferred(
        self,
        tools: Sequence[tuple[str, AnyTool]],
        deferred: Collection[str],
        *,
        search: str = "bm25",
        groups: Mapping[str, str] | None = None,
        **options: Any,
    ) -> list[dict[str, Any]]:
        """The declarations of ``tools`` for a provider that searches tools itself
        (:attr:`searches_tools`): those named in ``deferred`` (exported names) marked to
        load on demand, and the provider's search tool (``search``: ``"bm25"`` or
        ``"regex"``) added. ``groups`` maps exported names to a group (the factory that
        made the tool), for providers that group deferred tools."""
        raise NotImplementedError(f"the {self.name} format has no server-side tool search")

    # -- calls --------------------------------------------------------------------------

    def unwrap(self, data: Any) -> list[Any] | None:
        """The call items of a whole message or response of this provider, else ``None``.

        ``data`` is plain JSON (SDK objects are dumped first). The default unwraps nothing.
        """
        return None

    def read_call(self, item: Any, index: int) -> ToolCall | NotACall | None:
        """One item as a :class:`~toolplug.ToolCall` if it is this format's call.

        Return :data:`SKIP` for an item of this format that calls no tool, and ``None``
        for an item that is not this format's. Raise ``KeyError`` for a call missing a
        field (dispatch turns it into a clear error).
        """
        raise NotImplementedError

    def revealed(self, item: dict[str, Any]) -> list[str]:
        """The tool names (as exported) that a server-side tool search result among the
        model's items loads; ``[]`` for any other item (the default)."""
        return []

    # -- results ------------------------------------------------------------------------

    def render_result(self, call: ToolCall, observation: Observation) -> Any:
        """The observation as this provider's tool result for ``call``."""
        raise NotImplementedError

    def results_message(self, results: Sequence[Any]) -> Any:
        """What the host appends to its conversation for a turn's results.

        Providers that want every result of a turn in one message (Anthropic, Gemini,
        Bedrock) wrap them; the default is the list itself.
        """
        return list(results)

    # -- checks against the provider's own definitions (for tests) ----------------------

    def check_tool(self, exported: dict[str, Any]) -> None:
        """Raise ``AssertionError`` (or the SDK's error) where ``exported`` breaks the
        provider's rules. Checks the provider's SDK types where the format has them; a
        missing SDK is an ``ImportError`` saying what to install, never a silent pass.
        """

    def check_result(self, result: Any, observation: Observation) -> None:
        """Like :meth:`check_tool`, for a rendered result."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def require(module: str, package: str, fmt: str) -> Any:
    """Import an SDK module for a check, or fail saying what to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"checking the {fmt} format needs the {package} package: pip install {package}"
        ) from exc


def validate_sdk_type(value: Any, module: str, name: str, package: str, fmt: str) -> None:
    """Validate ``value`` strictly against the SDK type ``module.name`` (a TypedDict).

    The pydantic adapter of each type is built once: building one takes tens of
    milliseconds, and the conformance checks validate every export of every tool.
    """
    _sdk_adapter(module, name, package, fmt).validate_python(value, strict=True)


@functools.cache
def _sdk_adapter(module: str, name: str, package: str, fmt: str) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(getattr(require(module, package, fmt), name))


#: What a provider sees for a result with no text: Anthropic refuses empty text blocks,
#: and an empty result reads like a lost one.
NO_OUTPUT = "(the tool returned no output)"


def result_text(observation: Observation) -> str:
    """The observation as one text, for providers that take text only; never empty."""
    blocks = observation.llm_content
    if len(blocks) == 1 and isinstance(blocks[0], TextContent):  # the common case, first
        return blocks[0].text or NO_OUTPUT
    return "\n".join(block_as_text(block) for block in blocks) or NO_OUTPUT
