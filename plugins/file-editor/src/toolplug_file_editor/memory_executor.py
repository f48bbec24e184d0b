"""The memory tool's executor: the editor's commands, and delete and rename, confined to
one folder the model knows as ``/memories``.

It is the file editor (:class:`~toolplug_file_editor.executor.FileEditorExecutor`), with
the folder as its workspace and three rules on paths: a path is ``/memories`` or starts
with ``/memories/``; it has no ``.``, ``..`` or empty name; and it goes through no
symbolic link (the editor follows links that stay inside its workspace: this tool
follows none). Every walk is the editor's (``O_NOFOLLOW``, one name at a time), so a
link swapped in after the check is refused too. Names shown to the model are
``/memories/...``, never the folder's real path.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from toolplug import Observation, TextContent, printable

from toolplug_file_editor import paths
from toolplug_file_editor.errors import EditorError
from toolplug_file_editor.executor import FileEditorExecutor, Settings
from toolplug_file_editor.history import History
from toolplug_file_editor.memory_types import MEMORY_ROOT, MemoryAction
from toolplug_file_editor.safeopen import Place, reach, reach_plain
from toolplug_file_editor.session import Shared
from toolplug_file_editor.types import FileEditorAction, FileEditorObservation

_EDITOR_COMMANDS = {"view", "create", "str_replace", "insert"}
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def local_path(raw: str) -> str:
    """The path under the memory folder for the model's ``raw`` (``"."`` for the folder
    itself); a path outside ``/memories`` is an :class:`EditorError` saying so."""
    paths.check(raw)
    if raw == MEMORY_ROOT or raw == MEMORY_ROOT + "/":
        return "."
    if not raw.startswith(MEMORY_ROOT + "/"):
        raise EditorError(
            f"{raw} is not a memory path: every path starts with {MEMORY_ROOT}/ "
            f"(for example {MEMORY_ROOT}/notes.md)."
        )
    names = raw[len(MEMORY_ROOT) + 1 :].rstrip("/").split("/")
    if any(name in ("", ".", "..") for name in names):
        raise EditorError(
            f"{raw} has an empty, '.' or '..' name in it; write the path under "
            f"{MEMORY_ROOT} plainly, without them."
        )
    return "/".join(names)


class MemoryExecutor(FileEditorExecutor):
    """Runs memory commands in ``folder`` (created on first use)."""

    offers_undo = False  # the memory tool has no undo command

    def __init__(self, folder: Path, settings: Settings) -> None:
        self.folder = Path(os.path.realpath(folder))
        super().__init__(self.folder, settings, Shared(History(depth=1)))

    def __call__(self, action: MemoryAction) -> Observation:  # type: ignore[override]
        """Run one command; a refusal or failure comes back as an error observation."""
        try:
            os.makedirs(self.folder, exist_ok=True)
            if action.command in _EDITOR_COMMANDS:
                observation = super().__call__(_editor_action(action))
            else:
                with self._lock:
                    observation = self._own_command(action)
        except EditorError as exc:
            observation = Observation.error(printable(str(exc)))
        except OSError as exc:
            observation = Observation.error(
                printable(f"{exc.strerror or exc}. Nothing was changed.")
            )
        if observation.is_error:  # the folder's real path is none of the model's business
            observation.content = [
                TextContent(text=block.text.replace(str(self.folder), MEMORY_ROOT))
                if isinstance(block, TextContent)
                else block
                for block in observation.content
            ]
        return observation

    def _own_command(self, action: MemoryAction) -> Observation:
        if action.command == "delete":
            return self._delete(_required(action.path, "path", "delete"))
        return self._rename(
            _required(action.old_path, "old_path", "rename"),
            _required(action.new_path, "new_path", "rename"),
        )

    # -- the editor's paths, confined ------------------------------------------------

    def _resolve(self, raw: str) -> Path:
        local = local_path(raw)
        joined = os.path.normpath(os.path.join(self.folder, local))
        if os.path.realpath(joined) != joined:
            raise EditorError(
                f"{raw} goes through a symbolic link; the memory tool follows no links, "
                f"so that it stays inside {MEMORY_ROOT}."
            )
        return Path(joined)

    def _reach(self, raw: str) -> Place:
        local = local_path(raw)
        names = paths.plain_names(local)
        place = reach_plain(self._root, names, raw, local) if names is not None else None
        return place if place is not None else reach(self._resolve(raw), raw, self.workspace)

    def _shown(self, real: Path) -> str:
        shown = paths.display(real, self.workspace)
        return MEMORY_ROOT if shown == "." else f"{MEMORY_ROOT}/{shown}"

    # -- delete and rename -----------------------------------------------------------

    def _delete(self, raw: str) -> Observation:
        if local_path(raw) == ".":
            raise EditorError(
                f"{MEMORY_ROOT} itself cannot be deleted; delete the files and folders in it."
            )
        with self._reach(raw) as place:
            info = self._existing(place)
            if stat.S_ISDIR(info.st_mode):
                count = _remove_tree(place.dir_fd, place.name, raw)
                what = f"Deleted the folder {raw} and the {count} file(s) in it."
            else:
                os.unlink(place.name, dir_fd=place.dir_fd)
                what = f"Deleted {raw}."
        return _done("delete", raw, what)

    def _rename(self, old: str, new: str) -> Observation:
        source, target = local_path(old), local_path(new)
        if "." in (source, target):
            raise EditorError(f"{MEMORY_ROOT} itself cannot be renamed or replaced.")
        if target == source or target.startswith(source + "/"):
            raise EditorError(f"{new} is {old} or inside it; choose a path elsewhere.")
        with self._reach(old) as place:
            info = self._existing(place)
            with reach(self._resolve(new), new, self.workspace, make_parents=True) as to:
                if to.lstat() is not None:
                    raise EditorError(
                        f"{new} already exists; rename never overwrites. Delete it first, "
                        "or choose another name."
                    )
                _move(place, to, info)
        return _done("rename", new, f"Renamed {old} to {new}.")


def _editor_action(action: MemoryAction) -> FileEditorAction:
    """A memory command the editor carries out, as the editor's action."""
    path = _required(action.path, "path", action.command)
    fields: dict[str, Any] = {
        "command": action.command,
        "path": path,
        "view_range": action.view_range,
    }
    if action.command == "create":
        fields["file_text"] = action.file_text
    elif action.command == "str_replace":
        fields |= {"old_str": action.old_str, "new_str": action.new_str}
    elif action.command == "insert":
        fields |= {"insert_line": action.insert_line, "insert_text": action.insert_text}
        fields["new_str"] = action.new_str
    return FileEditorAction.model_validate(fields)


