"""The batch keywords as a type checker sees them: one typed set, the same everywhere.

``Toolset.dispatch``/``adispatch``/``run_composed`` and ``toolplug.compose.run_composed``
take their keywords as ``**options``; these are typed (``Unpack`` of a ``TypedDict``),
so a host's typo (``timeot=``) is a type error. Checked here against the functions
that really take them, so the typed set cannot drift from what runs.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any

from toolplug import Toolset
from toolplug.compose import ComposedOptions, ComposedResult, run_composed
from toolplug.dispatch import BatchOptions, DispatchOptions, adispatch, dispatch
from typing_extensions import Unpack

NAMES = {
    "Unpack": Unpack,
    "BatchOptions": BatchOptions,
    "DispatchOptions": DispatchOptions,
    "ComposedOptions": ComposedOptions,
    "ComposedResult": ComposedResult,
}


def keywords(fn: Any) -> dict[str, Any]:
    """A function's keyword-only parameters and their annotations, as evaluated."""
    hints = typing.get_type_hints(fn, localns=NAMES)
    return {
        name: hints[name]
        for name, p in inspect.signature(fn).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


def options_of(fn: Any) -> type:
    """The TypedDict a function's ``**options`` is unpacked from."""
    (options,) = (p for p in inspect.signature(fn).parameters.values() if p.kind is p.VAR_KEYWORD)
    hint = typing.get_type_hints(fn, localns=NAMES)[options.name]
    assert typing.get_origin(hint) is Unpack, f"{fn.__qualname__}: **{options.name}: {hint}"
    (typed,) = typing.get_args(hint)
    return typing.cast(type, typed)


def test_dispatch_options_are_exactly_dispatchs_keywords() -> None:
    for fn in (dispatch, adispatch):
        assert typing.get_type_hints(DispatchOptions) == keywords(fn)
    for method in (Toolset.dispatch, Toolset.adispatch):
        assert options_of(method) is DispatchOptions


def test_run_composed_options_are_its_keywords_and_the_batchs() -> None:
    batch = typing.get_type_hints(BatchOptions)
    assert batch == {k: v for k, v in keywords(dispatch).items() if k not in ("format", "native")}
    assert options_of(run_composed) is BatchOptions
    assert options_of(Toolset.run_composed) is ComposedOptions
    assert typing.get_type_hints(ComposedOptions, localns=NAMES) == {
        **batch,
        **keywords(run_composed),
    }


def test_results_are_typed() -> None:
    assert typing.get_type_hints(Toolset.run_composed, localns=NAMES)["return"] is ComposedResult
    assert typing.get_type_hints(Toolset.dispatch, localns=NAMES)["return"] == list[Any]
    assert typing.get_type_hints(Toolset.adispatch, localns=NAMES)["return"] == list[Any]
