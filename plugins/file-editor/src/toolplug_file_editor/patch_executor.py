"""The ``apply_patch`` executor: a whole patch, applied to real files all or nothing.

A call runs in two steps, under the session's edit lock (session.py):

1. Plan: every operation's path is checked (inside the workspace, links resolved, as
   ``file_editor`` checks them) and its folder opened without following links
   (safeopen.py); every file to change is read, decoded and patched in memory. Any
   problem (a hunk that does not match, a directory where a file is expected, a path
   outside the workspace) stops the call here, before anything is written.
2. Write: each file is written atomically (atomic.py: the old content or the new,
   never a mix), and removed files are unlinked, through the folders opened in step 1;
   a file that something else changed since step 1 counts as a failed write.
   If a write fails midway (a full disk, a file-size limit), the files already written
   are put back as they were, newest first: replaced files get their old bytes, new
   files are removed with the folders made for them, removed files are written again.

Each changed file keeps its encoding, byte order mark, line endings, mode and owner.
Undo goes through the session's history, which ``file_editor undo_edit`` reads: an
updated file's whole patch is one step, an added file's step removes it; a deleted or
moved file has no undo step (its old history is dropped).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from toolplug import Observation, TextContent, ToolExecutor, printable

from toolplug_file_editor import paths, textfile
from toolplug_file_editor.atomic import write_atomic
from toolplug_file_editor.errors import EditorError
from toolplug_file_editor.history import Step, fingerprint
from toolplug_file_editor.patch_apply import apply_hunks
from toolplug_file_editor.patch_parse import AddFile, DeleteFile, Operation, UpdateFile, parse
from toolplug_file_editor.patch_types import ApplyPatchAction, ApplyPatchObservation
from toolplug_file_editor.safeopen import Place, closing, reach, read_all
from toolplug_file_editor.session import Shared
from toolplug_file_editor.stale import Sweeper


@dataclass(frozen=True)
class PatchSettings:
    """The limits and permissions of one ``apply_patch`` (the tool's params)."""

    max_file_size: int
    allow_outside_workspace: bool


@dataclass
class _Target:
    """A file the patch writes or removes, as found in the plan step.

    ``place`` is its folder, opened (``None`` while the folder does not exist yet);
    ``before`` its bytes and ``info`` its stat when it exists; ``after`` the bytes to
    write (``None``: remove it); ``step`` the undo step to record once written.
    """

    raw: str
    real: Path
    place: Place | None
    before: bytes | None = None
    info: os.stat_result | None = None
    after: list[bytes | memoryview] | None = None
    step: Step | None = None
    made: tuple[Path, ...] = field(default=())
    #: The permission bits and (uid, gid) of a new file (``None``: the defaults).
    mode: int | None = None
    owner: tuple[int, int] | None = None


class ApplyPatchExecutor(ToolExecutor[ApplyPatchAction, Observation]):
    """Applies patches in one workspace, sharing the session's history and lock."""

    def __init__(self, workspace: Path, settings: PatchSettings, shared: Shared) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.settings = settings
        self.shared = shared
        self._sweeper = Sweeper()

    def __call__(self, action: ApplyPatchAction) -> Observation:
        """Apply one patch; a refusal or failure comes back as an error observation."""
        targets: list[_Target] = []
        try:
            operations = parse(action.input)
            with self.shared.lock:
                return self._apply(operations, targets)
        except EditorError as exc:
            return Observation.error(printable(str(exc)))
        except OSError as exc:
            return Observation.error(
                printable(f"{exc.strerror or exc}. The patch was not applied; nothing changed.")
            )
        finally:
            for target in targets:
                if target.place is not None:
                    target.place.close()

    # -- plan --------------------------------------------------------------------------

    def _apply(self, operations: list[Operation], targets: list[_Target]) -> Observation:
        result = ApplyPatchObservation(content=[])
        notes: list[str] = []
        seen: dict[Path, str] = {}
        for operation in operations:
            if isinstance(operation, AddFile):
                target = self._target(operation.path, seen, targets, new=True)
                self._plan_add(target, operation.text)
                result.added.append(self._shown(target.real))
            elif isinstance(operation, DeleteFile):
                target = self._target(operation.path, seen, targets, new=False)
                self._plan_delete(target)
                result.deleted.append(self._shown(target.real))
            else:
                notes += self._plan_update(operation, seen, targets, result)
        self._write_all(targets)
        self._record(targets)
        return self._report(result, notes)

    def _target(
        self, raw: str, seen: dict[Path, str], targets: list[_Target], *, new: bool
    ) -> _Target:
        """Check ``raw`` and open its folder; ``new`` allows the folder not to exist yet."""
        real = paths.resolve(
            raw, self.workspace, allow_outside=self.settings.allow_outside_workspace
        )
        if real in seen:
            raise EditorError(
                f"{raw} is named twice in the patch (also as {seen[real]}). Put all the "
                "changes to one file under one `*** Update File` section."
            )
        seen[real] = raw
        place = None
        existing = real.parent
        while not os.path.lexists(existing):  # a new file's folders are made when it is written
            existing = existing.parent
        if not os.path.isdir(existing):
            raise EditorError(f"{raw} cannot be a file: {self._shown(existing)} is not a folder.")
        if not new and existing != real.parent:
            raise self._missing(raw)
        if existing == real.parent:
            place = reach(real, raw, self.workspace)
        target = _Target(raw, real, place)
        targets.append(target)
        if place is not None:
            info = place.lstat()
            if info is not None and stat.S_ISDIR(info.st_mode):
                raise EditorError(f"{raw} is a directory; the patch can only change files.")
            target.info = info
        return target

    def _plan_add(self, target: _Target, text: str) -> None:
        if target.info is None:
            data = textfile.UTF8.encode(text)
            self._check_size(target.raw, len(data))
            target.after = [data]
            target.step = Step(textfile.UTF8, fingerprint(data), created=True)
            return
        # An existing file is replaced, as Codex does; it keeps its encoding and endings.
        old, fmt = self._read(target)
        if textfile.newline_of(old) == "\r\n":
            text = text.replace("\n", "\r\n")
        self._plan_text(target, old, fmt, text)

    def _plan_delete(self, target: _Target) -> None:
        if target.info is None:
            raise self._missing(target.raw)
        assert target.place is not None
        target.place.require_regular(target.info)
        fd, _ = target.place.open_file(target.info)
        with closing(fd):
            target.before = read_all(fd, max(target.info.st_size, self.settings.max_file_size))

    def _plan_update(
        self,
        operation: UpdateFile,
        seen: dict[Path, str],
        targets: list[_Target],
        result: ApplyPatchObservation,
    ) -> list[str]:
        source = self._target(operation.path, seen, targets, new=False)
        if source.info is None:
            raise self._missing(source.raw)
        old, fmt = self._read(source)
        applied = apply_hunks(old, operation.hunks, self._shown(source.real))
        if operation.move_to is None:
            self._plan_text(source, old, fmt, applied.text)
            result.updated.append(self._shown(source.real))
            return applied.notes
        dest = self._target(operation.move_to, seen, targets, new=True)
        if dest.info is not None:  # replaced, as Codex does; its old bytes kept for rollback
            dest.before = self._read_bytes(dest)
        else:  # a moved file keeps its mode (a script stays executable), owner and group
            assert source.info is not None
            dest.mode = stat.S_IMODE(source.info.st_mode)
            dest.owner = (source.info.st_uid, source.info.st_gid)
        data = fmt.encode(applied.text)
        self._check_size(dest.raw, len(data))
        dest.after = [data]
        source.after = None  # removed once the new file is written: so it goes after it
        targets.remove(source)
        targets.append(source)
        result.moved[self._shown(source.real)] = self._shown(dest.real)
        return applied.notes

    def _plan_text(self, target: _Target, old: str, fmt: textfile.TextFormat, new: str) -> None:
        """Plan ``target``'s change from ``old`` to ``new`` text, and its undo step."""
        assert target.before is not None
        start, old_end, new_end = _changed_span(old, new)
        pieces = textfile.splice_bytes(target.before, old, fmt, start, old_end, new[start:new_end])
        self._check_size(target.raw, sum(len(piece) for piece in pieces))
        target.after = pieces
        target.step = Step(fmt, fingerprint(pieces), start, new_end - start, old[start:old_end])

    def _read_bytes(self, target: _Target) -> bytes:
        assert target.place is not None and target.info is not None
        fd, info = target.place.open_file(target.info)
        with closing(fd):
            self._check_size(target.raw, info.st_size)
            if not target.place.may_write(info):
                raise EditorError(
                    f"{target.raw} is read-only (mode {stat.S_IMODE(info.st_mode):04o}): this "
                    "process may not write to it, so the patch was not applied."
                )
            data = read_all(fd, self.settings.max_file_size)
        self._check_size(target.raw, len(data))
        target.info = info
        return data

    def _read(self, target: _Target) -> tuple[str, textfile.TextFormat]:
        """Read and decode an existing file for editing (its bytes go to ``before``)."""
        target.before = self._read_bytes(target)
        if textfile.image_type(target.before[:16]) is not None:
            raise EditorError(f"{target.raw} is an image; the patch can only change text files.")
        try:
            return textfile.decode(target.before)
        except EditorError as exc:
            raise EditorError(f"{target.raw}: {exc}") from None

    # -- write -------------------------------------------------------------------------

    def _write_all(self, targets: list[_Target]) -> None:
        """Write every target; on a failure, put back the ones already written."""
        done: list[_Target] = []
        try:
            for target in targets:
                self._write_one(target)
                done.append(target)
        except (EditorError, OSError) as exc:
            # The failed write left its file as it was, but not the folders made for it.
            _remove_empty(targets[len(done)].made)
            failed = self._roll_back(done)
            reason = str(exc) if isinstance(exc, EditorError) else (exc.strerror or str(exc))
            message = (
                f"The patch could not be written ({reason}). Every file it had changed "
                "was put back as it was, so nothing changed."
            )
            if failed:
                message = (
                    f"The patch could not be written ({reason}), and these files could not "
                    f"be put back as they were: {', '.join(failed)}. Check them."
                )
            raise EditorError(message) from None

    def _write_one(self, target: _Target) -> None:
        if target.info is not None:
            _require_unchanged(target)
        if target.after is None:  # a deleted file, or the source of a move
            assert target.place is not None
            os.unlink(target.place.name, dir_fd=target.place.dir_fd)
            return
        if target.place is None:
            target.place = reach(target.real, target.raw, self.workspace, make_parents=True)
            target.made = target.place.made
        info = target.info
        self._sweeper.sweep(target.place.dir_fd)
        write_atomic(
            target.place.dir_fd,
            target.place.name,
            target.after,
            path=target.real,
            mode=target.mode if info is None else stat.S_IMODE(info.st_mode),
            owner=target.owner if info is None else (info.st_uid, info.st_gid),
            exclusive=info is None,
        )
        self._sweeper.wrote(target.place.dir_fd)

    def _roll_back(self, done: list[_Target]) -> list[str]:
        """Undo the writes of ``done``, newest first; the paths that could not be restored."""
        failed: list[str] = []
        for target in reversed(done):
            place = target.place
            assert place is not None
            try:
                if target.before is None:  # it was new: remove it, and the folders made
                    os.unlink(place.name, dir_fd=place.dir_fd)
                    _remove_empty(target.made)
                    continue
                info = target.info
                assert info is not None
                write_atomic(
                    place.dir_fd,
                    place.name,
                    target.before,
                    path=target.real,
                    mode=stat.S_IMODE(info.st_mode),
                    owner=(info.st_uid, info.st_gid),
                    exclusive=target.after is None,
                )
            except (EditorError, OSError):
                failed.append(self._shown(target.real))
        return failed

    def _record(self, targets: list[_Target]) -> None:
        """Remember the undo steps. The old steps of a file removed, moved, or new (a
        file of that name was removed earlier) no longer apply: they are forgotten."""
        history = self.shared.history
        for target in targets:
            step = target.step
            if step is None or step.created:
                while history.steps_of(target.real):
                    history.drop_last(target.real)
            if step is not None:
                if step.created:  # the folders made are known only now
                    step = Step(step.fmt, step.after, created=True, made_dirs=target.made)
                history.push(target.real, step)

    # -- shared ------------------------------------------------------------------------

    def _report(self, result: ApplyPatchObservation, notes: list[str]) -> Observation:
        lines = [f"A {path}" for path in result.added]
        lines += [f"M {path}" for path in result.updated]
        lines += [f"R {old} -> {new}" for old, new in result.moved.items()]
        lines += [f"D {path}" for path in result.deleted]
        text = "Applied the patch. Changed files:\n" + "\n".join(lines)
        if notes:
            text += "\n" + "\n".join(f"Note: {note}" for note in notes)
        result.content = [TextContent(text=text)]
        return result

    def _shown(self, real: Path) -> str:
        return paths.display(real, self.workspace)

    def _missing(self, raw: str) -> EditorError:
        return EditorError(
            f"{raw} does not exist, so the patch was not applied. To make a new file, "
            "use `*** Add File:`."
        )

    def _check_size(self, raw: str, size: int) -> None:
        limit = self.settings.max_file_size
        if size > limit:
            raise EditorError(
                f"{raw} would be {size} bytes, over the limit of {limit} bytes "
                "(max_file_size), so the patch was not applied."
            )


def _require_unchanged(target: _Target) -> None:
    """Refuse to write over a file that something else changed since the plan read it."""
    assert target.place is not None and target.info is not None
    try:
        now = os.stat(target.place.name, dir_fd=target.place.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        now = None
    was = target.info
    if now is None or (now.st_ino, now.st_size, now.st_mtime_ns) != (
        was.st_ino,
        was.st_size,
        was.st_mtime_ns,
    ):
        raise EditorError(f"{target.raw} was changed by something else while the patch was applied")


def _remove_empty(folders: tuple[Path, ...]) -> None:
    """Remove the given folders, deepest first, as long as they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _changed_span(old: str, new: str) -> tuple[int, int, int]:
    """Where ``old`` and ``new`` differ: (start, end in old, end in new).

    Found by halving: each probe compares two slices in C, so a 1 MB file costs a few
    dozen comparisons, not a loop over its characters.
    """
    low, high = 0, min(len(old), len(new))
    while low < high:  # the longest common prefix
        middle = (low + high + 1) // 2
        if old[:middle] == new[:middle]:
            low = middle
        else:
            high = middle - 1
    start = low
    low, high = 0, min(len(old), len(new)) - start
    while low < high:  # the longest common suffix that does not overlap it
        middle = (low + high + 1) // 2
        if old[len(old) - middle :] == new[len(new) - middle :]:
            low = middle
        else:
            high = middle - 1
    return start, len(old) - low, len(new) - low
