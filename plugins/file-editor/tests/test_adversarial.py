"""What a hostile or unlucky world does to the editor (issue 13), through the real tool.

Races are real threads renaming real folders and FIFOs, crashes are real SIGKILLs of
real processes, other users are real uids (a fork that changes its user), and costs are measured as
real memory limits on a child process. Loops are bounded in rounds and in time; a wait
that runs out fails the test; nothing here asserts how long something took.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

import pytest
from conftest import error, leftovers, make_editor, ok
from hypothesis import HealthCheck, example, given, settings, strategies as st
from toolplug import Observation
from toolplug.testing import params_listing, run_toolplug

#: Most rounds a race runs, and the most seconds (whichever comes first).
RACE_ROUNDS = 1500
RACE_SECONDS = 40.0
#: How long one call may take before the test calls it hung.
HANG_LIMIT = 60.0


@contextlib.contextmanager
def racing(swap: Callable[[], None]) -> Iterator[threading.Event]:
    """Run ``swap`` in a loop in another thread while the body runs; small GIL slices
    make the two threads interleave at many points."""
    done = threading.Event()

    def loop() -> None:
        while not done.is_set():
            with contextlib.suppress(OSError):
                swap()

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield done
    finally:
        done.set()
        thread.join(HANG_LIMIT)
        sys.setswitchinterval(old_interval)


def rounds() -> Iterator[int]:
    """Round numbers up to RACE_ROUNDS, stopping early after RACE_SECONDS."""
    end = time.monotonic() + RACE_SECONDS
    for number in range(RACE_ROUNDS):
        if time.monotonic() > end:
            return
        yield number


def text_is_utf8(observation: Observation) -> str:
    """The observation's text, checked to encode as strict UTF-8 (what JSON and MCP need)."""
    text = observation.text
    text.encode("utf-8")
    return text


# -- a symlink swapped into the path -------------------------------------------------


#: What a call caught in the symlink race may answer, besides success.
_RACED = ("outside the workspace", "does not exist", "changed while")


