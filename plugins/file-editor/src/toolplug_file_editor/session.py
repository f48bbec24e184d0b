"""What the tools of one session share: the undo history, and the lock that orders edits.

``file_editor`` and ``apply_patch`` made for the same :class:`toolplug.ToolContext`
(a host loads its tools with one) share one :class:`Shared`, so ``file_editor``'s
``undo_edit`` reverts a file that ``apply_patch`` changed, and an edit by one tool never
interleaves with an edit by the other. Tools made for different contexts share nothing.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field

from toolplug import ToolContext

from toolplug_file_editor.history import History


@dataclass
class Shared:
    """The undo history and the edit lock of one session."""

    history: History
    lock: threading.Lock = field(default_factory=threading.Lock)


# By the id of a live context; an entry goes when its context is collected. (A
# ToolContext holds mappings, so it cannot be a weak dictionary's key.)
_BY_CONTEXT: dict[int, Shared] = {}
_GUARD = threading.Lock()


def shared_for(context: ToolContext, undo_depth: int) -> Shared:
    """The session state of ``context``, made on first use with ``undo_depth`` steps."""
    key = id(context)
    with _GUARD:
        found = _BY_CONTEXT.get(key)
        if found is None:
            found = _BY_CONTEXT[key] = Shared(History(depth=undo_depth))
            weakref.finalize(context, _BY_CONTEXT.pop, key, None)
        return found
