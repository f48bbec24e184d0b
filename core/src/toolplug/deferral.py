"""Tool search: tools a host defers, and how the model finds them.

A host with many tools (a few MCP servers bring hundreds) pays for every definition in
every request. Deferring a tool keeps its definition out of the model's context until
the model searches for it::

    tools = Toolset.load(...).defer("mcp")          # every tool of the mcp factory
    tools.defer("github__*", above=40)              # a glob, once there are 40+ tools

What a deferred tool becomes depends on the export format:

- ``anthropic``: the tool is sent with ``"defer_loading": true`` and Anthropic's tool
  search tool (its BM25 or regex variant) is added; the API searches and loads tools
  itself, and the ``tool_reference`` blocks of its results mark them revealed here.
- ``responses``: the function is sent with ``"defer_loading": true`` (grouped into one
  ``namespace`` per factory with ``namespaces=True``) and ``{"type": "tool_search"}``
  is added; ``tool_search_output`` items mark the tools they load revealed.
- every other format (``openai``, ``gemini``, ``bedrock``, ``mcp``, a plugin's): the
  tool is left out and a local ``search_tools`` tool is added. Calling it (through
  ``dispatch`` or :meth:`Toolset.call`) searches the deferred tools with
  :mod:`toolplug.search` and reveals the matches: the next export includes them.

A revealed tool keeps its place: every export lists tools in the toolset's own order,
so a prompt cache holds up to the first tool revealed since it was made. For
``anthropic`` and ``responses`` the export does not change after a search at all (the
provider expands the references from the conversation).

The rule is a :class:`Deferral`; :class:`Deferred` is one toolset's state (the rule,
the tools revealed so far, the ``search_tools`` tool).
"""

from __future__ import annotations

import fnmatch
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from toolplug._text import cut
from toolplug.definition import ToolDefinition
from toolplug.errors import ToolError
from toolplug.model import Action, Observation, ToolAnnotations

if TYPE_CHECKING:
    from toolplug.formats.base import ToolFormat
    from toolplug.toolset import Toolset

__all__ = [
    "SEARCH_TOOL",
    "Deferral",
    "Deferred",
    "SearchToolsAction",
    "SearchToolsObservation",
]

AnyTool = ToolDefinition[Any, Any]
Search = Literal["bm25", "regex"]

#: The name of the local search tool.
SEARCH_TOOL = "search_tools"
#: How many matches a search returns unless the model asks for another number.
DEFAULT_LIMIT = 5
MAX_LIMIT = 20
_GLOB_CHARS = frozenset("*?[{")


@dataclass(frozen=True)
class Deferral:
    """Which tools a toolset defers, and how the model searches for them.

    ``patterns`` choose the tools: each is a tool's name, the name of the plugin tool
    or factory that created it (``"mcp"``: every MCP server's tools), or a glob over
    names in toolplug's glob syntax (``"github__*"``). No pattern means every tool.
    ``above``: defer them only while the toolset holds more than this many tools.
    ``keep``: names or globs never deferred (the tools every turn needs).
    ``search``: ``"bm25"`` (words) or ``"regex"`` (a regular expression), for the
    provider's search tool and the local one alike. ``namespaces``: for ``responses``,
    group each factory's deferred functions into one ``namespace`` tool.
    """

    patterns: tuple[str, ...] = ()
    above: int | None = None
    keep: tuple[str, ...] = ()
    search: Search = "bm25"
    namespaces: bool = False

    def __post_init__(self) -> None:
        if self.search not in ("bm25", "regex"):
            raise ValueError(f"search must be 'bm25' or 'regex', not {self.search!r}")
        if self.above is not None and (not isinstance(self.above, int) or self.above < 0):
            raise ValueError(f"above must be a number of tools (0 or more), not {self.above!r}")
        for pattern in (*self.patterns, *self.keep):
            if not isinstance(pattern, str) or not pattern:
                raise ValueError(f"a deferral pattern must be a non-empty string: {pattern!r}")
            if _GLOB_CHARS & set(pattern):
                _glob(pattern)  # a malformed glob is refused here, not at the first export

    def chooses(self, name: str, factory: str | None, total: int) -> bool:
        """Whether the tool ``name`` (made by ``factory``) is deferred in a toolset of
        ``total`` tools."""
        if self.above is not None and total <= self.above:
            return False
        if any(_matches(p, name, None) for p in self.keep):
            return False
        return not self.patterns or any(_matches(p, name, factory) for p in self.patterns)


