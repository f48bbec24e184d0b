"""The executor: carries out each command on real files, safely."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from toolplug import ImageContent, Observation, TextContent, ToolExecutor, printable, safe_text

from toolplug_file_editor import editing, paths, render, textfile, viewing
from toolplug_file_editor.atomic import write_atomic
from toolplug_file_editor.errors import EditorError
from toolplug_file_editor.history import History, Step, fingerprint
from toolplug_file_editor.safeopen import Place, Root, closing, reach, reach_plain, read_all
from toolplug_file_editor.session import Shared
from toolplug_file_editor.stale import Sweeper
from toolplug_file_editor.types import FileEditorAction, FileEditorObservation

# The optional fields each command reads; any other one sent is reported as ignored.
_FIELDS_USED = {
    "view": {"view_range"},
    "create": {"file_text"},
    "str_replace": {"old_str", "new_str"},
    "insert": {"insert_line", "new_str", "insert_text"},
    "undo_edit": set(),
}
_OPTIONAL_FIELDS = ("view_range", "file_text", "old_str", "new_str", "insert_line", "insert_text")
_UNUSED = {
    command: tuple(name for name in _OPTIONAL_FIELDS if name not in used)
    for command, used in _FIELDS_USED.items()
}


@dataclass(frozen=True)
class Settings:
    """The limits and permissions of one editor (the tool's params)."""

    max_file_size: int
    allow_outside_workspace: bool
    max_view_chars: int
    undo_depth: int
    max_image_size: int

    @property
    def line_limit(self) -> int:
        """The most characters of one line that `view` shows."""
        return max(100, self.max_view_chars // 8)


@dataclass
class _Loaded:
    """A file read for editing: its bytes, their text and format, and its stat."""

    data: bytes
    text: str
    fmt: textfile.TextFormat
    info: os.stat_result


class FileEditorExecutor(ToolExecutor[FileEditorAction, Observation]):
    """Runs editor commands in one workspace and keeps the undo history of its edits.

    Edits are serialised by a lock, so an editor shared by threads never interleaves
    two edits of one file; `view` changes nothing and takes no lock. No call opens a
    pipe or a device, so none waits on one while holding the lock.
    """

    #: Whether edit results point the model at ``undo_edit`` (a tool without it says no).
    offers_undo = True

    def __init__(self, workspace: Path, settings: Settings, shared: Shared | None = None) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self._root = Root(self.workspace)
        self.settings = settings
        # With ``shared`` (the session's, see session.py) apply_patch edits the same history.
        shared = shared or Shared(History(depth=settings.undo_depth))
        self.history = shared.history
        self._lock = shared.lock
        self._sweeper = Sweeper()

    def __call__(self, action: FileEditorAction) -> Observation:
        """Run one command; a refusal or failure comes back as an error observation."""
        notes = _ignored_fields(action)
        try:
            if action.command == "view":
                observation = self._run(action)
            else:
                with self._lock:
                    observation = self._run(action)
        except EditorError as exc:
            observation = Observation.error(printable(str(exc)))
        except OSError as exc:
            observation = Observation.error(
                printable(f"{action.path}: {exc.strerror or exc}. Nothing was changed.")
            )
        if notes:
            note = TextContent(text="Note: " + " ".join(notes))
            observation.content.append(note)
        return observation

    def close(self) -> None:
        """Forget the undo history."""
        self.history.clear()

    def _run(self, action: FileEditorAction) -> Observation:
        command = action.command
        if command == "create":
            return self._create(action, self._resolve(action.path))
        # Every other command reaches the path's folder without following links, and
        # reads and writes only through the descriptors it opened (see safeopen.py).
        with self._reach(action.path) as place:
            if command == "view":
                return self._view(action, place)
            if command == "str_replace":
                return self._str_replace(action, place)
            if command == "insert":
                return self._insert(action, place)
            return self._undo(action, place)

    def _resolve(self, raw: str) -> Path:
        return paths.resolve(
            raw, self.workspace, allow_outside=self.settings.allow_outside_workspace
        )

    def _reach(self, raw: str) -> Place:
        """The path's place: walked straight to when the path is plain, else resolved
        first (see safeopen.py); the answer is the same either way."""
        paths.check(raw)
        names = paths.plain_names(raw)
        place = reach_plain(self._root, names, raw) if names is not None else None
        return place if place is not None else reach(self._resolve(raw), raw, self.workspace)

    def _shown(self, real: Path) -> str:
        return paths.display(real, self.workspace)

    def _result(
        self, action: FileEditorAction, real: Path | str, text: str, diff: str | None = None
    ) -> FileEditorObservation:
        # TextContent's validator makes its text printable: not done twice here.
        return FileEditorObservation(
            content=[TextContent(text=text)],
            command=action.command,
            path=printable(str(real)),
            diff=None if diff is None else printable(diff),
        )

    # -- view ------------------------------------------------------------------------

    def _view(self, action: FileEditorAction, place: Place) -> Observation:
        real = place.text
        info = self._existing(place)
        if stat.S_ISDIR(info.st_mode):
            if action.view_range is not None:
                raise EditorError(
                    f"{action.path} is a directory; `view_range` applies to files only."
                )
            with closing(place.open_directory()) as folder:
                listing = viewing.list_directory(
                    folder, printable(action.path), self.settings.max_view_chars
                )
            return self._result(action, real, listing)
        fd, info = place.open_file(info)
        try:  # rather than closing(): the generator costs as much as a syscall here
            data = _read_small(fd, info.st_size)
            if data is None:
                head = os.pread(fd, textfile.SNIFF_BYTES, 0)
            else:
                head = data[: textfile.SNIFF_BYTES]
            mime = textfile.image_type(head)
            if mime is not None:
                return self._view_image(action, real, fd, mime, info.st_size)
            if textfile.is_binary(head):
                raise EditorError(
                    f"{action.path} is a binary file (it contains NUL bytes); the editor "
                    "views and edits text files and png, jpeg, gif and webp images only."
                )
            first, last = self._view_range(action.view_range)
            found = viewing.read_lines(
                fd,
                textfile.guess_format(head),
                first,
                last,
                line_limit=self.settings.line_limit,
                budget=self.settings.max_view_chars,
                data=data,
            )
            text = self._render_lines(action, fd, info, first, last, found)
        finally:
            os.close(fd)
        return self._result(action, real, text)

    def _view_image(
        self, action: FileEditorAction, real: str, fd: int, mime: str, size: int
    ) -> Observation:
        if action.view_range is not None:
            raise EditorError(f"{action.path} is an image; `view_range` applies to text files.")
        limit = self.settings.max_image_size
        data = read_all(fd, limit)
        if size > limit or len(data) > limit:
            raise EditorError(
                f"{action.path} is an image of {max(size, len(data))} bytes, over the limit "
                f"of {limit} bytes (max_image_size) for showing images."
            )
        image = ImageContent.from_bytes(data, mime)
        caption = TextContent(text=printable(f"{action.path}: {mime} image, {len(data)} bytes."))
        return FileEditorObservation(
            content=[caption, image], command="view", path=printable(str(real))
        )

    @staticmethod
    def _view_range(view_range: list[int] | None) -> tuple[int, int | None]:
        if view_range is None:
            return 1, None
        first, last = view_range
        if first < 1:
            raise EditorError(
                f"`view_range` starts at {first}, but lines are numbered from 1. "
                "Send [start, end] with start >= 1."
            )
        if last == -1:
            return first, None
        if last < first:
            raise EditorError(
                f"`view_range` [{first}, {last}] ends before it starts. Send [start, end] "
                "with end >= start, or end -1 for the rest of the file."
            )
        return first, last

    def _render_lines(
        self,
        action: FileEditorAction,
        fd: int,
        info: os.stat_result,
        first: int,
        last: int | None,
        found: viewing.Lines,
    ) -> str:
        texts = found.texts
        if not texts:
            if found.seen == 0:
                return f"{action.path} is empty."
            raise EditorError(
                f"`view_range` starts at line {first}, but {action.path} has only "
                f"{found.seen} line(s). Use a start between 1 and {found.seen}."
            )
        limit = self.settings.line_limit
        any_cut = False
        if found.lengths is not None and found.lengths != [len(text) for text in texts]:
            any_cut = True
            texts = [
                f"{text} [... {length - len(text)} more characters]" if length > len(text) else text
                for text, length in zip(texts, found.lengths)
            ]
        body = render.numbered(texts, found.first)
        shown_last = found.first + len(texts) - 1
        notes = []
        if found.fmt.bom or found.fmt.encoding != "utf-8":
            notes.append(f"The file is decoded as {found.fmt.label}.")
        if any_cut:
            notes.append(
                f"Lines longer than {limit} characters are cut; the editor shows at most "
                f"{limit} characters of a line. To read the rest of one, use a shell tool "
                "(for example `cut -c`)."
            )
        if not found.at_end and (last is None or shown_last < last):
            step = max(shown_last - first + 1, 1)
            total = self._total_lines(fd, info, found.fmt)
            of = f" of {total}" if total is not None else ""
            notes.append(
                f"The output was cut after line {shown_last}{of} to stay within "
                f"{self.settings.max_view_chars} characters. To see more, view with "
                f"`view_range` [{shown_last + 1}, {shown_last + step}]."
            )
        elif last is not None and found.at_end and found.seen < last:
            notes.append(f"The file ends at line {found.seen}.")
        return body + "".join(f"\n[{note}]" for note in notes) if notes else body

    def _total_lines(self, fd: int, info: os.stat_result, fmt: textfile.TextFormat) -> int | None:
        """The file's line count when it is cheap enough to count."""
        if not fmt.ascii_compatible or info.st_size > self.settings.max_file_size:
            return None
        return viewing.count_lines(fd)

    # -- create ----------------------------------------------------------------------

    def _create(self, action: FileEditorAction, real: Path) -> Observation:
        if action.file_text is None:
            raise EditorError(
                "The `create` command needs `file_text`: the whole content of the new file "
                '(send "" for an empty file).'
            )
        data = textfile.TextFormat().encode(action.file_text)
        self._check_size(action.path, len(data), "The new file would be")
        with reach(real, action.path, self.workspace, make_parents=True) as place:
            made = place.made
            try:
                info = place.lstat()
                if info is not None and stat.S_ISDIR(info.st_mode):
                    raise EditorError(f"{action.path} is a directory; `create` makes files.")
                if info is not None:
                    raise EditorError(
                        f"{action.path} already exists, and `create` never overwrites a file. "
                        "To change it, `view` it and then use `str_replace` or `insert`."
                    )
                self._sweeper.sweep(place.dir_fd)
                write_atomic(place.dir_fd, place.name, data, path=real, mode=None, exclusive=True)
                self._sweeper.wrote(place.dir_fd)
            except EditorError:
                _remove_empty(made)
                raise
        step = Step(textfile.TextFormat(), fingerprint(data), created=True, made_dirs=made)
        self.history.push(real, step)
        lines = textfile.line_count(action.file_text)
        message = f"Created {action.path} ({lines} lines, {len(data)} bytes)."
        if made:
            folders = ", ".join(self._shown(folder) for folder in reversed(made))
            message += f" Made the missing folder(s) {folders}."
        return self._result(action, real, message)

    # -- str_replace and insert ------------------------------------------------------

    def _str_replace(self, action: FileEditorAction, place: Place) -> Observation:
        if not action.old_str:
            raise EditorError(
                "The `str_replace` command needs `old_str`: the exact text to replace, "
                "copied from the file with its whitespace."
            )
        loaded = self._load(place)
        splice = editing.plan_replace(
            loaded.text,
            action.old_str,
            action.new_str or "",
            action.path,
            textfile.newline_of(loaded.text),
        )
        return self._commit(action, place, loaded, splice)

    def _insert(self, action: FileEditorAction, place: Place) -> Observation:
        text = action.new_str if action.new_str is not None else action.insert_text
        both = action.new_str is not None and action.insert_text is not None
        if both and action.new_str != action.insert_text:
            raise EditorError(
                "`new_str` and `insert_text` are both given and differ; send the lines "
                "to insert in one of them."
            )
        if action.insert_line is None:
            raise EditorError(
                "The `insert` command needs `insert_line`: the line after which to insert "
                "(0 inserts at the top)."
            )
        if not text:
            raise EditorError(
                "The `insert` command needs `new_str` (or `insert_text`): the lines to insert."
            )
        loaded = self._load(place)
        newline = textfile.newline_of(loaded.text)
        splice = editing.plan_insert(loaded.text, action.insert_line, text, newline)
        return self._commit(action, place, loaded, splice)

    def _commit(
        self, action: FileEditorAction, place: Place, loaded: _Loaded, splice: editing.Splice
    ) -> Observation:
        pieces = textfile.splice_bytes(
            loaded.data, loaded.text, loaded.fmt, splice.start, splice.end, splice.new
        )
        size = sum(len(piece) for piece in pieces)
        self._check_size(action.path, size, "After this edit the file would be")
        notes = self._write(place, pieces, loaded.info)
        removed = loaded.text[splice.start : splice.end]
        step = Step(loaded.fmt, fingerprint(pieces), splice.start, len(splice.new), removed)
        self.history.push(place.path, step)
        observation = self._show_change(action, place.path, loaded.text, splice, "Edited")
        observation.content.extend(TextContent(text=note) for note in notes)
        return observation

    def _show_change(
        self,
        action: FileEditorAction,
        real: Path,
        old_text: str,
        splice: editing.Splice,
        verb: str,
    ) -> Observation:
        limit = self.settings.max_view_chars // 2
        change = render.Change(old_text, splice, editing.line_of(old_text, splice.start))
        snippet = change.snippet(limit)
        diff = change.diff(self._shown(real), limit)
        message = (
            f"{verb} {action.path}. The lines around the change, numbered as `view` shows "
            f"them:\n{snippet}\n\nThe change:\n{safe_text(diff)}"
        )
        if action.command != "undo_edit" and self.offers_undo:
            message += "\n\nCheck it is what you meant; `undo_edit` reverts it."
        return self._result(action, real, message, diff=diff)

    # -- undo_edit -------------------------------------------------------------------

    def _undo(self, action: FileEditorAction, place: Place) -> Observation:
        real = place.path
        step = self.history.last(real)
        if step is None:
            raise EditorError(
                f"There is no edit of {action.path} to undo. The editor keeps the last "
                f"{self.settings.undo_depth} edits of each file it changed in this session."
            )
        info = place.lstat()
        if info is None or not stat.S_ISREG(info.st_mode):
            self.history.drop_last(real)
            raise EditorError(f"{action.path} no longer exists, so its last edit cannot be undone.")
        fd, info = place.open_file(info)
        with closing(fd):
            data = read_all(fd, max(info.st_size, self.settings.max_file_size))
        if fingerprint(data) != step.after:
            raise EditorError(
                f"{action.path} was changed by something other than this editor since its "
                "last edit, so undo is refused: it would throw those changes away. View the "
                "file and edit it back with `str_replace`."
            )
        if step.created:
            os.unlink(place.name, dir_fd=place.dir_fd)
            _remove_empty(step.made_dirs)
            self.history.drop_last(real)
            return self._result(
                action, real, f"Undid the creation of {action.path}: the file was removed."
            )
        self._require_writable(place, info)
        text = data[len(step.fmt.bom) :].decode(step.fmt.encoding)
        revert = editing.Splice(step.start, step.start + step.inserted, step.removed)
        pieces = textfile.splice_bytes(data, text, step.fmt, revert.start, revert.end, revert.new)
        notes = self._write(place, pieces, info)
        self.history.drop_last(real)
        left = self.history.steps_of(real)
        observation = self._show_change(action, real, text, revert, "Undid the last edit of")
        observation.content.extend(TextContent(text=note) for note in notes)
        observation.content.append(
            TextContent(text=f"{left} earlier edit(s) of this file can still be undone.")
        )
        return observation

    # -- shared ----------------------------------------------------------------------

    def _existing(self, place: Place) -> os.stat_result:
        """The entry's stat; a missing one is an error with near names from its folder."""
        info = place.lstat()
        if info is None:
            raise EditorError(
                paths.missing_path_message(
                    place.raw, place.path, self.workspace, place.names(), self._shown
                )
            )
        return info

    def _load(self, place: Place) -> _Loaded:
        raw = place.raw
        fd, info = place.open_file(self._existing(place))
        with closing(fd):
            self._check_size(raw, info.st_size, "It is")
            self._require_writable(place, info)
            data = read_all(fd, self.settings.max_file_size)
        self._check_size(raw, len(data), "It is")
        if textfile.image_type(data[:16]) is not None:
            raise EditorError(f"{raw} is an image; the editor edits text files only.")
        try:
            text, fmt = textfile.decode(data)
        except EditorError as exc:
            raise EditorError(f"{raw}: {exc}") from None
        return _Loaded(data, text, fmt, info)

    @staticmethod
    def _require_writable(place: Place, info: os.stat_result) -> None:
        """Refuse to edit a file this process may not write (the rename would not ask)."""
        if place.may_write(info):
            return
        mode = stat.S_IMODE(info.st_mode)
        raise EditorError(
            f"{place.raw} is read-only (mode {mode:04o}, owner uid {info.st_uid}): this "
            "process may not write to it, so the edit was refused and the file was not "
            "changed. If it should be edited, change its permissions first."
        )

    def _check_size(self, raw: str, size: int, what: str) -> None:
        limit = self.settings.max_file_size
        if size > limit:
            raise EditorError(
                f"{raw} is too large to edit. {what} {_size(size)}, over the editor's limit "
                f"of {_size(limit)} (max_file_size). View parts of it with `view_range`."
            )

    def _write(
        self, place: Place, data: list[bytes | memoryview], info: os.stat_result
    ) -> list[str]:
        """Write ``data`` over the place's file, keeping its mode, owner and group.

        Returns notes for the result: one when the owner could not be kept.
        """
        self._sweeper.sweep(place.dir_fd)
        kept = write_atomic(
            place.dir_fd,
            place.name,
            data,
            path=place.path,
            mode=stat.S_IMODE(info.st_mode),
            owner=(info.st_uid, info.st_gid),
        )
        self._sweeper.wrote(place.dir_fd)
        if kept:
            return []
        return [
            printable(
                f"Note: {place.raw} belonged to uid {info.st_uid}; this process may not give "
                f"files away, so its new owner is uid {os.geteuid()} (its group and mode "
                "were kept where allowed)."
            )
        ]


def _ignored_fields(action: FileEditorAction) -> list[str]:
    return [
        f"`{name}` was ignored: the `{action.command}` command does not use it."
        for name in _UNUSED[action.command]
        if getattr(action, name) is not None
    ]


def _read_small(fd: int, size: int) -> bytes | None:
    """The whole file when it is small enough to view from memory, else ``None``.

    One read of one byte more than the size ``fstat`` gave, and a second read that must
    find the end: the file may have grown, and only a read can tell where it ends.
    """
    if size > viewing.SMALL_FILE:
        return None
    data = os.pread(fd, size + 1, 0)
    if len(data) > size or os.pread(fd, 1, len(data)):
        return None
    return data


def _remove_empty(folders: tuple[Path, ...]) -> None:
    """Remove the given folders, deepest first, as long as they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB ({size} bytes)"
    return f"{size} bytes"
