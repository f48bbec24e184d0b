"""The :class:`FormatRegistry`: the formats a toolset knows, by name, and reading a batch
of calls in whichever of them it came."""

from __future__ import annotations

import reprlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolplug._text import cut
from toolplug.errors import DispatchError, FormatError
from toolplug.formats.base import NotACall, ToolFormat, plain
from toolplug.formats.native import ToolplugFormat
from toolplug.model import ToolCall

if TYPE_CHECKING:
    from toolplug.formats.forms import NativeForm

#: How ToolCall items are read when no registered format is named "toolplug".
_NATIVE = ToolplugFormat()

# What an error shows of the calls: a bounded repr, however large or deep they are.
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 80, 80
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = 6


def _shown(value: Any) -> str:
    """A short repr of ``value`` for an error message (never more than a few hundred
    characters, never a RecursionError)."""
    try:
        return cut(_REPR.repr(value), 300)
    except Exception:  # a repr of a user's object that raises
        return f"<{type(value).__name__}>"


def _plain(value: Any) -> Any:
    """:func:`plain`, with an SDK object whose dump fails as a DispatchError."""
    try:
        return plain(value)
    except Exception as exc:
        raise DispatchError(
            f"the calls hold a {type(value).__name__} that could not be read: {_problem(exc)}"
        ) from None


def _problem(exc: Exception) -> str:
    """``Type: message`` of what a format raised, cut to a bounded length."""
    try:
        message = str(exc)
    except Exception:
        message = ""
    return f"{type(exc).__name__}: {cut(message)}" if message else type(exc).__name__


