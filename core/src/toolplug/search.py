"""Find tools by what they do: BM25 over names, descriptions and parameter names, or a regex.

A host with hundreds of tools sends only a few definitions and lets the model search for
the rest. :class:`ToolIndex` is that search, run locally, so it works for every format:

- :meth:`ToolIndex.search` ranks tools for a query in words ("open a pull request") with
  BM25 (Okapi, ``k1=1.2``, ``b=0.75``). A tool's document is its name (the whole name,
  and its parts split on ``_``, ``-``, ``.``, ``/``, camelCase and digits; counted
  twice, as names are the densest evidence), its description and its parameter names.
  Parameter descriptions are left out: callers that only have a name, a description and
  parameter names (`ToolIndex.from_entries`) rank the same as callers with definitions.
  Words are lowercased, a few very common English words are dropped, and a small suffix
  stripper folds plurals and verb forms ("issues" and "issue", "listing" and "list").
- :meth:`ToolIndex.search_regex` matches a pattern (Python ``re`` syntax) from a model,
  case-insensitively, against each tool's name, description and parameter names, as
  Anthropic's regex tool search does. The pattern is untrusted, so it runs on RE2
  (``toolplug[regex]``), whose matching time is linear: no pattern can make it hang.

Both return :class:`SearchHit` lists, best first, ties broken by name, so the same
index and query always give the same answer (prompt caches depend on stable exports).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolplug.errors import SearchError

if TYPE_CHECKING:
    from toolplug.definition import ToolDefinition

__all__ = [
    "MAX_PATTERN_LENGTH",
    "REGEX_INSTALL",
    "SearchError",
    "SearchHit",
    "ToolIndex",
    "split_name",
]

#: The longest regex pattern :meth:`ToolIndex.search_regex` takes, as Anthropic's does.
MAX_PATTERN_LENGTH = 200

#: What to install for :meth:`ToolIndex.search_regex`.
REGEX_INSTALL = "pip install 'toolplug[regex]'"

# BM25's constants: the usual ones; tuning them on the quality set moved nothing.
_K1 = 1.2
_B = 0.75
# How many times a name's words count: a name says what a tool does in few words.
_NAME_WEIGHT = 2

# A word: letters or digits; camelCase and letter/digit boundaries split further below.
_WORD = re.compile(r"[A-Za-z]+|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_NAME_SEPARATORS = re.compile(r"[\s_\-./:]+")

# Words that carry no meaning about what a tool does, in queries or descriptions.
_STOPWORD_TEXT = (
    "a an and are as at be by can do does for from how i if in into is it its me my of on "
    "or our please so that the their them then there these this to use using was we what "
    "when where which who will with you your"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class SearchHit:
    """One tool found: its name and how well it matched (higher is better).

    Scores compare hits of one search only: BM25 scores for :meth:`ToolIndex.search`,
    the number of fields matched, weighted, for :meth:`ToolIndex.search_regex`.
    """

    name: str
    score: float


@dataclass(frozen=True)
class _Entry:
    name: str
    description: str
    parameters: tuple[str, ...]


class ToolIndex:
    """A search index over a fixed set of tools, built once and queried many times.

    Build it from definitions (``ToolIndex(toolset.definitions)``), or with
    :meth:`from_entries` from names, descriptions and parameter names (an MCP server's
    tool list, say). Names should be unique; a name given twice is indexed twice.
    """

    def __init__(self, definitions: Sequence[ToolDefinition[Any, Any]]) -> None:
        self._build(
            _Entry(d.name, d.description or "", _parameter_names(d.input_schema()))
            for d in definitions
        )

    @classmethod
    def from_entries(cls, entries: Iterable[tuple[str, str, Sequence[str]]]) -> ToolIndex:
        """An index over ``(name, description, parameter names)`` triples."""
        index = cls.__new__(cls)
        index._build(
            _Entry(name, description or "", tuple(params)) for name, description, params in entries
        )
        return index

    def _build(self, entries: Iterable[_Entry]) -> None:
        self._entries = list(entries)
        # The inverted index: a term -> (entry number, term frequency) for each entry
        # that has it; plus each entry's length normaliser, computed once.
        postings: dict[str, list[tuple[int, int]]] = {}
        lengths: list[int] = []
        for number, entry in enumerate(self._entries):
            terms = Counter(_document_terms(entry))
            lengths.append(sum(terms.values()))
            for term, frequency in terms.items():
                postings.setdefault(term, []).append((number, frequency))
        average = (sum(lengths) / len(lengths)) if lengths else 1.0
        self._norms = [_K1 * (1 - _B + _B * length / (average or 1.0)) for length in lengths]
        count = len(self._entries)
        self._postings = postings
        # Okapi's idf, floored at zero's neighbour so a term in every tool still counts.
        self._idf = {
            term: math.log(1 + (count - len(hits) + 0.5) / (len(hits) + 0.5))
            for term, hits in postings.items()
        }

    def __len__(self) -> int:
        return len(self._entries)

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        """The tools that best match ``query`` (words, as a person or a model writes a
        need), best first, at most ``limit``; tools sharing no word with it are left out.

        Raises :class:`SearchError` if the query has no words.
        """
        if not query or not query.strip():
            raise SearchError(
                "the search query is empty: say in a few words what the tool should do"
            )
        terms = _query_terms(query)
        scores: dict[int, float] = {}
        for term in set(terms):
            hits = self._postings.get(term)
            if hits is None:
                continue
            idf = self._idf[term]
            for number, frequency in hits:
                gain = idf * frequency * (_K1 + 1) / (frequency + self._norms[number])
                scores[number] = scores.get(number, 0.0) + gain
        return self._best(scores, limit)

    def search_regex(self, pattern: str, *, limit: int = 5) -> list[SearchHit]:
        """The tools whose name, description or a parameter name match ``pattern``
        (Python ``re`` syntax, matched case-insensitively with ``re.search`` semantics),
        at most ``limit``; a name match ranks above a description match, which ranks
        above a parameter name match.

        The pattern may come from a model. It is refused with a :class:`SearchError`
        that says why if it is over :data:`MAX_PATTERN_LENGTH` characters, is not a
        valid pattern (the message gives the character), or uses what the linear-time
        engine cannot run (lookarounds, backreferences). Needs ``toolplug[regex]``.
        """
        regex = _compile(pattern)
        scores: dict[int, float] = {}
        for number, entry in enumerate(self._entries):
            score = 0.0
            if regex.search(entry.name) is not None:
                score += 4.0
            if regex.search(entry.description) is not None:
                score += 2.0
            if any(regex.search(parameter) is not None for parameter in entry.parameters):
                score += 1.0
            if score:
                scores[number] = score
        return self._best(scores, limit)

    def _best(self, scores: dict[int, float], limit: int) -> list[SearchHit]:
        if limit < 1:
            return []
        ranked = sorted(scores.items(), key=lambda item: (-item[1], self._entries[item[0]].name))
        return [SearchHit(self._entries[number].name, score) for number, score in ranked[:limit]]


def split_name(name: str) -> list[str]:
    """A tool name's words, lowercased: split on ``_``, ``-``, ``.``, ``/``, ``:``,
    camelCase and digits (``github__createPullRequest2`` -> github, create, pull,
    request, 2)."""
    words: list[str] = []
    for part in _NAME_SEPARATORS.split(name):
        words.extend(word.lower() for word in _CAMEL.findall(part))
    return words


def _document_terms(entry: _Entry) -> list[str]:
    name_terms = [_stem(word) for word in split_name(entry.name)]
    terms = name_terms * _NAME_WEIGHT
    terms.append(entry.name.lower())
    terms.extend(_text_terms(entry.description))
    for parameter in entry.parameters:
        terms.extend(_stem(word) for word in split_name(parameter))
    return terms


def _query_terms(query: str) -> list[str]:
    # A word typed as a name (``git_status``) also matches the whole name.
    whole = [
        token.lower() for token in query.split() if _NAME_SEPARATORS.search(token.strip(".,;:!?"))
    ]
    return _text_terms(query) + whole


def _text_terms(text: str) -> list[str]:
    terms: list[str] = []
    for token in _WORD.findall(text):
        for word in _CAMEL.findall(token):
            lowered = word.lower()
            if lowered not in _STOPWORDS:
                terms.append(_stem(lowered))
    return terms


def _stem(word: str) -> str:
    """Fold the commonest English endings: enough to meet "issues" with "issue" and
    "listing" with "list" without a stemmer's dependency. Not linguistics, just
    consistent: queries and documents go through the same function."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, replacement in (
        ("ies", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: -len(suffix)] + replacement
    return word


