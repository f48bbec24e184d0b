"""Files a ``tool_call`` hook hid from this call (`toolplug.hidden_paths`, a policy's
``!**/.env``): left out of the listing, with a note of how many matched.

glob lists names, never contents, so the note can count the hidden matches: it tells
the model that names it may not see match, which is what a listing tells anyway.
"""

from __future__ import annotations

from pathlib import Path

from toolplug import hidden_paths


def unhidden(base: Path, found: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], int]:
    """The dated matches (paths relative to ``base``) that are not hidden, and how many
    were."""
    hidden = hidden_paths()
    if hidden is None:
        return found, 0
    root = str(base)
    kept = [item for item in found if not hidden.hides(f"{root}/{item[1]}")]
    return kept, len(found) - len(kept)


def note(count: int) -> str | None:
    """The note for the model, when matches were hidden."""
    hidden = hidden_paths()
    if not count or hidden is None:
        return None
    files = "1 matching file is" if count == 1 else f"{count:,} matching files are"
    return f"({files} hidden by {hidden.by} and not listed; ask the user if you need them.)"