def test_symlink_swapped_into_the_path_never_leads_outside(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    folder = workspace / "d"
    folder.mkdir(parents=True)
    outside.mkdir()
    (folder / "f.txt").write_text("needle\n")
    secret = outside / "f.txt"
    secret.write_text("SECRET needle\n")
    evil, parked = workspace / "evil", workspace / "parked"
    evil.symlink_to(outside)

    def swap() -> None:  # d becomes a link to the outside folder, then the folder again
        os.rename(folder, parked)
        os.rename(evil, folder)
        time.sleep(0.0002)  # each state lasts a moment, so calls start in either
        os.rename(folder, evil)
        os.rename(parked, folder)
        time.sleep(0.0002)

    tool = make_editor(workspace)
    succeeded, read_outside, wrote_outside, odd = 0, [], [], []
    try:
        with racing(swap):
            for number in rounds():
                if number % 2:
                    arguments = {"command": "view", "path": "d/f.txt"}
                else:
                    arguments = {
                        "command": "str_replace",
                        "path": "d/f.txt",
                        "old_str": "needle",
                        "new_str": "needle!",
                    }
                observation = tool.call(arguments)
                if "SECRET" in observation.text:
                    read_outside.append(number)
                if secret.read_text() != "SECRET needle\n":
                    wrote_outside.append(number)
                    secret.write_text("SECRET needle\n")
                succeeded += not observation.is_error
                if observation.is_error and not any(map(observation.text.__contains__, _RACED)):
                    odd.append(observation.text)
    finally:
        tool.close()
    with contextlib.suppress(OSError):
        os.rename(parked, folder)  # the race may have stopped half-way
    assert (read_outside, wrote_outside) == ([], []), "rounds that read / wrote outside"
    assert odd == [], "errors that do not say what happened"
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"]
    assert succeeded > 0, "no call got through the race, so it proved nothing"
    assert leftovers(folder) == []


# -- a FIFO swapped in after the check -----------------------------------------------


def test_fifo_swapped_in_never_blocks_the_editor(workspace: Path) -> None:
    target = workspace / "log.txt"
    regular, fifo = workspace / ".regular", workspace / ".fifo"
    regular.write_text("just text\n")
    os.mkfifo(fifo)
    os.link(regular, target)

    def swap() -> None:
        os.link(fifo, workspace / ".next")
        os.rename(workspace / ".next", target)
        os.link(regular, workspace / ".next")
        os.rename(workspace / ".next", target)

    tool = make_editor(workspace)
    pool = ThreadPoolExecutor(max_workers=2)
    hung = None
    try:
        with racing(swap):
            for number in rounds():
                command = ("view", "str_replace", "insert")[number % 3]
                arguments = {"command": command, "path": "log.txt"}
                if command == "str_replace":
                    arguments |= {"old_str": "just", "new_str": "just"}
                if command == "insert":
                    arguments |= {"insert_line": 0, "new_str": "x"}
                future = pool.submit(tool.call, arguments)
                try:
                    observation = future.result(timeout=HANG_LIMIT)
                except FutureTimeout:
                    hung = f"round {number}: `{command}` hung on the FIFO"
                    break
                text_is_utf8(observation)
        if hung is None:  # and the editor still answers afterwards
            after = pool.submit(tool.call, {"command": "view", "path": ".regular"})
            try:
                assert "just text" in ok(after.result(timeout=HANG_LIMIT))
            except FutureTimeout:
                hung = "a call after the race hung: the editor's lock is stuck"
    finally:
        # Release a reader stuck in open(): it waits for a writer to appear.
        for _ in range(3):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pool.shutdown(wait=True)
        tool.close()
    assert hung is None, hung


def test_fifo_and_device_are_refused_at_once(call, workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")
    for command in ("view", "str_replace", "undo_edit"):
        arguments = {"command": command, "path": "pipe", "old_str": "a", "new_str": "b"}
        if command != "str_replace":
            arguments = {"command": command, "path": "pipe"}
        observation = call(**arguments)
        assert observation.is_error
    tool = make_editor(workspace, allow_outside_workspace=True)
    try:
        assert "regular file" in error(tool.call({"command": "view", "path": "/dev/zero"}))
    finally:
        tool.close()


# -- the cost of a large old_str that does not match ---------------------------------

_COST_CHILD = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    from toolplug import Tool, ToolContext
    from toolplug.testing import registry_from
    import toolplug_file_editor

    workspace, kind = Path(sys.argv[1]), sys.argv[2]
    [tool] = registry_from(toolplug_file_editor).resolve(
        Tool("file_editor"), ToolContext(workspace=workspace)
    )
    if kind == "tokens":  # 10 MB of short tokens, none of them in the file
        old = "".join(f"tok{i} " for i in range(1_300_000))
    else:  # 2 MB of blank lines before one token: each line start sees them all
        old = "\\n" * 2_000_000 + "zzz"
    limit = 600 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    observation = tool.call(
        {"command": "str_replace", "path": "f.txt", "old_str": old, "new_str": "x"}
    )
    print(json.dumps({"is_error": observation.is_error, "text": observation.text[:2000]}))
    """
)


@pytest.mark.parametrize("kind", ["tokens", "blank-lines"])
def test_a_huge_old_str_that_does_not_match_costs_little(workspace: Path, kind: str) -> None:
    """Today's hint builds a regex of every token (1.5 GB for 10 MB) or scans each
    line start to the end (quadratic); the child has 600 MB and a generous wait."""
    lines = [f"line {i}: some text to search through\n" for i in range(30_000)]
    (workspace / "f.txt").write_text("".join(lines))
    result = subprocess.run(
        [sys.executable, "-c", _COST_CHILD, str(workspace), kind],
        capture_output=True,
        text=True,
        timeout=HANG_LIMIT * 2,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    answer = json.loads(result.stdout)
    assert answer["is_error"] and "was not found" in answer["text"], answer["text"]


def test_whitespace_hint_still_points_at_the_line_in_a_big_file(call, workspace: Path) -> None:
    lines = [f"    value_{i} = compute({i})\n" for i in range(40_000)]
    (workspace / "big.py").write_text("".join(lines))
    old = "value_39000 = compute(39000)\n  value_39001   =  compute(39001)"
    text = error(call(command="str_replace", path="big.py", old_str=old, new_str="x"))
    assert "differs only in whitespace" in text and "line(s) 39001." in text


def _loose_lines_by_regex(text: str, old: str) -> list[int]:
    """The hint's old definition, as a reference: tokens joined by runs of whitespace."""
    tokens = old.split()
    loose = re.compile(r"\s+".join(re.escape(token) for token in tokens))
    return [text.count("\n", 0, m.start()) + 1 for m in loose.finditer(text)][:20]


_WORDS = st.sampled_from(["a", "b", "ab", "x1", "(", ")", "=", "é"])
_GAPS = st.sampled_from([" ", "  ", "\t", "\n", "\r\n", " \n  ", ""])


@st.composite
def _spaced(draw: st.DrawFn, least: int = 1) -> str:
    words = draw(st.lists(_WORDS, min_size=least, max_size=12))
    return "".join(word + draw(_GAPS) for word in words)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_spaced(), old=_spaced())
@example(text="a\r\na\r\n", old="a\n")  # CRLF ends read as "\n": found twice, no hint
def test_whitespace_hint_agrees_with_the_regex_definition(text: str, old: str) -> None:
    workspace = Path(tempfile.mkdtemp())
    try:
        path = workspace / "f.txt"
        path.write_bytes(text.encode())
        tool = make_editor(workspace)
        try:
            observation = tool.call(
                {"command": "str_replace", "path": "f.txt", "old_str": old, "new_str": "@"}
            )
        finally:
            tool.close()
        if not observation.is_error:
            return  # old matched exactly (once)
        expected = _loose_lines_by_regex(text, old) if old.split() else []
        found = re.search(r"starts at line\(s\) ([\d, ]+)\.", observation.text)
        got = [int(n) for n in found.group(1).split(", ")] if found else []
        # Only where old_str is not in the file at all: the editor reads a CRLF file's
        # line ends as "\n", so "a\n" occurs twice in "a\r\na\r\n" (no hint then).
        if text.count(old) == 0 and "occurs" not in observation.text:
            assert got == expected, observation.text
    finally:
        shutil.rmtree(workspace)


def test_a_huge_path_is_refused_without_being_echoed(call) -> None:
    text = error(call(command="view", path="x" * 1_000_000))
    assert "1000000 characters" in text and len(text) < 300


# -- CRLF files ----------------------------------------------------------------------


def test_str_replace_in_a_crlf_file_writes_crlf(call, workspace: Path) -> None:
    path = workspace / "dos.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    ok(call(command="str_replace", path="dos.txt", old_str="two", new_str="two\nand a half"))
    assert path.read_bytes() == b"one\r\ntwo\r\nand a half\r\nthree\r\n"
    ok(call(command="str_replace", path="dos.txt", old_str="one\r\n", new_str="zero\none\n"))
    assert path.read_bytes() == b"zero\r\none\r\ntwo\r\nand a half\r\nthree\r\n"
    ok(call(command="undo_edit", path="dos.txt"))
    ok(call(command="undo_edit", path="dos.txt"))
    assert path.read_bytes() == b"one\r\ntwo\r\nthree\r\n"


_LINE = st.text(st.sampled_from("ab \t=é"), max_size=6)


@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(_LINE, min_size=1, max_size=6),
    pick=st.integers(0, 5),
    new_lines=st.lists(_LINE, min_size=1, max_size=4),
    joiner=st.sampled_from(["\n", "\r\n"]),
)
def test_crlf_files_never_get_a_bare_lf(
    lines: list[str], pick: int, new_lines: list[str], joiner: str
) -> None:
    lines = [f"{i}:{line}" for i, line in enumerate(lines)]  # every line unique
    original = "".join(line + "\r\n" for line in lines).encode()
    old = lines[pick % len(lines)]
    new = joiner.join(new_lines) + "!"
    workspace = Path(tempfile.mkdtemp())
    try:
        (workspace / "f.txt").write_bytes(original)
        tool = make_editor(workspace)
        try:
            observation = tool.call(
                {"command": "str_replace", "path": "f.txt", "old_str": old, "new_str": new}
            )
            assert not observation.is_error, observation.text
            data = (workspace / "f.txt").read_bytes()
            assert data.count(b"\n") == data.count(b"\r\n"), data
            ok(tool.call({"command": "undo_edit", "path": "f.txt"}))
            assert (workspace / "f.txt").read_bytes() == original
        finally:
            tool.close()
    finally:
        shutil.rmtree(workspace)


