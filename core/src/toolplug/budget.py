"""One output budget for every tool's result: :class:`Budget` and the :class:`Spill` folder.

A result whose text is longer than the budget reaches the model as its head and its
tail with a marker between them; the whole text is written to a file in the spill
folder, and the marker gives its path so the model can read or grep the rest. A block
that is not text (an image, audio, an embedded blob) larger than ``block_bytes`` is
replaced by a message saying so. Tools that bound their own output
(``ToolDefinition.bounds_output``: bash's streaming cap, grep's pages) are left alone
unless the host names them in ``per_tool``.

The runner applies it once per call (`toolplug.runner`), after the tool and the
``tool_call`` hooks: a guard sees the tool's real result, and what the hooks add or
replace is held to the budget too, since it all reaches the model. A :class:`Toolset`
owns one :class:`Spill` and removes it when it closes (unless ``keep``).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import secrets
import shutil
import tempfile
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolplug.content import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    TextContent,
)
from toolplug.model import Observation

if TYPE_CHECKING:
    from toolplug.definition import ToolDefinition

log = logging.getLogger("toolplug")

#: The default budget, in characters: what the leading coding agents give a command's
#: output before they cut it and save the rest.
DEFAULT_CHARS = 30_000
#: The most bytes a non-text block (base64 as sent) may carry by default: 5 MB, the
#: image size the strictest provider takes.
DEFAULT_BLOCK_BYTES = 5 * 1024 * 1024
#: The most the spill files of one toolset may take together by default (bytes).
DEFAULT_TOTAL_BYTES = 100 * 1024 * 1024


@dataclass(frozen=True)
class Budget:
    """How much of a tool's result the model gets, and where the rest goes.

    ``chars`` is the budget for every tool's text, in characters (``None``: no limit);
    ``tokens``, when given, takes its place: the budget is then counted in o200k_base
    tokens (:mod:`toolplug.tokens`, the ``toolplug[tokens]`` extra), ``chars`` is not
    used, and the marker counts tokens. ``per_tool`` overrides the budget by tool name,
    in the same unit (``None`` there: that tool is never cut; a number there also
    applies to a tool that bounds its own output). ``folder`` is the
    spill folder (default: a private temp folder made on the first spill); ``keep``
    leaves the spill files in place when the toolset closes; ``total_bytes`` caps the
    spill files together (past it, the oldest go); ``block_bytes`` caps each non-text
    block.
    """

    chars: int | None = DEFAULT_CHARS
    per_tool: Mapping[str, int | None] = field(default_factory=dict)
    folder: str | Path | None = None
    keep: bool = False
    total_bytes: int = DEFAULT_TOTAL_BYTES
    block_bytes: int = DEFAULT_BLOCK_BYTES
    tokens: int | None = None

    def __post_init__(self) -> None:
        unit = "tokens" if self.tokens is not None else "characters"
        given = [("tokens", self.tokens)] if self.tokens is not None else [("chars", self.chars)]
        for what, value in [*given, *self.per_tool.items()]:
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value < 1
            ):
                raise ValueError(f"Budget: {what} must be a positive number of {unit}")
        if self.total_bytes < 1 or self.block_bytes < 1:
            raise ValueError("Budget: total_bytes and block_bytes must be positive")
        if self.tokens is not None:
            from toolplug.tokens import count

            count("")  # no tokenizer: TokenizerMissing now, saying what to install

    @property
    def unit(self) -> str:
        """What the budget counts: ``"characters"`` or ``"tokens"``."""
        return "characters" if self.tokens is None else "tokens"

    def limit_for(self, tool: ToolDefinition[Any, Any]) -> int | None:
        """The budget of ``tool``'s text in :attr:`unit`, or ``None`` for no cut."""
        per_tool = self.per_tool
        if per_tool and tool.name in per_tool:
            return per_tool[tool.name]
        if tool.bounds_output:
            return None
        return self.chars if self.tokens is None else self.tokens


#: The budget a toolset has when none is given: :data:`DEFAULT_CHARS` characters.
DEFAULT_BUDGET = Budget()


def as_budget(value: Budget | int | None) -> Budget | None:
    """A ``budget=`` argument as a :class:`Budget` (an int is a number of characters;
    ``None`` is no budget)."""
    if value is None or isinstance(value, Budget):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Budget(chars=value)
    raise TypeError(
        f"budget= takes a toolplug.Budget, a number of characters or None, "
        f"got {type(value).__name__}"
    )


