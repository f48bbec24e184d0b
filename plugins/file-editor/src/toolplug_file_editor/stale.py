"""Cleaning up after a writer that died: its temporary files, removed on the next write.

A write killed between making its temporary file and renaming it (``kill -9``, a
power cut) leaves ``.NAME.RANDOM.toolplug-tmp`` behind. Every writer holds an
exclusive ``flock`` on its temporary file until the rename, and the kernel drops the
lock when the process dies, so a temporary file that nobody holds locked has no live
writer. Before each write the editor removes such files from the folder it writes
to, when they are regular files, follow this tool's naming, and were not modified
for :data:`STALE_AFTER` seconds (a writer that has just created its file may not have
locked it yet). Nothing else is touched.

A folder is scanned again only when it changed since the editor last left it clean
(its mtime moved), so repeated edits in one folder cost one ``fstat`` each.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time

from toolplug_file_editor.atomic import TEMP_SUFFIX, lock_exclusive

#: Seconds a temporary file must be left unmodified before it may count as stale.
STALE_AFTER = 5.0
#: Folders remembered as clean; the memory is dropped beyond this many.
_REMEMBERED = 4096
_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def is_temp_name(name: str) -> bool:
    """Whether ``name`` follows this tool's temporary naming, ``.NAME.*.toolplug-tmp``."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX) and name.count(".") >= 3


class Sweeper:
    """Removes stale temporary files from the folders an editor writes to."""

    def __init__(self) -> None:
        # (device, inode) of a folder -> its mtime when last seen clean.
        self._clean: dict[tuple[int, int], int] = {}

    def sweep(self, dir_fd: int) -> None:
        """Remove the stale temporary files of the folder ``dir_fd``; never raises."""
        with contextlib.suppress(OSError):
            info = os.fstat(dir_fd)
            key = (info.st_dev, info.st_ino)
            if self._clean.get(key) == info.st_mtime_ns:
                return
            self._clean.pop(key, None)
            if _sweep(dir_fd):
                if len(self._clean) >= _REMEMBERED:
                    self._clean.clear()
                self._clean[key] = -1  # clean; the mtime is taken after the write

    def wrote(self, dir_fd: int) -> None:
        """Note the folder's mtime after this editor's own write to it."""
        with contextlib.suppress(OSError):
            info = os.fstat(dir_fd)
            key = (info.st_dev, info.st_ino)
            if key in self._clean:
                self._clean[key] = info.st_mtime_ns


def _sweep(dir_fd: int) -> bool:
    """Remove the stale temporary files in ``dir_fd``; whether none of ours is left."""
    clean = True
    with os.scandir(dir_fd) as entries:
        names = [entry.name for entry in entries if is_temp_name(entry.name)]
    for name in names:
        with contextlib.suppress(OSError):
            if not _remove_if_stale(dir_fd, name):
                clean = False
    return clean


def _remove_if_stale(dir_fd: int, name: str) -> bool:
    """Remove ``name`` if it is a stale temporary file; whether it is gone (or not ours)."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return True
    if not stat.S_ISREG(info.st_mode):
        return True  # not a file this tool made
    if time.time() - info.st_mtime < STALE_AFTER:
        return False
    fd = os.open(name, _OPEN, dir_fd=dir_fd)
    try:
        if not lock_exclusive(fd):
            return False  # its writer is alive (or locks cannot be taken here)
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
            return False
        os.unlink(name, dir_fd=dir_fd)
        return True
    finally:
        os.close(fd)