# -- view_range past the end ---------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_view_range_past_the_end_of_a_file_without_a_final_newline(
    call, workspace: Path, encoding: str
) -> None:
    (workspace / "two.txt").write_bytes("a\nb".encode(encoding))
    (workspace / "one.txt").write_bytes("only".encode(encoding))
    text = error(call(command="view", path="two.txt", view_range=[3, 4]))
    assert "has only 2 line(s)" in text
    text = error(call(command="view", path="one.txt", view_range=[2, 2]))
    assert "has only 1 line(s)" in text and "empty" not in text
    assert ok(call(command="view", path="two.txt", view_range=[2, 5])).startswith("     2\tb")


@settings(max_examples=120, deadline=None)
@given(
    lines=st.lists(st.text(st.sampled_from("xy é"), max_size=4), max_size=6),
    final_newline=st.booleans(),
    first=st.integers(1, 9),
    span=st.integers(0, 4),
)
def test_view_range_agrees_with_a_plain_split(
    lines: list[str], final_newline: bool, first: int, span: int
) -> None:
    body = "\n".join(lines) + ("\n" if final_newline and lines else "")
    expected = body.split("\n")
    if body.endswith("\n") or not body:
        expected = expected[:-1]  # the split's empty string after a final newline
    last = first + span
    workspace = Path(tempfile.mkdtemp())
    try:
        (workspace / "f.txt").write_text(body, encoding="utf-8")
        tool = make_editor(workspace)
        try:
            observation = tool.call(
                {"command": "view", "path": "f.txt", "view_range": [first, last]}
            )
        finally:
            tool.close()
        if not expected:
            assert "is empty" in observation.text
        elif first > len(expected):
            assert observation.is_error
            assert f"has only {len(expected)} line(s)" in observation.text
        else:
            shown = [row.split("\t", 1) for row in observation.text.split("\n[")[0].split("\n")]
            want = list(enumerate(expected, 1))[first - 1 : last]
            assert [(int(n), t) for n, t in shown] == want
    finally:
        shutil.rmtree(workspace)