class Spill:
    """One toolset's budget at work: cuts results and keeps their full text on disk.

    Safe to use from several threads. Files are written whole (a temp name, then a
    rename) with mode 0600, in a folder of mode 0700 when toolplug makes it.
    """

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self._lock = threading.Lock()
        self._folder: Path | None = None
        self._made_folder = False  # whether close() may remove the folder itself
        self._files: deque[tuple[Path, int]] = deque()  # oldest first, with sizes
        self._total = 0
        self._count = 0
        # The common budget, in characters with no per-tool figure, read once here.
        self._plain = budget.tokens is None and not budget.per_tool
        self._chars = budget.chars
        # Several toolsets may spill into one folder a host names (every session of
        # `toolplug mcp serve`): a tag of their own keeps their file names apart.
        self._tag = secrets.token_hex(4)
        self._closed = False

    @property
    def folder(self) -> Path | None:
        """The spill folder, once something was spilled."""
        return self._folder

    # -- cutting ---------------------------------------------------------------------

    def apply(self, tool: ToolDefinition[Any, Any], observation: Observation) -> Observation:
        """``observation`` held to the budget: the same object when within it. Never raises."""
        # The common case, a plain observation within the budget, is on every call of
        # every tool: kept to a few attribute reads and one pass over the blocks.
        if self._plain:  # Budget.limit_for, its common case inlined
            limit = None if tool.bounds_output else self._chars
        else:
            limit = self.budget.limit_for(tool)
        if self._plain and type(observation) is Observation:
            size = 0
            for block in observation.content:
                if not isinstance(block, TextContent):
                    break
                size += len(block.text)
            else:
                if limit is None or size <= limit:
                    return observation
        try:
            return self._apply(tool, observation, limit)
        except Exception as exc:  # a result must reach the model, budget or not
            log.warning("output budget of tool %s failed", tool.name, exc_info=exc)
            return observation

    def _apply(
        self, tool: ToolDefinition[Any, Any], observation: Observation, limit: int | None
    ) -> Observation:
        if observation.content and _shows_content(type(observation)):
            blocks: Sequence[ContentBlock] = observation.content
        else:
            blocks = observation.llm_content
        size = 0
        oversized = False
        for block in blocks:
            if isinstance(block, TextContent):
                size += len(block.text)
            elif _block_bytes(block) > self.budget.block_bytes:
                oversized = True
        if self.budget.tokens is not None and limit is not None and size * 4 > limit:
            # A token is at least one byte and a character at most four: only a text
            # that may be over is counted.
            size = _token_count("\n".join(b.text for b in blocks if isinstance(b, TextContent)))
        elif self.budget.tokens is not None:
            size = 0  # within the budget, whatever its exact count
        if not oversized and (limit is None or size <= limit):
            return observation
        kept = list(blocks)
        if limit is not None and size > limit:
            kept = self._cut_text(tool.name, kept, limit)
        if oversized:
            kept = [
                _refused(block, self.budget.block_bytes)
                if not isinstance(block, TextContent)
                and _block_bytes(block) > self.budget.block_bytes
                else block
                for block in kept
            ]
        return _replaced(observation, kept)

    def _cut_text(
        self, name: str, blocks: Sequence[ContentBlock], limit: int
    ) -> list[ContentBlock]:
        """The text blocks as one: head, marker, tail; the other blocks stay, after it."""
        text = "\n".join(b.text for b in blocks if isinstance(b, TextContent))
        where = self._save(name, text)
        if where is None:
            saved = "The full output could not be saved, so the cut part is lost"
        else:
            saved = f"The full output is in {where} (read or grep it for the rest)"

        unit = self.budget.unit
        measure = len if unit == "characters" else _token_count
        ids = None if unit == "characters" else _token_ids(text)  # one pass: count and cut
        total = len(text) if ids is None else len(ids)

        def marker(cut: int) -> str:
            return (
                f"\n[... {cut:,} of {total:,} {unit} cut here by the output budget "
                f"({limit:,}). {saved}. ...]\n"
            )

        # The marker's own length comes out of the budget (give or take a digit).
        room = max(limit - measure(marker(total - limit)), 2)
        head, tail = _ends(text, room) if ids is None else _token_ends(ids, room)
        cut = total - measure(head) - measure(tail)
        others = [b for b in blocks if not isinstance(b, TextContent)]
        return [TextContent(text=head + marker(cut) + tail), *others]

    # -- the folder ------------------------------------------------------------------

    def _save(self, name: str, text: str) -> Path | None:
        """Write ``text`` to a new spill file and return its path; ``None`` if it cannot
        be kept (an unwritable folder, more than the total cap, a closed toolset)."""
        data = text.encode("utf-8", errors="replace")
        if len(data) > self.budget.total_bytes:
            return None
        with self._lock:
            if self._closed:
                return None
            try:
                folder = self._ensure_folder()
                self._count += 1
                path = folder / f"{self._tag}-{self._count:05d}-{_safe_name(name)}.txt"
                _write_private(path, data)
            except OSError as exc:
                log.warning("output budget: could not save the output of %s: %s", name, exc)
                return None
            self._files.append((path, len(data)))
            self._total += len(data)
            while self._total > self.budget.total_bytes and len(self._files) > 1:
                old, old_size = self._files.popleft()
                self._total -= old_size
                _unlink(old)
            return path

    def _ensure_folder(self) -> Path:
        if self._folder is not None:
            return self._folder
        chosen = self.budget.folder
        if chosen is None:
            folder = Path(tempfile.mkdtemp(prefix="toolplug-output-"))  # mode 0700
            self._made_folder = True
        else:
            folder = Path(chosen)
            self._made_folder = not folder.exists()
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._folder = folder
        return folder

    def close(self) -> None:
        """Remove the spill files (and a folder toolplug made), unless ``keep``. Once."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self.budget.keep or self._folder is None:
                return
            for path, _ in self._files:
                _unlink(path)
            self._files.clear()
            self._total = 0
            if self._made_folder and self.budget.folder is None:
                shutil.rmtree(self._folder, ignore_errors=True)  # private: all ours
            elif self._made_folder:
                # A host's folder this toolset made may hold other toolsets' files by
                # now: it goes only once it is empty.
                with contextlib.suppress(OSError):
                    self._folder.rmdir()


# -- helpers ------------------------------------------------------------------------------


def _ends(text: str, room: int) -> tuple[str, str]:
    """The head and the tail of ``text`` that fit in ``room`` characters."""
    head = text[: room // 2]
    return _whole_lines(head, text[len(text) - (room - len(head)) :])


def _whole_lines(head: str, tail: str) -> tuple[str, str]:
    """``head`` and ``tail`` each ended at a line break when one is near (so no line is
    shown half); cutting there only shortens them."""
    newline = head.rfind("\n")
    if newline >= len(head) * 4 // 5:
        head = head[: newline + 1]
    newline = tail.find("\n")
    if 0 <= newline <= len(tail) // 5:
        tail = tail[newline + 1 :]
    return head, tail


def _token_count(text: str) -> int:
    from toolplug.tokens import count

    return count(text)


def _token_ids(text: str) -> list[int]:
    from toolplug.tokens import encode

    return encode(text)


def _token_ends(ids: list[int], room: int) -> tuple[str, str]:
    """:func:`_ends` counted in tokens: the head and tail of a text's token ``ids`` that
    fit in ``room`` tokens."""
    from toolplug.tokens import decode

    head_ids = ids[: room // 2]
    tail_ids = ids[len(ids) - (room - len(head_ids)) :]
    return _whole_lines(decode(head_ids), decode(tail_ids))


def _block_bytes(block: Any) -> int:
    """The size a non-text block carries, as sent (base64 characters)."""
    if isinstance(block, (ImageContent, AudioContent)):
        return len(block.data)
    if isinstance(block, EmbeddedResource):
        resource = block.resource
        if isinstance(resource, BlobResourceContents):
            return len(resource.blob)
        return len(resource.text)
    return 0


def _refused(block: Any, limit: int) -> TextContent:
    kind = getattr(block, "type", "block")
    mime = getattr(block, "mimeType", None) or getattr(
        getattr(block, "resource", None), "mimeType", None
    )
    what = f"{kind} ({mime})" if mime else kind
    return TextContent(
        text=f"[{what} of {_block_bytes(block):,} bytes left out: over the output "
        f"budget's {limit:,} bytes per block. Ask for a smaller one.]"
    )


def _replaced(observation: Observation, blocks: list[ContentBlock]) -> Observation:
    """The observation with ``blocks`` as what the model sees.

    An observation that shows its ``content`` keeps its class and typed fields; one
    whose ``llm_content`` renders something else becomes a plain observation.
    """
    if observation.content and _shows_content(type(observation)):
        return observation.model_copy(update={"content": blocks})
    return Observation(content=blocks, is_error=observation.is_error)


@functools.cache
def _shows_content(cls: type[Observation]) -> bool:
    """Whether an observation class shows the model its ``content`` (it keeps the base
    class's ``llm_content``); asked once per class."""
    return cls.llm_content is Observation.llm_content


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _safe_name(name: str) -> str:
    return _UNSAFE.sub("_", name)[:60] or "tool"


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole: a private temp file, then a rename."""
    temp = path.with_name(f".{path.name}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        _unlink(temp)
        raise


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
