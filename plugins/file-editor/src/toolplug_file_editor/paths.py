"""Where a path from the model really points, and whether the editor may go there."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path

from toolplug import printable

from toolplug_file_editor.errors import EditorError

#: The longest path accepted, in characters (Linux's PATH_MAX is 4096 bytes).
MAX_PATH_CHARS = 4096


def check(raw: str) -> None:
    """Refuse a path no file can have: empty, holding a NUL, or too long."""
    if not raw or not raw.strip():
        raise EditorError("`path` is empty. Give a file or directory path.")
    if "\x00" in raw:
        raise EditorError("`path` contains a NUL character, which no file name can hold.")
    if len(raw) > MAX_PATH_CHARS:
        # Not echoed: every message names the path, and this one would be huge.
        raise EditorError(
            f"`path` is {len(raw)} characters long; paths are at most {MAX_PATH_CHARS}. "
            "Give a shorter path."
        )


def plain_names(raw: str) -> list[str] | None:
    """The names of a plain relative path such as ``src/app.py``, else ``None``.

    Plain: no leading ``/`` or ``~``, and no empty, ``.`` or ``..`` name, so the path
    joined to the workspace is already in the form :func:`resolve` gives. Where no name
    on the way is a link, it is the real path, and the workspace holds it.
    """
    if raw.startswith(("/", "~")):
        return None
    names = raw.split("/")
    if "" in names or "." in names or ".." in names:
        return None
    return names


def resolve(raw: str, workspace: Path, *, allow_outside: bool) -> Path:
    """The real path for ``raw``: relative paths start at ``workspace``.

    Symlinks and ``..`` are resolved before the check, so a link that leads out of the
    workspace is refused just like an absolute path outside it.
    """
    check(raw)
    # String functions rather than pathlib: this runs on every call.
    root = str(workspace)
    joined = os.path.join(root, os.path.expanduser(raw))
    try:
        real = os.path.realpath(joined)
    except OSError:  # a link swapped for a folder between realpath's lstat and readlink
        raise EditorError(
            f"{raw} changed while the editor was resolving it (a symbolic link on the way "
            "came or went), so nothing was read or written. Try again once it is settled."
        ) from None
    inside = real == root or real.startswith(root.rstrip(os.sep) + os.sep)
    if not allow_outside and not inside:
        via = "" if real == os.path.normpath(joined) else f" (it leads to {real})"
        raise EditorError(
            f"{raw} is outside the workspace {workspace}{via}. Use a path inside the workspace."
        )
    return Path(real)


def display(path: Path, workspace: Path) -> str:
    """How to name a path in messages: relative to the workspace when inside it, and
    escaped where it is not UTF-8 (:func:`toolplug.printable`)."""
    try:
        relative = path.relative_to(workspace)
    except ValueError:
        return printable(str(path))
    return printable(str(relative)) if str(relative) != "." else "."


def missing_path_message(
    raw: str,
    real: Path,
    workspace: Path,
    names: list[str],
    show: Callable[[Path], str] | None = None,
) -> str:
    """The error for a path that does not exist, with near ``names`` from its folder
    (each named by ``show``, default :func:`display`)."""
    message = f"{raw} does not exist."
    visible = [name for name in names if not name.startswith(".")]
    close = difflib.get_close_matches(real.name, visible, n=3, cutoff=0.6)
    if close:
        name_of = show or (lambda path: display(path, workspace))
        shown = [name_of(real.parent / name) for name in close]
        message += f" Did you mean: {', '.join(shown)}?"
    return message + " To make a new file, use the `create` command."
