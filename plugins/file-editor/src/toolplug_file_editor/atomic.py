"""Atomic file writes: the old content or the new, never a half-written file.

The new bytes go to a temporary file in the same directory, which is flushed, synced
to disk and given the old file's mode before it is renamed over the target; then the
directory is synced too, so that the rename itself survives a crash (an edit reported
as done stays done). If anything fails on the way (a full disk, a file-size limit, a
failing rename), the temporary file is removed and the original is left exactly as it
was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from toolplug_file_editor.errors import EditorError

#: Suffix of the editor's temporary files, so a stray one is easy to recognise.
TEMP_SUFFIX = ".toolplug-tmp"

_umask_lock = threading.Lock()


def current_umask() -> int:
    """The process umask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _umask_lock:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def write_atomic(
    path: Path,
    data: bytes | Sequence[bytes | memoryview],
    *,
    mode: int | None,
    owner: tuple[int, int] | None = None,
    exclusive: bool = False,
) -> None:
    """Replace (or, with ``exclusive``, newly create) ``path`` with ``data`` atomically.

    ``data`` is the new content, or a sequence of pieces written one after the other.

    ``mode`` is the permission bits to give the file (``None``: a new file's default
    under the umask); ``owner`` the (uid, gid) to keep, where the process may set it.
    With ``exclusive`` an existing file is never replaced, even one that appeared a
    moment ago. Raises :class:`EditorError` saying the file is unchanged.
    """
    if mode is None:
        mode = 0o666 & ~current_umask()
    try:
        fd, temp_name = tempfile.mkstemp(
            prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent
        )
    except OSError as exc:
        raise _write_error(path, exc, "could not make a temporary file next to it") from None
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.chmod(temp, mode)
            _keep_owner(temp, owner)
            for piece in [data] if isinstance(data, bytes) else data:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            _link_new(temp, path)
        else:
            os.replace(temp, path)
        _sync_directory(path.parent)
    except FileExistsError:
        raise EditorError(
            f"{path} appeared while it was being created; it was left as it is. "
            "View it, then edit it with `str_replace`."
        ) from None
    except OSError as exc:
        raise _write_error(path, exc, "the write failed") from None
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()  # after a rename there is nothing left to remove


def _sync_directory(directory: Path) -> None:
    """Flush a directory's entries to disk (about 0.1 ms on ext4 here).

    Some file systems and platforms cannot open or sync a directory; the new content
    is in place all the same, so that is not an error.
    """
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _keep_owner(temp: Path, owner: tuple[int, int] | None) -> None:
    """Give the new file the old one's owner (only a privileged process can)."""
    if owner is None or not hasattr(os, "geteuid"):
        return
    if owner != (os.geteuid(), os.getegid()):
        with contextlib.suppress(OSError):
            os.chown(temp, *owner)


def _link_new(temp: Path, path: Path) -> None:
    """Give ``temp`` the name ``path`` only if that name is free (a hard link refuses)."""
    try:
        os.link(temp, path)
    except FileExistsError:
        raise
    except OSError:
        # Some file systems have no hard links; the caller checked the name is free.
        if path.exists():
            raise FileExistsError(path) from None
        os.replace(temp, path)


def _write_error(path: Path, exc: OSError, what: str) -> EditorError:
    reason = exc.strerror or str(exc)
    return EditorError(f"Could not write {path}: {what} ({reason}). The file was not changed.")