def _matches(pattern: str, name: str, factory: str | None) -> bool:
    if pattern in (name, factory):
        return True
    return bool(_GLOB_CHARS & set(pattern)) and _glob(pattern).fullmatch(name) is not None


_globs: dict[str, re.Pattern[str]] = {}


def _glob(pattern: str) -> re.Pattern[str]:
    """A glob over tool names as one regex: toolplug's glob syntax (:mod:`toolplug.globs`)
    when wcmatch is installed (``toolplug[globs]``); else the standard library's
    :mod:`fnmatch`, which reads ``*``, ``?`` and ``[...]`` the same way in a name (it
    has no ``/``), but not ``{a,b}``."""
    compiled = _globs.get(pattern)
    if compiled is not None:
        return compiled
    from toolplug.globs import glob_regexes, syntax_problem

    problem = syntax_problem(pattern)
    if problem:
        raise ValueError(f"the deferral pattern {pattern!r} {problem}")
    try:
        regexes = glob_regexes(pattern)
    except ImportError:
        regexes = [fnmatch.translate(pattern)]
    compiled = _globs[pattern] = re.compile("|".join(f"(?:{r})" for r in regexes))
    return compiled


class SearchToolsAction(Action):
    """The local search tool's input."""

    query: str = Field(
        description="What the tool you need does, in a few words (with regex search: "
        "a regular expression matched against tool names and descriptions)."
    )
    limit: int = Field(
        default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="How many tools to return."
    )


class SearchToolsObservation(Observation):
    """What the local search found: the tools' names, now callable."""

    tools: list[str] = Field(default_factory=list, description="The names of the tools found.")


_DESCRIPTION = {
    "bm25": "Search the tools that are not loaded yet, by what they do. The tools found "
    "can be called from your next turn on.",
    "regex": "Search the tools that are not loaded yet with a regular expression over "
    "their names and descriptions. The tools found can be called from your next turn on.",
}