def _required(value: str | None, field: str, command: str) -> str:
    if value is None:
        raise EditorError(f"The `{command}` command needs `{field}` (a path under {MEMORY_ROOT}).")
    return value


def _done(command: str, path: str, text: str) -> FileEditorObservation:
    return FileEditorObservation.from_text(text, command=command, path=printable(path))


def _move(source: Place, target: Place, info: os.stat_result) -> None:
    """Move ``source`` to ``target`` (which did not exist). A file is linked, then
    unlinked: if something made ``target`` meanwhile, the link fails instead of
    overwriting it. A folder is renamed (a folder made there meanwhile is replaced only
    if it is empty)."""
    old, new, fds = source.name, target.name, (source.dir_fd, target.dir_fd)
    if stat.S_ISDIR(info.st_mode):
        os.rename(old, new, src_dir_fd=fds[0], dst_dir_fd=fds[1])
        return
    try:
        os.link(old, new, src_dir_fd=fds[0], dst_dir_fd=fds[1], follow_symlinks=False)
    except FileExistsError:
        raise EditorError(f"{target.raw} already exists; rename never overwrites.") from None
    os.unlink(source.name, dir_fd=source.dir_fd)


def _remove_tree(dir_fd: int, name: str, raw: str) -> int:
    """Remove the folder ``name`` of ``dir_fd`` and everything in it, following no link
    (a link inside is removed, not followed); the number of files removed."""
    try:
        fd = os.open(name, _DIRECTORY, dir_fd=dir_fd)
    except OSError as exc:
        raise EditorError(f"{raw} changed while it was being deleted: {exc.strerror}.") from None
    count = 0
    try:
        with os.scandir(fd) as entries:
            found = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
        for entry, is_dir in found:
            if is_dir:
                count += _remove_tree(fd, entry, f"{raw}/{entry}")
            else:
                os.unlink(entry, dir_fd=fd)
                count += 1
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)
    return count
