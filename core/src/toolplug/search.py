"""Find tools by what they do: BM25 over names, descriptions and parameter names, or a regex.

A host with hundreds of tools sends only a few definitions and lets the model search for
the rest. :class:`ToolIndex` is that search, run locally, so it works for every format:

- :meth:`ToolIndex.search` ranks tools for a query in words ("open a pull request") with
  BM25F, BM25 (``k1=1.2``) over three fields, each weighted and normalised by its own
  length: the name (weight 3; its parts split on ``_``, ``-``, ``.``, ``/``, camelCase and
  digits, plus the whole name), the description (weight 1) and the parameter names
  (weight 0.5). Parameter descriptions are left out: callers that only have a name, a
  description and parameter names (:meth:`ToolIndex.from_entries`) rank the same as
  callers with definitions. Words are lowercased, a few very common English words are
  dropped, a small suffix stripper folds plurals and verb forms ("issues" and "issue",
  "staged" and "stage"), and a short table of synonyms common in tool descriptions
  ("folder" and "directory", "make" and "create") adds the other words of a query
  word's group at half weight.
- :meth:`ToolIndex.search_regex` matches a pattern (Python ``re`` syntax) from a model,
  case-insensitively, against each tool's name, description and parameter names, as
  Anthropic's regex tool search does. The pattern is untrusted, so it runs on RE2
  (``toolplug[regex]``), whose matching time is linear: no pattern can make it hang.

Both return :class:`SearchHit` lists, best first, ties broken by name, so the same
index and query always give the same answer (prompt caches depend on stable exports).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from toolplug.definition import ToolDefinition
from toolplug.errors import SearchError

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

# BM25F (Robertson and Zaragoza's field-weighted BM25): each field's term counts are
# normalised by that field's own length, weighted, summed, then saturated once with k1.
# A name says what a tool does in three words, a description in thirty, so one length
# normaliser over both would let long descriptions drown their own names.
_K1 = 1.2
#: field -> (weight, b): how much a match counts, and how much the field's length damps it.
#: Descriptions range from four words to four hundred, so their length damps gently.
_FIELDS: dict[str, tuple[float, float]] = {
    "name": (3.0, 0.5),
    "description": (1.0, 0.3),
    "parameters": (0.5, 0.5),
}

# A word: a run of lowercase letters with at most one capital before it (so camelCase
# splits), a run of capitals (an acronym), or a run of digits. Everything else separates.
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# Outside ASCII, where case classes are not at hand: a run of letters and digits, whole.
_UNICODE_WORD = re.compile(r"[^\W_]+")

# Words that carry no meaning about what a tool does, in queries or descriptions.
_STOPWORD_TEXT = (
    "a an and are as at be by can do does for from how i if in into is it its me my of on "
    "or our please so that the their them then there these this to use using was we what "
    "when where which who will with you your"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# Words people and models use for the same action or thing: a query word also looks for
# the others of its group, at half weight, so "make a folder" finds create_directory
# while a tool that says "make" or "folder" itself still ranks first.
_SYNONYM_GROUPS = (
    "create make new add open start build",
    "delete remove erase destroy drop",
    "get fetch retrieve read show view",
    "list show enumerate all",
    "update edit change modify set",
    "search find look lookup query locate",
    "run execute exec invoke launch",
    "send post message",
    "download fetch save",
    "upload put push",
    "directory folder dir",
    "file document",
    "issue bug ticket",
    "image picture photo screenshot",
    "audio voice speech sound recording",
    "weather rain snow sunny temperature forecast",
    "distance far",
    "drive car driving",
    "type fill enter input",
    "remember store memory",
    "modified modification",
    "email mail",
    "meeting event appointment",
    "repository repo",
    "user person people member",
)
_SYNONYM_WEIGHT = 0.5

_NO_POSTINGS: tuple[list[int], list[float]] = ([], [])


@dataclass(frozen=True)
class SearchHit:
    """One tool found: its name and how well it matched (higher is better).

    Scores compare hits of one search only: BM25 scores for :meth:`ToolIndex.search`,
    the number of fields matched, weighted, for :meth:`ToolIndex.search_regex`.
    """

    name: str
    score: float


class _Entry(NamedTuple):
    name: str
    description: str
    parameters: tuple[str, ...]


class ToolIndex:
    """A search index over a fixed set of tools, built once and queried many times.

    Build it from definitions (``ToolIndex(list(toolset.values()))``), or with
    :meth:`from_entries` from names, descriptions and parameter names (an MCP server's
    tool list, say). Names should be unique; a name given twice is indexed twice.
    """

    def __init__(self, definitions: Sequence[ToolDefinition[Any, Any]]) -> None:
        self._build(_Entry(d.name, d.description or "", _parameters_of(d)) for d in definitions)

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
        fields = [_fields(entry) for entry in self._entries]
        count = len(fields) or 1
        averages = {
            field: (sum(len(terms[field]) for terms in fields) / count) or 1.0 for field in _FIELDS
        }
        # The inverted index: for each term, the tools that have it and its weighted,
        # length-normalised frequency in each, as two parallel lists (a tuple per pair
        # costs more to build). Scores are computed at query time, from the few terms
        # a query has, so building stays cheap.
        frequencies: dict[str, tuple[list[int], list[float]]] = {}
        for number, terms in enumerate(fields):
            weighted: dict[str, float] = {}
            for field, (weight, b) in _FIELDS.items():
                words = terms[field]
                # Each occurrence adds the field's weight over its length damping.
                step = weight / (1 - b + b * len(words) / averages[field])
                for term in words:
                    weighted[term] = weighted.get(term, 0.0) + step
            for term, frequency in weighted.items():
                numbers, values = frequencies.setdefault(term, ([], []))
                numbers.append(number)
                values.append(frequency)
        self._postings = frequencies
        self._count = count

    def __len__(self) -> int:
        return len(self._entries)

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        """The tools that best match ``query`` (words, as a person or a model writes a
        need), best first, at most ``limit``; tools sharing no word with it are left out.

        Raises :class:`SearchError` if the query is empty or only whitespace.
        """
        if not query or not query.strip():
            raise SearchError(
                "the search query is empty: say in a few words what the tool should do"
            )
        scores: dict[int, float] = {}
        for term, weight in _query_terms(query).items():
            numbers, frequencies = self._postings.get(term, _NO_POSTINGS)
            if not numbers:
                continue
            # Okapi's idf, kept positive, times the frequency saturated by k1.
            found = len(numbers)
            idf = weight * math.log(1 + (self._count - found + 0.5) / (found + 0.5))
            for number, frequency in zip(numbers, frequencies):
                gain = idf * frequency * (_K1 + 1) / (frequency + _K1)
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
    """A tool name's words, lowercased: split on ``_``, ``-``, ``.``, ``/``, any other
    punctuation, camelCase and digits (``github__createPullRequest2`` -> github,
    create, pull, request, 2)."""
    return [word.lower() for word in _words(name)]


def _words(text: str) -> list[str]:
    if text.isascii():  # nearly always: the fast path
        return _WORD.findall(text)
    words: list[str] = []
    for token in _UNICODE_WORD.findall(text):
        words.extend(_WORD.findall(token) if token.isascii() else (token,))
    return words


def _fields(entry: _Entry) -> dict[str, list[str]]:
    """A tool's terms, per field. The name field also holds the whole name, so a query
    that types the name (``git_status``) matches it as one term too."""
    name = _text_terms(entry.name)
    name.append(entry.name.lower())
    return {
        "name": name,
        "description": _text_terms(entry.description),
        "parameters": _text_terms(" ".join(entry.parameters)),
    }


def _query_terms(query: str) -> dict[str, float]:
    """A query's terms with their weights: its words, the whole of each word typed as a
    name (``git_status``), then its words' synonyms at a lower weight."""
    terms = dict.fromkeys(_text_terms(query), 1.0)
    for token in query.split():
        token = token.strip(".,;:!?'\"`()")
        if not token.isalnum():
            terms[token.lower()] = 1.0
    for term in list(terms):
        for synonym in _synonyms().get(term, ()):
            terms.setdefault(synonym, _SYNONYM_WEIGHT)
    return terms