# -- permissions and owners ----------------------------------------------------------


def test_a_read_only_file_is_refused(call, workspace: Path) -> None:
    path = workspace / "ro.txt"
    path.write_text("frozen\n")
    path.chmod(0o444)
    text = error(call(command="str_replace", path="ro.txt", old_str="frozen", new_str="thawed"))
    assert "read-only" in text and "0444" in text and "not changed" in text
    text = error(call(command="insert", path="ro.txt", insert_line=0, new_str="x"))
    assert "read-only" in text
    assert path.read_text() == "frozen\n" and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert "frozen" in ok(call(command="view", path="ro.txt"))


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another uid needs root")
def test_owner_and_group_are_kept_when_root_edits(call, workspace: Path) -> None:
    path = workspace / "theirs.txt"
    path.write_text("mine\n")
    os.chown(path, 65534, 100)
    path.chmod(0o640)
    ok(call(command="str_replace", path="theirs.txt", old_str="mine", new_str="yours"))
    info = path.stat()
    assert (info.st_uid, info.st_gid) == (65534, 100)
    assert stat.S_IMODE(info.st_mode) == 0o640
    ok(call(command="undo_edit", path="theirs.txt"))
    assert (path.stat().st_uid, path.stat().st_gid) == (65534, 100)


def _as_nobody(workspace: Path, *calls: dict[str, Any], groups: str = "") -> list[dict]:
    """Make ``calls`` with the file editor as uid 65534, in a process of that user.

    The process is a fork of this one whose user is then changed: that user need not
    read this environment's Python or site-packages (in CI they are in root's home),
    as everything the editor runs is imported here before the fork.
    """
    if os.geteuid() != 0:
        pytest.skip("needs root to act as another user")
    import grp  # noqa: F401  (the editor may name a file's owner: loaded before the fork)
    import pwd  # noqa: F401

    tool = make_editor(workspace)
    tool.call({"command": "view", "path": "."})  # the call path, warmed up as root
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12 warns of forking with threads: the child only makes the calls.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the other user: no exception, no pytest teardown, may leave here
        status = 1
        try:
            os.close(read_end)
            os.setgroups([int(g) for g in groups.split(",") if g])
            os.setgid(65534)
            os.setuid(65534)
            os.environ["HOME"] = str(workspace)
            answers = [tool.call(arguments) for arguments in calls]
            data = [{"is_error": a.is_error, "text": a.text} for a in answers]
            os.write(write_end, json.dumps(data).encode())
            status = 0
        except BaseException as exc:  # reported by the parent
            os.write(write_end, f"ERROR {type(exc).__name__}: {exc}".encode())
        finally:
            os._exit(status)
    os.close(write_end)
    hung = threading.Timer(HANG_LIMIT, os.kill, (pid, signal.SIGKILL))  # nothing hangs
    hung.start()
    try:
        with os.fdopen(read_end, "rb") as pipe:
            output = pipe.read().decode()  # until the child exits (it holds the write end)
        _, status = os.waitpid(pid, 0)
    finally:
        hung.cancel()
        tool.close()
    assert os.waitstatus_to_exitcode(status) == 0, output
    return json.loads(output)


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder another user can reach (pytest's tmp_path is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="editor-shared-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def test_another_user_cannot_edit_a_file_it_may_not_write(shared_dir: Path) -> None:
    os.chown(shared_dir, 65534, 65534)  # nobody may rename in the folder...
    mine = shared_dir / "mine.txt"
    mine.write_text("read-only to its owner\n")
    os.chown(mine, 65534, 65534)
    mine.chmod(0o444)  # ...but marked the files read-only
    roots = shared_dir / "roots.txt"
    roots.write_text("root's\n")
    roots.chmod(0o644)
    change = {"command": "str_replace", "old_str": "o", "new_str": "0"}
    answers = _as_nobody(shared_dir, change | {"path": "mine.txt"}, change | {"path": "roots.txt"})
    for answer in answers:
        assert answer["is_error"] and "read-only" in answer["text"], answer["text"]
    assert mine.read_text() == "read-only to its owner\n"
    assert roots.read_text() == "root's\n" and roots.stat().st_uid == 0


def test_another_user_keeps_the_group_and_is_told_about_the_owner(shared_dir: Path) -> None:
    os.chown(shared_dir, 0, 100)
    shared_dir.chmod(0o775)  # the group `users` may write here
    path = shared_dir / "team.txt"
    path.write_text("shared notes\n")
    os.chown(path, 0, 100)
    path.chmod(0o664)
    [answer] = _as_nobody(
        shared_dir,
        {"command": "str_replace", "path": "team.txt", "old_str": "notes", "new_str": "plans"},
        groups="100",
    )
    assert not answer["is_error"], answer["text"]
    info = path.stat()
    assert path.read_text() == "shared plans\n"
    assert info.st_gid == 100 and stat.S_IMODE(info.st_mode) == 0o664
    assert info.st_uid == 65534 and "owner" in answer["text"]


# -- temporary files of an interrupted write -----------------------------------------

_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from toolplug import Tool, ToolContext
    from toolplug.testing import registry_from
    import toolplug_file_editor

    [tool] = registry_from(toolplug_file_editor).resolve(
        Tool("file_editor"), ToolContext(workspace=Path(sys.argv[1]))
    )
    pair = ["marker-a", "marker-b"]
    while True:  # edits back and forth until it is killed
        tool.call({"command": "str_replace", "path": "big.txt",
                   "old_str": pair[0], "new_str": pair[1]})
        pair.reverse()
    """
)


def _temp_files(folder: Path) -> list[str]:
    return sorted(leftovers(folder))


def _edit(tool: Any, path: str, old: str, new: str) -> None:
    ok(tool.call({"command": "str_replace", "path": path, "old_str": old, "new_str": new}))


def _locked_by_another(path: Path) -> bool:
    """Whether another process holds a ``flock`` on the file (``False`` if it is gone)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops the lock, if this took it
    return False


def _catch_mid_write(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start a writer, and stop it (SIGSTOP) while its temporary file exists."""
    for _ in range(20):
        writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(folder)])
        end = time.monotonic() + HANG_LIMIT
        while writer.poll() is None and time.monotonic() < end:
            temps = [name for name in _temp_files(folder) if name.startswith(".big.txt.")]
            if temps:
                writer.send_signal(signal.SIGSTOP)
                # Caught between making its file and locking it, the writer would look
                # dead to the cleaner: take only a writer that holds its lock.
                if _locked_by_another(folder / temps[0]):
                    return writer, temps[0]
                writer.send_signal(signal.SIGCONT)
        writer.kill()
        writer.wait(HANG_LIMIT)
    pytest.fail("never caught the writer mid-write")


def _age(path: Path, seconds: float = 3600) -> None:
    """Make a file look as if it was last written ``seconds`` ago."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_temporary_files_of_a_crashed_write_are_cleaned_up(workspace: Path) -> None:
    (workspace / "big.txt").write_text("marker-a\n" + "filler line\n" * 1_500_000)
    (workspace / "small.txt").write_text("small 0\n")
    other = workspace / "other"
    other.mkdir()
    foreign = [".notes.toolplug-tmp.bak", "plain.toolplug-tmp"]  # not this tool's pattern
    for name in foreign:
        (workspace / name).write_text("keep me\n")
        _age(workspace / name)
    writer, temp = _catch_mid_write(workspace)
    tool = make_editor(workspace)
    try:
        # A live (stopped) writer's temporary file is left alone, however old.
        _age(workspace / temp)
        _edit(tool, "small.txt", "0", "1")
        assert temp in _temp_files(workspace)
        # The writer dies mid-write: the next write to that folder removes its file.
        writer.kill()
        writer.wait(HANG_LIMIT)
        (other / "x.txt").write_text("x\n")
        _edit(tool, "other/x.txt", "x", "y")
        assert temp in _temp_files(workspace)  # another folder's write leaves it
        _edit(tool, "small.txt", "1", "2")
        assert temp.startswith(".big.txt.") and temp not in _temp_files(workspace)
        assert _temp_files(workspace) == ["plain.toolplug-tmp"]  # only the foreign one
        for name in foreign:
            assert (workspace / name).read_text() == "keep me\n"
        assert (workspace / "big.txt").read_text().startswith("marker-")
    finally:
        tool.close()
        if writer.poll() is None:
            writer.kill()
            writer.wait(HANG_LIMIT)


def test_a_fresh_temporary_file_is_left_for_its_writer(workspace: Path) -> None:
    """An unlocked temporary file younger than a few seconds may belong to a writer that
    has just made it; it is not removed."""
    (workspace / "a.txt").write_text("a\n")
    fresh = workspace / ".a.txt.abc123.toolplug-tmp"
    fresh.write_text("half")
    tool = make_editor(workspace)
    try:
        ok(tool.call({"command": "str_replace", "path": "a.txt", "old_str": "a", "new_str": "b"}))
        assert fresh.exists()
        _age(fresh)
        ok(tool.call({"command": "str_replace", "path": "a.txt", "old_str": "b", "new_str": "c"}))
        assert not fresh.exists()
    finally:
        tool.close()


# -- names that are not UTF-8 --------------------------------------------------------


def test_directory_view_shows_non_utf8_names_escaped(call, workspace: Path) -> None:
    os.mkdir(os.path.join(os.fsencode(workspace), b"caf\xe9"))
    with open(os.path.join(os.fsencode(workspace), b"caf\xe9", b"\xff.txt"), "w") as handle:
        handle.write("x\n")
    (workspace / "plain.txt").write_text("y\n")
    text = text_is_utf8(call(command="view", path="."))
    assert "./caf\\xe9/" in text and "./caf\\xe9/\\xff.txt" in text and "./plain.txt" in text


def test_a_non_utf8_path_from_the_model_is_shown_escaped(call, workspace: Path) -> None:
    name = "caf\udce9.txt"  # what os.fsdecode makes of b"caf\xe9.txt"
    observation = call(command="create", path=name, file_text="hi\n")
    assert "caf\\xe9.txt" in text_is_utf8(observation)
    assert observation.path.encode("utf-8")  # type: ignore[attr-defined]
    assert (os.fsencode(workspace) + b"/caf\xe9.txt") in [
        os.path.join(os.fsencode(workspace), entry) for entry in os.listdir(os.fsencode(workspace))
    ]
    text = text_is_utf8(call(command="view", path="caf\udce9.nope"))
    assert "caf\\xe9.nope" in text


# -- the workspace's own path -----------------------------------------------------------


def test_a_link_put_above_the_workspace_is_not_followed(tmp_path: Path) -> None:
    # A folder above the workspace is renamed and a link to it left in its place: the
    # workspace's path now leads through a link, to a place the editor was not given.
    above = tmp_path / "above"
    workspace = above / "ws"
    workspace.mkdir(parents=True)
    (workspace / "f.txt").write_text("hello\n")
    tool = make_editor(workspace)
    try:
        assert "hello" in ok(tool.call({"command": "view", "path": "f.txt"}))
        os.rename(above, tmp_path / "moved")
        (tmp_path / "above").symlink_to(tmp_path / "moved")
        for path in ("f.txt", "./f.txt", str(workspace / "f.txt")):
            text = error(tool.call({"command": "view", "path": path}))
            assert "outside the workspace" in text, (path, text)
    finally:
        tool.close()


# -- control characters in names and contents ----------------------------------------

_RAW = ("\x1b", "\x07", "\u202e", "\x9b")


def test_view_escapes_control_characters_in_lines(workspace: Path) -> None:
    # Terminal escapes, an OSC title, 8-bit CSI and a bidi override, in a real file.
    text = "ok\tline\r\nclear\x1b[2J\x1b]0;owned\x07\nrev \u202eexe.txt\x9b1m\nlone\rcr\n"
    (workspace / "evil.txt").write_bytes(text.encode())
    shown = ok(make_editor(workspace).call({"command": "view", "path": "evil.txt"}))
    for raw in (*_RAW, "\r"):
        assert raw not in shown
    assert shown.splitlines() == [
        "     1\tok\tline",
        "     2\tclear\\x1b[2J\\x1b]0;owned\\x07",
        "     3\trev \\u202eexe.txt\\x9b1m",
        "     4\tlone\\rcr",
    ]
    # The file itself is untouched, and an edit matches its real text.
    editor = make_editor(workspace)
    done = editor.call(
        {"command": "str_replace", "path": "evil.txt", "old_str": "\x1b[2J", "new_str": ""}
    )
    text_shown = ok(done)
    assert all(raw not in text_shown for raw in _RAW)
    assert "\\x1b]0;owned\\x07" in text_shown  # in the snippet and in the diff
    assert "\x1b]0;owned\x07" in done.diff  # the typed diff keeps the exact text
    assert b"clear\x1b]0;owned\x07" in (workspace / "evil.txt").read_bytes()


def test_a_listing_shows_each_name_on_one_line_escaped(workspace: Path) -> None:
    names = ["a\x1b]0;owned\x07.txt", "b\u202etxt.exe", "c\nd.txt"]
    for name in names:
        (workspace / name).write_text("x\n")
    shown = ok(make_editor(workspace).call({"command": "view", "path": "."}))
    for raw in _RAW:
        assert raw not in shown
    lines = shown.splitlines()
    assert len(lines) == 2 + len(names)
    assert lines[2:] == [
        f"{lines[1]}a\\x1b]0;owned\\x07.txt",
        f"{lines[1]}b\\u202etxt.exe",
        f"{lines[1]}c\\nd.txt",
    ]


# -- params: described and bounded in create()'s annotations -------------------------------


def test_every_param_is_described_in_the_params_listing() -> None:
    properties = params_listing("file_editor", plugins="file_editor")
    assert properties
    assert [n for n, p in properties.items() if not p.get("description")] == []


def test_a_param_out_of_its_range_is_refused_by_name(tmp_path: Path) -> None:
    done = run_toolplug(
        "call",
        "file_editor",
        "{}",
        "--param",
        "max_view_chars=199",
        plugins="file_editor",
        cwd=tmp_path,
    )

    assert done.returncode == 2
    assert (
        "Invalid params for tool 'file_editor'" in done.stderr
        and "- max_view_chars: " in done.stderr
    )


# -- what a model sends that the schema no longer shows (issue #28) ---------------------


def test_nulls_and_insert_text_from_an_older_schema_still_work(call, workspace: Path) -> None:
    # Optional fields are plain types, left out, and `insert_text` is out of the schema;
    # a model that sends null for "not given", or insert_text, is still understood.
    nulls = {"view_range": None, "file_text": None, "old_str": None, "insert_line": None}
    ok(call(command="create", path="n.txt", **{**nulls, "file_text": "a\nc\n"}))
    ok(call(command="insert", path="n.txt", insert_line=1, insert_text="b", new_str=None))
    assert (workspace / "n.txt").read_text() == "a\nb\nc\n"
    assert "b" in ok(call(command="view", path="n.txt", **nulls, new_str=None))


def test_the_definition_names_no_workspace(tmp_path: Path) -> None:
    # The description carried the workspace's absolute path: every checkout had its
    # own definition, and no prompt cache of the tools survived a second one.
    one, two = tmp_path / "one", tmp_path / "some" / "other"
    one.mkdir()
    two.mkdir(parents=True)
    first, second = make_editor(one), make_editor(two)
    try:
        assert first.description == second.description
        assert str(one) not in first.description and "absolute inside it" in first.description
        assert first.input_schema() == second.input_schema()
    finally:
        first.close()
        second.close()


# -- the memory tool: confined to its folder -----------------------------------------


def _memory(workspace: Path, **params: Any) -> Any:
    import toolplug_file_editor.memory_plugin
    from toolplug import Tool, ToolContext
    from toolplug.testing import registry_from

    registry = registry_from(toolplug_file_editor.memory_plugin)
    [tool] = registry.resolve(Tool("memory", params), ToolContext(workspace=workspace))
    return tool


_NOT_MEMORY_PATHS = [
    "/etc/passwd",
    "memories/x.md",
    "/memoriesx/a.md",
    "/memories/../x.md",
    "/memories/a/../../x.md",
    "/memories//x.md",
    "/memories/./x.md",
    "~/x.md",
    "../x.md",
    "",
    "/memories/a\x00b",
]


@pytest.mark.parametrize("path", _NOT_MEMORY_PATHS)
def test_memory_paths_outside_memories_are_refused(tmp_path: Path, path: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    tool = _memory(workspace)
    calls = [
        {"command": "view", "path": path},
        {"command": "create", "path": path, "file_text": "x"},
        {"command": "str_replace", "path": path, "old_str": "a", "new_str": "b"},
        {"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"},
        {"command": "delete", "path": path},
        {"command": "rename", "old_path": path, "new_path": "/memories/y.md"},
        {"command": "rename", "old_path": "/memories/ok.md", "new_path": path},
    ]
    try:
        ok(tool.call({"command": "create", "path": "/memories/ok.md", "file_text": "a"}))
        for arguments in calls:
            text = error(tool.call(arguments))
            assert str(workspace) not in text, text
            assert "/memories" in text or "`path`" in text or "NUL" in text, text
    finally:
        tool.close()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["memories", "ok.md", "ws"]
    assert (workspace / "memories" / "ok.md").read_text() == "a"


def test_memory_follows_no_link(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    folder = workspace / "memories"
    folder.mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text("SECRET\n")
    (folder / "inside.md").write_text("inside\n")
    (folder / "out").symlink_to(outside)
    (folder / "file_link.md").symlink_to(outside / "secret.md")
    (folder / "in_link.md").symlink_to(folder / "inside.md")  # even one that stays inside
    tool = _memory(workspace)
    try:
        for path in ("/memories/out/secret.md", "/memories/file_link.md", "/memories/in_link.md"):
            for arguments in (
                {"command": "view", "path": path},
                {"command": "str_replace", "path": path, "old_str": "S", "new_str": "s"},
                {"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"},
                {"command": "delete", "path": path},
                {"command": "rename", "old_path": path, "new_path": "/memories/moved.md"},
            ):
                text = error(tool.call(arguments))
                assert "SECRET" not in text and str(tmp_path) not in text, text
                assert "follows no links" in text, text
        for arguments in (
            {"command": "view", "path": "/memories/out"},
            {"command": "create", "path": "/memories/out/new.md", "file_text": "x"},
            {"command": "rename", "old_path": "/memories/inside.md", "new_path": "/memories/out/x"},
            {"command": "delete", "path": "/memories/out"},
        ):
            text = error(tool.call(arguments))
            assert "follows no links" in text, text
    finally:
        tool.close()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert (outside / "secret.md").read_text() == "SECRET\n"
    assert (folder / "inside.md").read_text() == "inside\n"
    assert (folder / "out").is_symlink() and (folder / "file_link.md").is_symlink()


def test_deleting_a_memory_folder_removes_links_in_it_not_their_targets(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    inner = workspace / "memories" / "project"
    inner.mkdir(parents=True)
    outside.mkdir()
    (outside / "keep.md").write_text("keep\n")
    (inner / "notes.md").write_text("n\n")
    (inner / "link").symlink_to(outside)
    tool = _memory(workspace)
    try:
        ok(tool.call({"command": "delete", "path": "/memories/project"}))
    finally:
        tool.close()
    assert not inner.exists()
    assert (outside / "keep.md").read_text() == "keep\n"


def test_a_memory_folder_replaced_by_a_link_is_refused(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("SECRET\n")
    tool = _memory(workspace)
    try:
        ok(tool.call({"command": "create", "path": "/memories/a.md", "file_text": "a"}))
        shutil.rmtree(workspace / "memories")
        (workspace / "memories").symlink_to(outside)
        for arguments in (
            {"command": "view", "path": "/memories/secret.md"},
            {"command": "view", "path": "/memories"},
            {"command": "create", "path": "/memories/b.md", "file_text": "b"},
            {"command": "delete", "path": "/memories/secret.md"},
        ):
            text = error(tool.call(arguments))
            assert "SECRET" not in text, text
    finally:
        tool.close()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]


def test_a_link_swapped_into_a_memory_path_never_leads_outside(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    folder = workspace / "memories" / "d"
    folder.mkdir(parents=True)
    outside.mkdir()
    secret = outside / "f.md"
    secret.write_text("SECRET needle\n")
    evil, parked = workspace / "memories" / "evil", workspace / "memories" / "parked"
    evil.symlink_to(outside)

    def swap() -> None:  # d becomes a link to the outside folder, then the folder again
        os.rename(folder, parked)
        os.rename(evil, folder)
        time.sleep(0.0002)
        os.rename(folder, evil)
        os.rename(parked, folder)
        time.sleep(0.0002)

    tool = _memory(workspace)
    touched, succeeded = [], 0
    try:
        with racing(swap):
            for number in rounds():
                if number > 400:
                    break
                step = number % 4
                if step == 0:
                    arguments = {
                        "command": "create",
                        "path": "/memories/d/f.md",
                        "file_text": "needle\n",
                    }
                elif step == 1:
                    arguments = {"command": "view", "path": "/memories/d/f.md"}
                elif step == 2:
                    arguments = {
                        "command": "str_replace",
                        "path": "/memories/d/f.md",
                        "old_str": "needle",
                        "new_str": "pin",
                    }
                else:
                    arguments = {"command": "delete", "path": "/memories/d/f.md"}
                observation = tool.call(arguments)
                succeeded += not observation.is_error
                if "SECRET" in observation.text or sorted(os.listdir(outside)) != ["f.md"]:
                    touched.append(number)
                if secret.read_text() != "SECRET needle\n":
                    touched.append(number)
                    secret.write_text("SECRET needle\n")
    finally:
        tool.close()
    with contextlib.suppress(OSError):
        os.rename(parked, folder)
    assert touched == [], "rounds that read or changed the outside folder"
    assert succeeded > 0, "no call got through the race, so it proved nothing"


def test_the_rename_move_itself_never_overwrites(tmp_path: Path) -> None:
    """The check that the destination is missing can be raced (another process makes it
    just after), so the move itself must refuse to replace it: here it exists already
    when the move runs, as it would after a lost race."""
    from toolplug_file_editor.memory_executor import _move
    from toolplug_file_editor.safeopen import reach

    folder = tmp_path / "memories"
    folder.mkdir()
    (folder / "a.md").write_text("ours")
    (folder / "c.md").write_text("theirs")
    with reach(folder / "a.md", "/memories/a.md", folder) as source:
        info = source.lstat()
        assert info is not None
        target = reach(folder / "c.md", "/memories/c.md", folder)
        with target, pytest.raises(Exception, match="already exists"):
            _move(source, target, info)
    assert (folder / "c.md").read_text() == "theirs"
    assert (folder / "a.md").read_text() == "ours"