@dataclass
class Deferred:
    """One toolset's deferral: the rule, the tools revealed so far, the search tool.

    Thread-safe: searches and reveals from concurrent calls are serialised by a lock,
    and an export reads one snapshot of what was revealed.
    """

    rule: Deferral
    toolset: Toolset = field(repr=False)
    _revealed: frozenset[str] = frozenset()
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # (names, ToolIndex), rebuilt when the deferred tools change
    _index: tuple[tuple[str, ...], Any] | None = field(default=None, repr=False)
    _tool: AnyTool | None = field(default=None, repr=False)

    # -- which tools ---------------------------------------------------------------------

    def deferred(self) -> list[str]:
        """The names of the tools deferred now, in the toolset's order (revealed ones too)."""
        tools = self.toolset
        total = len(tools)
        factories = tools.factories()
        return [n for n in tools if self.rule.chooses(n, factories.get(n), total)]

    @property
    def revealed(self) -> frozenset[str]:
        """The deferred tools a search has revealed so far (tool names)."""
        return self._revealed

    def reveal(self, names: Iterable[str]) -> list[str]:
        """Mark tools revealed (by their own or provider names); returns the names that
        were new. Names of no tool are ignored."""
        known = self.toolset.provider_names()
        found = []
        for name in names:
            tool = self.toolset.find(name)
            own = tool.name if tool is not None else known.internal(name)
            if own is not None and own in self.toolset:
                found.append(own)
        with self._lock:
            new = [n for n in dict.fromkeys(found) if n not in self._revealed]
            self._revealed = self._revealed | frozenset(new)
        return new

    # -- exports -------------------------------------------------------------------------

    def export(
        self, fmt: ToolFormat, named: Sequence[tuple[str, AnyTool]], **options: Any
    ) -> list[dict[str, Any]]:
        """``named`` (every tool, under its exported name) as ``fmt`` exports it with
        this deferral."""
        deferred = set(self.deferred())
        if not deferred:
            return fmt.export_tools(named, **options)
        if fmt.searches_tools:  # the provider searches and loads tools itself
            factories = self.toolset.factories()
            groups = {n: factories[t.name] for n, t in named if t.name in factories}
            later = {n for n, t in named if t.name in deferred}
            namespaces = groups if self.rule.namespaces else {}
            return fmt.export_deferred(
                named, later, search=self.rule.search, groups=namespaces, **options
            )
        shown = self._revealed
        kept = [(n, t) for n, t in named if t.name not in deferred or t.name in shown]
        # The search tool stays while tools are deferred, even when all are revealed: the
        # list only grows, so a prompt cache keeps what it holds.
        kept.append((self.search_tool().name, self.search_tool()))
        return fmt.export_tools(kept, **options)

    # -- the local search tool -----------------------------------------------------------

    def search_tool(self) -> AnyTool:
        """The ``search_tools`` tool of this toolset (made once)."""
        if self._tool is None:
            self._tool = ToolDefinition(
                name=SEARCH_TOOL,
                description=_DESCRIPTION[self.rule.search],
                action_type=SearchToolsAction,
                observation_type=SearchToolsObservation,
                executor=self._run,
                annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False),
            )
            self._tool._spill = self.toolset.spill
        return self._tool

    def search(self, query: str, limit: int = DEFAULT_LIMIT) -> list[str]:
        """The deferred tools that match ``query`` best (BM25 or regex, as the rule
        says), best first; they are revealed. Raises :class:`~toolplug.SearchError`
        for a query that cannot be searched (a malformed regex)."""
        index = self._current_index()
        if index is None:
            return []
        if self.rule.search == "regex":
            hits = index.search_regex(query, limit=limit)
        else:
            hits = index.search(query, limit=limit)
        names = [hit.name for hit in hits]
        self.reveal(names)
        return names

    def _current_index(self) -> Any:
        from toolplug.search import ToolIndex

        names = tuple(self.deferred())
        if not names:
            return None
        with self._lock:
            if self._index is None or self._index[0] != names:
                tools = [self.toolset[n] for n in names if n in self.toolset]
                self._index = (names, ToolIndex(tools))
            return self._index[1]

    def _run(self, action: SearchToolsAction) -> Observation:
        from toolplug.errors import SearchError

        try:
            names = self.search(action.query, action.limit)
        except SearchError as exc:
            return Observation.error(f"search_tools: {exc}")
        if not names:
            return SearchToolsObservation.from_text(
                f"No tool matched {cut(action.query, 200)!r}. Try other words "
                "(what the tool does, or a word of its name).",
                tools=[],
            )
        external = self.toolset.provider_names()
        lines = []
        for name in names:
            tool = self.toolset.get(name)
            summary = _first_line(tool.description if tool is not None else "")
            lines.append(f"- {external.external(name)}: {summary}")
        text = "Found these tools; call them from your next turn on:\n" + "\n".join(lines)
        return SearchToolsObservation.from_text(text, tools=[external.external(n) for n in names])


def _first_line(description: str) -> str:
    line = description.strip().split("\n", 1)[0]
    return cut(line, 200)


def defer(toolset: Toolset, rule: Deferral) -> Deferred:
    """The :class:`Deferred` state of ``toolset`` under ``rule`` (see :meth:`Toolset.defer`)."""
    if SEARCH_TOOL in toolset:
        raise ToolError(
            f"the toolset has a tool named '{SEARCH_TOOL}', the name of the local tool "
            "search; rename that tool to defer tools"
        )
    return Deferred(rule, toolset)
