"""Reading a patch in the Codex envelope format into file operations.

The format::

    *** Begin Patch
    *** Add File: path          then the new file's lines, each starting with `+`
    *** Delete File: path       nothing follows
    *** Update File: path       optionally `*** Move to: new/path`, then hunks:
    @@ optional context line    a line to find first (a `def`, a class)
     context line               starts with a space; kept as it is
    -removed line
    +added line
    *** End of File             optional: the hunk's lines end the file
    *** End Patch

As Codex reads it: the markers may be padded with spaces, a patch wrapped in a shell
heredoc (``<<'EOF'`` ... ``EOF``) is unwrapped, the first hunk of a file may leave out
its ``@@`` line, and an empty line inside a hunk is an empty context line. Every error
names the patch line (counted from 1) and says what was expected there.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolplug_file_editor.errors import EditorError

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File:"
DELETE = "*** Delete File:"
UPDATE = "*** Update File:"
MOVE = "*** Move to:"
END_OF_FILE = "*** End of File"
_HEADERS = f"`{ADD} PATH`, `{DELETE} PATH` or `{UPDATE} PATH`"
_HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"')


@dataclass(frozen=True)
class Hunk:
    """One ``@@`` hunk of an update: its lines as (kind, text), kind one of `` -+``.

    ``context`` is the text after ``@@`` (a line to find before the hunk's lines),
    ``at_end`` whether the hunk ended with ``*** End of File``, ``line`` where the hunk
    starts in the patch.
    """

    context: str | None
    lines: tuple[tuple[str, str], ...]
    at_end: bool
    line: int

    @property
    def old(self) -> list[str]:
        """The lines the hunk expects in the file: context and removed lines."""
        return [text for kind, text in self.lines if kind != "+"]


@dataclass(frozen=True)
class AddFile:
    """``*** Add File``: a new file with ``text`` (each `+` line and a newline)."""

    path: str
    text: str
    line: int


@dataclass(frozen=True)
class DeleteFile:
    """``*** Delete File``: remove the file."""

    path: str
    line: int


@dataclass(frozen=True)
class UpdateFile:
    """``*** Update File``: apply ``hunks`` in order, then move the file to ``move_to``."""

    path: str
    move_to: str | None
    hunks: tuple[Hunk, ...]
    line: int


Operation = AddFile | DeleteFile | UpdateFile


def _fail(line: int, message: str) -> EditorError:
    return EditorError(f"Invalid patch, line {line}: {message}")


def _shown(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def parse(patch: str) -> list[Operation]:
    """The file operations of ``patch``, in order; :class:`EditorError` says what is wrong."""
    lines, first = _envelope(patch)
    reader = _Reader(lines, first)
    operations: list[Operation] = []
    while not reader.done:
        if not reader.peek().strip():  # blank lines between operations
            reader.advance()
            continue
        operations.append(reader.operation(operations[-1] if operations else None))
    if not operations:
        raise EditorError(
            "The patch is empty: it has no `*** Add File`, `*** Delete File` or "
            "`*** Update File` section between `*** Begin Patch` and `*** End Patch`, "
            "so nothing was changed."
        )
    return operations


def _envelope(patch: str) -> tuple[list[str], int]:
    """The lines between the Begin and End markers, and the patch line number of the first."""
    stripped = patch.strip()
    offset = patch[: len(patch) - len(patch.lstrip())].count("\n")
    lines = [line[:-1] if line.endswith("\r") else line for line in stripped.split("\n")]
    if (
        len(lines) >= 4
        and lines[0].strip() in _HEREDOC_OPENERS
        and lines[-1].strip().endswith("EOF")
    ):
        lines, offset = lines[1:-1], offset + 1
    if not stripped or lines[0].strip() != BEGIN:
        got = _shown(lines[0]) if stripped else "an empty text"
        raise _fail(offset + 1, f"a patch starts with `{BEGIN}`; got {got}.")
    if len(lines) < 2 or lines[-1].strip() != END:
        raise _fail(
            offset + len(lines),
            f"a patch ends with `{END}` on its own line; got {_shown(lines[-1])}. "
            "Send the whole patch, ending with that line.",
        )
    return lines[1:-1], offset + 2


def _is_header(line: str) -> bool:
    """Whether ``line`` is an operation header, padded or not."""
    return line.strip().startswith((ADD, DELETE, UPDATE))


class _Reader:
    """Walks the body lines, knowing each one's patch line number."""

    def __init__(self, lines: list[str], first: int) -> None:
        self.lines = lines
        self.first = first
        self.index = 0

    @property
    def done(self) -> bool:
        return self.index >= len(self.lines)

    @property
    def number(self) -> int:
        """The patch line number of the current line."""
        return self.first + self.index

    def peek(self) -> str:
        return self.lines[self.index]

    def advance(self) -> str:
        line = self.lines[self.index]
        self.index += 1
        return line

    def operation(self, previous: Operation | None) -> Operation:
        number, head = self.number, self.advance().strip()
        for marker in (ADD, DELETE, UPDATE):
            if head.startswith(marker):
                path = head[len(marker) :].strip()
                if not path:
                    raise _fail(number, f"`{marker}` needs a path after it.")
                if marker == ADD:
                    return self._add(path, number)
                if marker == DELETE:
                    return DeleteFile(path, number)
                return self._update(path, number)
        hint = ""
        if isinstance(previous, AddFile):
            hint = " In an added file every line starts with `+`."
        elif isinstance(previous, UpdateFile):
            hint = " A hunk line starts with ` ` (context), `-` or `+`; a new hunk with `@@`."
        raise _fail(number, f"expected {_HEADERS}; got {_shown(head)}.{hint}")

    def _add(self, path: str, number: int) -> AddFile:
        text: list[str] = []
        while not self.done and self.peek().startswith("+"):
            text.append(self.advance()[1:] + "\n")
        return AddFile(path, "".join(text), number)

    def _update(self, path: str, number: int) -> UpdateFile:
        move_to = None
        if not self.done and self.peek().strip().startswith(MOVE):
            move_number = self.number
            move_to = self.advance().strip()[len(MOVE) :].strip()
            if not move_to:
                raise _fail(move_number, f"`{MOVE}` needs a path after it.")
        hunks: list[Hunk] = []
        while not self.done:
            line = self.peek()
            if not line.strip():  # blank lines between hunks
                self.advance()
                continue
            if line.startswith("*") or _is_header(line):
                break  # the next operation
            hunks.append(self._hunk(first=not hunks))
        if not hunks and move_to is None:
            raise _fail(
                number,
                f"`{UPDATE} {path}` has no hunks. Follow it with `@@` and the lines "
                "to change (` ` context, `-` removed, `+` added).",
            )
        return UpdateFile(path, move_to, tuple(hunks), number)

    def _hunk(self, *, first: bool) -> Hunk:
        number = self.number
        head = self.peek()
        context: str | None = None
        if head.rstrip() == "@@":
            self.advance()
        elif head.startswith("@@ "):
            context = self.advance()[3:]
            context = context if context.strip() else None
        elif not first:
            raise _fail(number, f"expected `@@` to start the next hunk; got {_shown(head)}.")
        lines: list[tuple[str, str]] = []
        at_end = False
        while not self.done:
            line = self.peek()
            if line.rstrip() == END_OF_FILE:
                if not lines:
                    break  # reported below as a hunk without lines
                self.advance()
                at_end = True
                break
            kind = line[:1]
            if _is_header(line):
                break  # a padded header of the next operation
            if line == "":
                lines.append((" ", ""))  # an empty line: empty context, as Codex reads it
            elif kind in (" ", "-", "+"):
                lines.append((kind, line[1:]))
            else:
                break
            self.advance()
        if not any(kind != " " or text for kind, text in lines):
            got = "the end of the patch" if self.done else _shown(self.peek())
            raise _fail(
                self.number,
                "a hunk needs lines starting with ` ` (context), `-` (removed) or `+` "
                f"(added); got {got}.",
            )
        return Hunk(context, tuple(lines), at_end, number)