def _parameter_names(schema: dict[str, Any]) -> tuple[str, ...]:
    properties = schema.get("properties")
    return tuple(properties) if isinstance(properties, dict) else ()


# -- regex ---------------------------------------------------------------------------
#
# The pattern comes from a model, so it must not be able to hang the host. Python's re
# backtracks: ``(a+)+$`` on a long description takes exponential time, and bounding the
# haystacks does not help (thirty characters are enough), nor does refusing nested
# quantifiers (``(a|a)*$`` has none). RE2 matches in linear time by construction, so the
# pattern runs there. Python's re still reads the pattern first: the syntax the model
# was told is Python's, and re's errors say at which character a pattern breaks (RE2's
# do not). RE2 is an optional extra (google-re2, which toolplug-mcp already depends on)
# so the core's dependencies stay pydantic, pluggy and click.


def _compile(pattern: str) -> Any:
    if not pattern:
        raise SearchError(
            "the regex pattern is empty: give a pattern such as 'weather' or 'get_.*_data'"
        )
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise SearchError(
            f"the regex pattern is {len(pattern)} characters long; the limit is"
            f" {MAX_PATTERN_LENGTH}: use a shorter pattern"
        )
    try:
        re.compile(pattern)
    except re.error as exc:
        where = f", at character {exc.pos + 1}" if exc.pos is not None else ""
        raise SearchError(f"invalid regex pattern {pattern!r}: {exc.msg}{where}") from None
    except (RecursionError, OverflowError) as exc:
        raise SearchError(f"invalid regex pattern {pattern!r}: it is too complex ({exc})") from None
    try:
        import re2
    except ImportError:
        raise SearchError(f"regex tool search needs RE2: {REGEX_INSTALL}") from None
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        reason = (
            exc.args[0].decode(errors="replace")
            if exc.args and isinstance(exc.args[0], bytes)
            else str(exc)
        )
        raise SearchError(
            f"regex pattern {pattern!r} cannot run on RE2, the engine that keeps regex"
            f" search from hanging ({reason}): it has no lookarounds or backreferences and"
            " no repeat counts over 1000; rewrite the pattern without them"
        ) from None
