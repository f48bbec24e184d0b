"""Atomic file writes: the old content or the new, never a half-written file.

The new bytes go to a temporary file ``.NAME.RANDOM.toolplug-tmp`` in the same folder,
which is flushed, synced to disk and given the old file's owner, group and mode before
it is renamed over the target; then the folder is synced too, so that the rename itself
survives a crash (an edit reported as done stays done). Everything happens relative to
an open descriptor of the folder, never by path. The writer holds a ``flock`` on its
temporary file until the rename, which tells a live writer from a dead one (stale.py).
If anything fails on the way (a full disk, a file-size limit, a failing rename), the
temporary file is removed and the original is left exactly as it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import threading
from collections.abc import Sequence
from pathlib import Path

from toolplug_file_editor.errors import EditorError

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

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
    dir_fd: int,
    name: str,
    data: bytes | Sequence[bytes | memoryview],
    *,
    path: Path,
    mode: int | None,
    owner: tuple[int, int] | None = None,
    exclusive: bool = False,
) -> bool:
    """Replace (or, with ``exclusive``, newly create) ``name`` in the folder ``dir_fd``.

    ``data`` is the new content, or a sequence of pieces written one after the other;
    ``path`` names the file in messages. Everything happens relative to ``dir_fd``, so
    the write lands in the folder that was checked even if its path changes meanwhile.

    ``mode`` is the permission bits to give the file (``None``: a new file's default
    under the umask); ``owner`` the (uid, gid) to keep, where the process may set it.
    With ``exclusive`` an existing file is never replaced, even one that appeared a
    moment ago. Returns whether the owner was kept (always true without ``owner``).
    Raises :class:`EditorError` saying the file is unchanged.
    """
    if mode is None:
        mode = 0o666 & ~current_umask()
    try:
        fd, temp = _make_temp(dir_fd, name)
    except OSError as exc:
        raise _write_error(path, exc, "could not make a temporary file next to it") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            # Held until the file is renamed or removed: a lock nobody holds marks a
            # temporary file whose writer died (see stale.py). The kernel drops it then.
            lock_exclusive(handle.fileno())
            kept = _keep_owner(handle.fileno(), owner)
            os.fchmod(handle.fileno(), mode)  # after chown, which may clear setuid bits
            for piece in [data] if isinstance(data, bytes) else data:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
            if exclusive:
                _link_new(dir_fd, temp, name)
            else:
                os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        _sync_directory(dir_fd)
    except FileExistsError:
        raise EditorError(
            f"{path} appeared while it was being created; it was left as it is. "
            "View it, then edit it with `str_replace`."
        ) from None
    except OSError as exc:
        raise _write_error(path, exc, "the write failed") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)  # after a rename there is nothing left to remove
    return kept


def temp_name(name: str) -> str:
    """A fresh temporary name for ``name``: ``.NAME.RANDOM.toolplug-tmp``, short enough
    for any file system (the name part is cut to 160 bytes)."""
    short = os.fsdecode(os.fsencode(name)[:160])
    return f".{short}.{secrets.token_hex(6)}{TEMP_SUFFIX}"


def _make_temp(dir_fd: int, name: str) -> tuple[int, str]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temp = temp_name(name)
        try:
            return os.open(temp, flags, 0o600, dir_fd=dir_fd), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name")


def lock_exclusive(fd: int) -> bool:
    """Take an exclusive lock on ``fd`` without waiting; whether it was taken."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _sync_directory(dir_fd: int) -> None:
    """Flush a directory's entries to disk (about 0.1 ms on ext4 here).

    Some file systems and platforms cannot open or sync a directory; the new content
    is in place all the same, so that is not an error.
    """
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)


def _keep_owner(fd: int, owner: tuple[int, int] | None) -> bool:
    """Give the new file the old one's owner and group; whether the owner was kept.

    Only a privileged process may give a file away; any process may set a group it
    belongs to, so the group is kept even when the owner cannot be.
    """
    if owner is None or not hasattr(os, "fchown"):
        return True
    info = os.fstat(fd)
    if (info.st_uid, info.st_gid) == owner:
        return True
    try:
        os.fchown(fd, *owner)
        return True
    except PermissionError:
        with contextlib.suppress(OSError):
            os.fchown(fd, -1, owner[1])
    return info.st_uid == owner[0]


def _link_new(dir_fd: int, temp: str, name: str) -> None:
    """Give ``temp`` the name ``name`` only if that name is free (a hard link refuses)."""
    try:
        os.link(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:
        # Some file systems have no hard links; the caller checked the name is free.
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        else:
            raise FileExistsError(name) from None


def _write_error(path: Path, exc: OSError, what: str) -> EditorError:
    reason = exc.strerror or str(exc)
    return EditorError(f"Could not write {path}: {what} ({reason}). The file was not changed.")
