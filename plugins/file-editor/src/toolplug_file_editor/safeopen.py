"""Opening a checked path without following links: the walk that keeps the check true.

:func:`paths.resolve` works out where a path leads (symlinks resolved) and whether the
editor may go there. Between that check and the open, another process may swap a
folder on the way for a symlink, and a plain ``open(path)`` would follow it out of the
workspace. So the editor never opens by path: it opens the workspace (or ``/`` for an
allowed outside path) and walks down the resolved path one name at a time, each
``os.open(name, O_NOFOLLOW, dir_fd=parent)``. A name that has become a symlink since the
check is refused, and every read and write then goes through the descriptors opened.

A plain relative path (``src/app.py``: no ``..``, ``.``, ``~`` or leading ``/``) is not
resolved first: :func:`reach_plain` walks it from the workspace the same way, and when
no name on the way is a link it has reached exactly what resolving would have given.
Any link, missing folder or other surprise sends the call back to resolve-then-walk,
whose answer (or error) is the one given. On each call the workspace's own path is
checked to be still real (no link on the way to it), as resolving would check it.

Files are opened with ``O_NONBLOCK`` and checked with ``fstat`` on the opened
descriptor, so a FIFO or device swapped in after the check is refused instead of
blocking the call; a name that is not a regular file is not even opened.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from toolplug_file_editor.errors import EditorError

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
# A folder the process may enter but not list (mode --x) opens with O_PATH where it exists.
_DIRECTORY_PATH = getattr(os, "O_PATH", 0) | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | _CLOEXEC
#: Errors an O_NOFOLLOW open gives for a symlink (ELOOP on Linux, EMLINK on FreeBSD).
_LINK_ERRORS = {errno.ELOOP, errno.EMLINK, errno.ENOTDIR}


def changed(raw: str, what: str) -> EditorError:
    """The refusal for a path that changed under the editor between check and open."""
    return EditorError(
        f"{raw}: {what} changed while the editor was opening it (it is now a symbolic link "
        "or not a folder), so nothing was read or written. Try again once it is settled."
    )


def open_directory(name: str, dir_fd: int | None, raw: str) -> int:
    """Open the folder ``name`` (in ``dir_fd``) without following a link."""
    try:
        return os.open(name, _DIRECTORY, dir_fd=dir_fd)
    except PermissionError:
        if not _DIRECTORY_PATH & getattr(os, "O_PATH", 0):
            raise
        return os.open(name, _DIRECTORY_PATH, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in _LINK_ERRORS:
            raise changed(raw, name) from None
        raise


class Place:
    """A checked path reached by the walk: its folder, open, and its name in it.

    Use it as a context manager: the folder's descriptor is closed on exit. ``made``
    lists the folders the walk created (deepest first), for ``create``.
    """

    def __init__(
        self, path: Path | str, raw: str, dir_fd: int, name: str, info: os.stat_result | None = None
    ) -> None:
        self._path = path
        self.raw = raw
        self.dir_fd = dir_fd
        self.name = name
        self.made: tuple[Path, ...] = ()
        # The entry's lstat when the walk took one: the next lstat() returns it, once.
        self._taken = info

    @property
    def path(self) -> Path:
        """The checked real path."""
        if not isinstance(self._path, Path):
            self._path = Path(self._path)
        return self._path

    @property
    def text(self) -> str:
        """The checked real path, as a string."""
        return str(self._path)

    def __enter__(self) -> Place:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the folder's descriptor."""
        if self.dir_fd >= 0:
            os.close(self.dir_fd)
            self.dir_fd = -1

    def lstat(self) -> os.stat_result | None:
        """The entry's own stat (``None`` when it does not exist); a symlink is refused.

        The first call after :func:`reach_plain` returns the stat that walk took.
        """
        taken, self._taken = self._taken, None
        if taken is not None:
            return taken
        try:
            info = os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(info.st_mode):
            # resolve() followed every link, so a link here is a loop or was just swapped in.
            raise EditorError(
                f"{self.raw} is a symbolic link that cannot be followed (a loop, or a link "
                "that appeared after the path was checked). Nothing was read or written."
            )
        return info

    def open_file(self, info: os.stat_result) -> tuple[int, os.stat_result]:
        """Open the regular file whose ``lstat`` is ``info``: its descriptor and ``fstat``.

        The check is repeated on the opened descriptor, so what is read is what was checked.
        """
        self.require_regular(info)
        try:
            fd = os.open(self.name, _FILE, dir_fd=self.dir_fd)
        except OSError as exc:
            if exc.errno in _LINK_ERRORS:
                raise changed(self.raw, self.name) from None
            raise
        try:
            opened = os.fstat(fd)
            self.require_regular(opened)
        except BaseException:
            os.close(fd)
            raise
        return fd, opened

    def open_directory(self) -> int:
        """Open the entry as a folder, without following a link."""
        return open_directory(self.name, self.dir_fd, self.raw)

    def require_regular(self, info: os.stat_result) -> None:
        """Refuse anything but a regular file (before it is opened, and after)."""
        if stat.S_ISDIR(info.st_mode):
            raise EditorError(f"{self.raw} is a directory; this command works on files.")
        if not stat.S_ISREG(info.st_mode):
            raise EditorError(
                f"{self.raw} is not a regular file (a device, pipe or socket); the editor "
                "works on regular files only, and does not open anything else."
            )

    def may_write(self, info: os.stat_result) -> bool:
        """Whether the file may be written: some write bit is set (honoured even by root,
        whom ``access`` always allows) and ``access`` grants this process write."""
        if not info.st_mode & 0o222:
            return False
        effective = os.access in os.supports_effective_ids
        nofollow = os.access in os.supports_follow_symlinks
        return os.access(
            self.name,
            os.W_OK,
            dir_fd=self.dir_fd,
            effective_ids=effective,
            follow_symlinks=not nofollow,
        )

    def names(self) -> list[str]:
        """The names in the entry's folder (for near-miss suggestions)."""
        try:
            return os.listdir(self.dir_fd)
        except OSError:
            return []