@functools.lru_cache(maxsize=1)
def _synonyms() -> dict[str, tuple[str, ...]]:
    # Sorted tuples, not sets: a set's order changes with the interpreter's hash seed,
    # and the order terms are added in decides a score's last bits, so ties.
    table: dict[str, set[str]] = {}
    for group in _SYNONYM_GROUPS:
        terms = {_term(word) for word in group.split()}
        for term in terms:
            table.setdefault(term, set()).update(terms - {term})
    return {term: tuple(sorted(others)) for term, others in table.items()}


def _text_terms(text: str) -> list[str]:
    return [term for term in map(_term, _words(text)) if term]


# word -> its term: most words recur across tools and queries, and an index is
# rebuilt when its toolset changes. A plain dict, as a bounded lru_cache costs more
# than the stemming it saves; emptied when it grows past the bound.
_TERMS: dict[str, str] = {}
_TERMS_BOUND = 50_000


def _term(word: str) -> str:
    """A word as the index stores it: lowercased and stemmed; "" for a stopword."""
    term = _TERMS.get(word)
    if term is None:
        lowered = word.lower()
        term = "" if lowered in _STOPWORDS else _stem(lowered)
        if len(_TERMS) >= _TERMS_BOUND:
            _TERMS.clear()
        _TERMS[word] = term
    return term


def _stem(word: str) -> str:
    """Fold the commonest English endings, enough to meet "issues" with "issue",
    "staged" with "stage" and "running" with "run", without a stemmer's dependency.
    Not linguistics, just consistent: queries and documents go through it alike."""
    if len(word) <= 3 or not word.isalpha() or word in _KEEP:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem) >= 3 and not word.endswith("eed"):
            if stem.endswith("i"):  # copied -> copy
                stem = stem[:-1] + "y"
            elif stem[-1] == stem[-2] and stem[-1] not in "lsz":  # running -> run
                stem = stem[:-1]
            word = stem
            break
    # "stage", "stages", "staged" and "staging" all end as "stag".
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


# Words the stemmer would fold into another word's stem ("news" into "new").
_KEEP = frozenset({"news", "always", "series", "species"})


def _parameters_of(definition: ToolDefinition[Any, Any]) -> tuple[str, ...]:
    """The parameter names a definition exports. Its schema costs about a millisecond
    to build (pydantic makes it anew each time), a hundred times the rest of indexing
    it, so they are read from the action's fields, the schema's source, unless the
    definition exports a schema of its own (an MCP server's tool)."""
    if type(definition).input_schema is ToolDefinition.input_schema:
        fields = definition.action_type.model_fields
        return tuple(field.alias or name for name, field in fields.items())
    properties = definition.input_schema().get("properties")
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