class FormatRegistry(Mapping[str, ToolFormat]):
    """Formats by name, in the order they were registered.

    Filled through the ``register_formats`` hook: the core's formats first, then
    plugins'. A name registered twice is an error naming both sources.
    """

    def __init__(self) -> None:
        self._formats: dict[str, ToolFormat] = {}
        self._sources: dict[str, str] = {}
        self._detection: list[ToolFormat] = []  # the order formats are tried in

    def register(self, fmt: ToolFormat, *, source: str = "the host") -> None:
        """Add a format; its ``name`` must be new."""
        if not isinstance(fmt, ToolFormat):
            raise FormatError(
                f"{source} registered {type(fmt).__name__}, not a ToolFormat instance"
            )
        if not fmt.name:
            raise FormatError(f"{source} registered {fmt!r}, which has no name")
        if fmt.name in self._formats:
            raise FormatError(
                f"the format name '{fmt.name}' is registered by {self._sources[fmt.name]} "
                f"and by {source}; the first is used"
            )
        self._formats[fmt.name] = fmt
        self._sources[fmt.name] = source
        # A fallback format claims only what no other did: it is tried last.
        self._detection = sorted(self._formats.values(), key=lambda f: f.fallback)

    def __getitem__(self, name: str) -> ToolFormat:
        try:
            return self._formats[name]
        except (KeyError, TypeError):  # TypeError: a name that cannot be hashed
            raise FormatError(
                f"unknown format {_shown(name)}; choose one of {', '.join(self._formats)}"
            ) from None

    def get(self, name: str, default: Any = None) -> Any:
        """The format named ``name``, or ``default`` (Mapping.get expects a KeyError)."""
        return self._formats.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._formats

    def __iter__(self) -> Iterator[str]:
        return iter(self._formats)

    def __len__(self) -> int:
        return len(self._formats)

    def __repr__(self) -> str:
        return f"FormatRegistry({', '.join(self._formats)})"

    # -- reading calls ------------------------------------------------------------------

    def _items(self, calls: Any) -> list[Any]:
        """The items of a batch: whole messages, responses and requests are unwrapped."""
        calls = _plain(calls)
        if calls is None:
            return []
        if isinstance(calls, (list, tuple)):
            return list(calls)
        for fmt in self._detection:
            try:
                items = fmt.unwrap(calls)
            except DispatchError:
                raise
            except Exception as exc:  # a field of the wrong type where a message was
                raise DispatchError(
                    f"the calls are malformed for {fmt.title or fmt.name}: "
                    f"{_problem(exc)}: {_shown(calls)}"
                ) from None
            if items is not None:
                if not isinstance(items, list):
                    raise DispatchError(
                        f"the format {fmt.name!r} unwrapped the calls into "
                        f"{type(items).__name__}, not a list (a bug in the format)"
                    )
                return items
        return [calls]

    def _read(
        self,
        item: Any,
        index: int,
        likely: ToolFormat | None = None,
        claims: Sequence[NativeForm] = (),
    ) -> tuple[ToolFormat, ToolCall] | None:
        item = _plain(item)
        if isinstance(item, ToolCall):
            return self._formats.get("toolplug") or _NATIVE, item
        if not isinstance(item, dict):
            raise DispatchError(
                f"item {index} of the calls is {type(item).__name__}, not a tool call"
            )
        for form in claims:  # native call items (Responses' shell_call) come first
            claimed = self._claim(form, item, index)
            if claimed is not None:
                return claimed
        skipped = False
        # The format of the batch so far first: the rest of a batch is in it too.
        order = self._detection if likely is None else [likely, *self._detection]
        for fmt in order:
            try:
                call = fmt.read_call(item, index)
            except DispatchError:
                raise
            except KeyError as exc:
                missing = _shown(exc.args[0]) if exc.args else "field"
                raise DispatchError(
                    f"tool call {index} ({fmt.title}) has no {missing}: {_shown(item)}"
                ) from None
            except Exception as exc:  # a field of the wrong type, or a broken format
                raise DispatchError(
                    f"tool call {index} is malformed for {fmt.title or fmt.name}: "
                    f"{_problem(exc)}: {_shown(item)}"
                ) from None
            if isinstance(call, NotACall):
                skipped = True
            elif isinstance(call, ToolCall):
                if not isinstance(call.name, str):
                    raise DispatchError(f"tool call {index} has a name that is not a string")
                return fmt, call
            elif call is not None:
                raise DispatchError(
                    f"the format {fmt.name!r} read item {index} as {type(call).__name__}, "
                    "not a ToolCall (a bug in the format)"
                )
        if skipped or "type" in item:
            return None  # text, thinking, reasoning...: not a call to run
        raise DispatchError(f"item {index} is not a tool call of any known format: {_shown(item)}")

    def _claim(
        self, form: NativeForm, item: dict[str, Any], index: int
    ) -> tuple[ToolFormat, ToolCall] | None:
        """``item`` as ``form``'s native call, if it is one (see :meth:`NativeForm.read_call`)."""
        fmt = self._formats.get(form.format)
        if fmt is None:
            return None  # a form for a format this registry does not know
        try:
            call = form.read_call(item, index)
        except KeyError as exc:
            missing = _shown(exc.args[0]) if exc.args else "field"
            raise DispatchError(
                f"tool call {index} ({fmt.title} {form.call_name}) has no {missing}: {_shown(item)}"
            ) from None
        except Exception as exc:
            raise DispatchError(
                f"tool call {index} is malformed for {fmt.title or fmt.name} "
                f"{form.call_name}: {_problem(exc)}: {_shown(item)}"
            ) from None
        if call is None:
            return None
        if not isinstance(call, ToolCall) or call.name != form.call_name:
            raise DispatchError(
                f"the native form {form!r} read item {index} as {call!r}, not a ToolCall "
                f"named {form.call_name!r} (a bug in the form)"
            )
        return fmt, call

    def revealed(self, calls: Any) -> list[str]:
        """The tool names (as exported) that server-side tool search results among
        ``calls`` load (Anthropic's ``tool_reference`` blocks, OpenAI Responses'
        ``tool_search_output`` items), for :mod:`toolplug.deferral`."""
        names: list[str] = []
        for item in self._items(calls):
            item = _plain(item)
            if not isinstance(item, dict):
                continue
            for fmt in self._detection:
                try:
                    found = fmt.revealed(item)
                except Exception:  # a malformed result loads nothing; the calls still run
                    continue
                names.extend(name for name in found if isinstance(name, str))
        return names

    def parse_calls(
        self, calls: Any, format: str | None = None, *, claims: Sequence[NativeForm] = ()
    ) -> tuple[ToolFormat, list[ToolCall]]:
        """Read a batch of calls in any registered format: the format and the calls.

        Accepts a list of calls (dicts or SDK objects) or a whole message, response or
        request as its format unwraps it; items that are not calls (text, reasoning) are
        skipped. :class:`~toolplug.ToolCall` items fit every format. ``claims`` are
        native forms (:mod:`toolplug.formats.forms`) that read their provider's typed
        call items before the formats do; such a call is in its form's format. Raises
        :class:`~toolplug.DispatchError` on a shape no format reads, on calls of two
        formats, or on calls that do not match ``format``.
        """
        wanted = None
        if format is not None:
            try:
                wanted = self[format]
            except FormatError as exc:
                raise DispatchError(str(exc)) from None
        found: ToolFormat | None = None
        out: list[ToolCall] = []
        for index, item in enumerate(self._items(calls)):
            read = self._read(item, index, found, claims)
            if read is None:
                continue
            fmt, call = read
            if fmt.name != "toolplug":
                if found is not None and fmt is not found:
                    raise DispatchError(f"the calls mix two formats: {found.name} and {fmt.name}")
                found = fmt
            out.append(call)
        if wanted is not None and found is not None and found is not wanted:
            raise DispatchError(f"the calls are {found.name} tool calls, not {wanted.name}")
        return wanted or found or self._formats.get("toolplug") or _NATIVE, out