def reach(real: Path, raw: str, workspace: Path, *, make_parents: bool = False) -> Place:
    """Walk to the folder holding ``real`` and return it as a :class:`Place`.

    ``real`` comes from :func:`paths.resolve`, so it holds no links: the walk refuses any
    it meets. A missing folder is an error naming it, unless ``make_parents`` (then it
    is made, and listed in ``Place.made``).
    """
    try:
        parts = real.relative_to(workspace).parts
        base, steps = workspace, parts[:-1]
    except ValueError:
        parts = ()
    if not parts:  # the workspace itself, or an allowed path outside it
        base, steps = Path(real.anchor or "/"), real.parts[1:-1]
    name = real.name or "."
    fd = open_directory(str(base), None, raw)
    made: list[Path] = []
    folder = base
    try:
        for step in steps:
            folder = folder / step
            child = _enter(fd, step, folder, raw, made if make_parents else None)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        for created in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(created)
        raise
    place = Place(real, raw, fd, name)
    place.made = tuple(reversed(made))
    return place


class Root:
    """The workspace as the walks start from it: its real path.

    ``path`` is real when the editor starts. Each walk opens it anew (so a workspace
    replaced by a new folder is used as it is now); :meth:`open` gives the folder only
    when the path still leads to it without links.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.text = str(path)
        #: What a relative path is joined to, as ``os.path.join`` would join it.
        self.prefix = self.text.rstrip("/") + "/"

    def open(self) -> int | None:
        """The workspace folder, opened; ``None`` when its path no longer leads to it
        without links (the caller then resolves, as for any other path)."""
        try:
            fd = os.open(self.text, _DIRECTORY)
        except OSError:
            return None
        try:
            if _real_path_of(fd, self.text) != self.text:
                os.close(fd)
                return None
        except BaseException:
            os.close(fd)
            raise
        return fd


def _real_path_of(fd: int, path: str) -> str:
    """The real path of the folder ``fd`` opened at ``path``: the kernel's own name for
    the descriptor on Linux (one ``readlink``, a quarter of the cost of resolving the
    path name by name), else ``path`` resolved again. A link anywhere on the way (say a
    folder above the workspace renamed and a link left in its place) makes it differ."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # no /proc
        return os.path.realpath(path)


def reach_plain(
    root: Root, names: list[str], raw: str, relative: str | None = None
) -> Place | None:
    """:func:`reach` for a plain relative path (:func:`paths.plain_names`), not resolved
    first; ``None`` when the walk meets anything but folders and a last name that is not a
    link (a link, a missing folder, an error), and the caller resolves and walks instead.
    ``relative`` is the path under the root when ``raw`` (shown in messages) is not it.
    """
    fd = root.open()
    if fd is None:
        return None
    info: os.stat_result | None = None
    try:
        for name in names[:-1]:
            child = os.open(name, _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        try:
            info = os.stat(names[-1], dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            pass  # a missing file: reported as resolving would report it
    except OSError:
        os.close(fd)
        return None
    if info is not None and stat.S_ISLNK(info.st_mode):
        os.close(fd)
        return None
    return Place(root.prefix + (raw if relative is None else relative), raw, fd, names[-1], info)


def _enter(fd: int, step: str, folder: Path, raw: str, made: list[Path] | None) -> int:
    """Open ``step`` inside ``fd`` (making it when ``made`` is a list). ``fd`` stays
    open: the caller closes it, once."""
    try:
        return open_directory(step, fd, raw)
    except FileNotFoundError:
        if made is None:
            raise EditorError(
                f"{raw} does not exist: its folder {folder} does not exist. "
                "To make a new file, use the `create` command."
            ) from None
    try:
        os.mkdir(step, 0o777, dir_fd=fd)
        made.append(folder)
    except FileExistsError:
        pass
    return open_directory(step, fd, raw)


def read_all(fd: int, limit: int) -> bytes:
    """Read a file from its start to its end, or to ``limit + 1`` bytes at most."""
    chunks: list[bytes] = []
    size = 0
    os.lseek(fd, 0, os.SEEK_SET)
    hint = min(max(os.fstat(fd).st_size + 1, 1 << 12), limit + 1)
    while size <= limit:
        try:
            chunk = os.read(fd, min(hint, limit + 1 - size))
        except BlockingIOError:
            raise EditorError(
                "The file cannot be read without waiting (it behaves like a pipe); the "
                "editor does not wait on files."
            ) from None
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        hint = 1 << 20
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


@contextlib.contextmanager
def closing(fd: int) -> Iterator[int]:
    """Close a descriptor when the block ends."""
    try:
        yield fd
    finally:
        os.close(fd)
