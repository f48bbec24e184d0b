"""Benchmark of toolplug-bash: each target against a floor measured in the same run.

Run: python bench/bench_bash.py (with toolplug-bash installed). Prints one line per
target: what, our time, the floor, the ratio, the target and PASS/MISS; exits non-zero
on a miss. The warm round trip is measured for a short, a medium and a long output,
each against a raw terminal (bash on a pseudo-terminal, no parsing) and against bash
over pipes; the session's own line typed to a raw terminal shows what the
end-of-command protocol costs bash by itself. The sandbox's targets (bubblewrap) are
measured against the same tool outside the sandbox; they are skipped, with the reason,
where bubblewrap cannot run.
A background process's start is measured against a foreground call and against bash
spawned on a pseudo-terminal (its floor); a read of 1 MB of its new output against the
same bytes read from a pipe.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import tempfile
import termios
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

import toolplug_bash
from timing import Stopwatch, interleaved, interleaved_self_timed, median_time, report, save
from toolplug import Tool, ToolContext, ToolError
from toolplug.testing import registry_from
from toolplug_bash import sandbox
from toolplug_bash.output import SecretMasker
from toolplug_bash.session import ShellSession

REPEATS = 400
START_REPEATS = 30

REGISTRY = registry_from(toolplug_bash)


def make_tool(workspace: str, **params: object):
    """Create a bash tool the way a host does: from its (already loaded) registry."""
    return make_tools(workspace, **params)["bash"]


def make_tools(workspace: str, **params: object) -> dict:
    """The bash tool and its companions (bash_output, bash_stop), by name."""
    tools = REGISTRY.resolve(Tool("bash", params), ToolContext(workspace=Path(workspace)))
    return {tool.name: tool for tool in tools}


class PipeBash:
    """A floor: an already-open bash over plain pipes."""

    def __init__(self, cwd: str) -> None:
        self.process = subprocess.Popen(
            ["bash", "--norc", "--noprofile"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=cwd,
        )
        self.stdin = self.process.stdin.fileno()  # type: ignore[union-attr]
        self.stdout = self.process.stdout.fileno()  # type: ignore[union-attr]

    def round_trip(self, line: bytes, end: bytes) -> bytes:
        return _round_trip(self.stdin, self.stdout, line, end)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


class TerminalBash:
    """The raw terminal floor: bash on a pseudo-terminal with echo off, set up as the
    session's is (interactive, the terminal its controlling one, job control on, no
    prompt, no history), each command written and its output read back with plain
    ``os.write``/``os.read``: no parsing, no end-of-command protocol.

    ``protocol``: instead, the shell gets the session's own setup line, and a round
    trip types the session's line (``eval -- 'CMD'; __tp NONCE $?``) and reads up to
    its sentinel: what the end-of-command protocol costs bash, without the Python side.
    """

    def __init__(self, cwd: str, *, protocol: bool = False) -> None:
        master, slave = os.openpty()
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~(termios.ECHO | termios.ECHONL | termios.ECHOCTL)
        attrs[1] &= ~termios.OPOST
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        tty = os.ttyname(slave)
        self.process = subprocess.Popen(
            ["bash", "--norc", "--noprofile", "--noediting", "-i"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            start_new_session=True,
        )
        os.close(slave)
        self.fd = master
        if protocol:
            setup = ShellSession(
                shell="bash",
                cwd=Path(cwd),
                env={},
                workdir=Path(cwd),
                secrets=SecretMasker(()),
                hard_timeout=None,
            )
            setup._tty, setup._prompt_token = tty, b"0" * 16
            line = setup._setup_line()
            end = setup._setup_nonce + b";0;;" + cwd.encode() + b"\x1f"
        else:
            line = (
                f"exec 0<>{tty} 1>&0 2>&0; set -m +o history; unset HISTFILE MAILCHECK; "
                "PS1= PS2=; echo ready\n"
            ).encode()
            end = b"ready\n"
        self.round_trip(line, end)

    def round_trip(self, line: bytes, end: bytes) -> bytes:
        return _round_trip(self.fd, self.fd, line, end)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        os.close(self.fd)


def _round_trip(write_fd: int, read_fd: int, line: bytes, end: bytes) -> bytes:
    os.write(write_fd, line)
    data = bytearray()  # appended in place: long outputs arrive in many reads
    while not data.endswith(end):
        chunk = os.read(read_fd, 65536)
        if not chunk:
            raise RuntimeError(f"the floor's bash ended; read {bytes(data[-200:])!r}")
        data += chunk
    return bytes(data)


#: Output shapes of the round trip: name, command, the output's last bytes, rounds.
SHAPES = [
    ("short: echo hi (3 B)", "echo hi", b"hi\n", REPEATS),
    ("medium: seq 1 3000 (14 KB, shown whole)", "seq 1 3000", b"\n3000\n", REPEATS // 4),
    (
        "long: seq 1 100000 (589 KB, cut, saved)",
        "seq 1 100000",
        b"\n100000\n",
        REPEATS // 20,
    ),
]


def bench_round_trip(workspace: str) -> bool:
    """A warm command's round trip, for each output shape, against a raw terminal and
    against pipes; the protocol line shows how much of the gap is bash's own work."""
    tool = make_tool(workspace)
    pipes = PipeBash(workspace)
    terminal = TerminalBash(workspace)
    protocol = TerminalBash(workspace, protocol=True)
    ok = True
    try:
        assert tool.call({"command": "echo hi"}).output == "hi\n"
        for label, command, end, repeats in SHAPES:
            typed = command.encode() + b"\n"
            nonce = b"0123456789abcdef"
            quoted = b"eval -- '" + command.encode() + b"'; __tp " + nonce + b" $?\n"
            sentinel = b";0;;" + workspace.encode() + b"\x1f"
            expected = tool.call({"command": command}).output
            assert expected.endswith(end.decode()[-4:]), expected[-40:]
            medians = interleaved(
                {
                    "terminal": partial(terminal.round_trip, typed, end),
                    "pipes": partial(pipes.round_trip, typed, end),
                    "protocol": partial(protocol.round_trip, quoted, sentinel),
                    "call": partial(tool.call, {"command": command}),
                },
                repeats,
            )
            print(f"(medians of {repeats} rounds)")
            ours = medians["call"]
            ok &= report(
                "bash", f"{label}: tool.call vs raw terminal", ours, medians["terminal"], 1.3
            )
            ok &= report("bash", f"{label}: tool.call vs pipes", ours, medians["pipes"], 5)
            report(
                "bash",
                f"{label}: protocol line in bash vs raw terminal",
                medians["protocol"],
                medians["terminal"],
            )
    finally:
        for floor in (pipes, terminal, protocol):
            floor.close()
        tool.close()
    return ok


def bench_session_start(workspace: str) -> bool:
    def ours() -> None:
        tool = make_tool(workspace)
        assert tool.call({"command": "echo hi"}).output == "hi\n"
        tool.close()

    def floor() -> None:
        process = subprocess.Popen(["bash"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        out, _ = process.communicate(b"echo hi\n")
        assert out == b"hi\n"

    # Closing is not part of a start: time it out of the measure.
    def ours_start_only() -> float:
        with Stopwatch() as watch:
            tool = make_tool(workspace)
            tool.call({"command": "echo hi"})
        tool.close()
        return watch.wall

    def floor_timed() -> float:
        return median_time(floor, 1)

    ours()
    floor()
    times = interleaved_self_timed({"floor": floor_timed, "ours": ours_start_only}, START_REPEATS)
    return report(
        "bash", "session start + first echo hi (vs bare bash)", times["ours"], times["floor"], 2
    )


def bench_background_start(workspace: str) -> bool:
    """A background `echo hi` from start to its output, against the same in the
    foreground of a warm session, and against the floor of any background process:
    starting bash on a pseudo-terminal of its own and reading it to its end."""
    tools = make_tools(workspace, max_background=8)
    bash = tools["bash"]
    background = {"command": "echo hi", "run_in_background": True, "timeout": 10}
    try:
        assert bash.call(background).output == "hi\n"
        assert bash.call({"command": "echo hi"}).output == "hi\n"
        medians = interleaved(
            {
                "foreground": partial(bash.call, {"command": "echo hi"}),
                "background": partial(bash.call, background),
                "spawn": partial(_spawn_on_a_terminal, workspace),
            },
            START_REPEATS * 3,
        )
    finally:
        bash.close()
    # A background process is a process of its own: its start cannot be as cheap as a
    # line typed to a warm shell. The figure is shown; the target is the spawn's floor.
    report(
        "bash",
        "background echo hi: start to first output (vs a foreground call)",
        medians["background"],
        medians["foreground"],
        1.5,
    )
    return report(
        "bash",
        "background echo hi: start to first output (vs bash spawned on a pty)",
        medians["background"],
        medians["spawn"],
        1.5,
    )


def _spawn_on_a_terminal(workspace: str) -> None:
    """The floor of a background start: bash -c on a new pseudo-terminal, read to EOF."""
    master, slave = os.openpty()
    process = subprocess.Popen(
        ["bash", "-c", "echo hi"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=workspace,
        start_new_session=True,
    )
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # EIO: the terminal closed
            break
        if not chunk:
            break
        data += chunk
    process.wait()
    os.close(master)
    assert data.strip() == b"hi", data


def bench_background_read(workspace: str) -> bool:
    """bash_output of 1 MB of new output (shown whole), against reading the same bytes
    from a pipe (and decoding them)."""
    size = 1 << 20
    tools = make_tools(workspace, max_output=2 * size, max_background=8)
    bash, output = tools["bash"], tools["bash_output"]
    try:
        started = bash.call(
            {"command": f"head -c {size} /dev/zero | tr '\\0' x", "run_in_background": True}
        )
        number = started.process_id
        read = output.call({"process_id": number, "timeout": 60})
        assert read.state == "exited", read.text
        process = bash.executor.processes.get(number)
        assert process.log.total == size

        def ours() -> float:
            process.cursor = 0  # the whole megabyte is new output again
            with Stopwatch() as watch:
                seen = output.call({"process_id": number})
            assert len(seen.output) == size and seen.left_out == 0
            return watch.wall

        data = b"x" * size

        def floor() -> float:
            read_fd, write_fd = os.pipe()
            writer = threading.Thread(target=_write_all, args=(write_fd, data))
            with Stopwatch() as watch:
                writer.start()
                chunks = []
                while chunk := os.read(read_fd, 1 << 16):
                    chunks.append(chunk)
                text = b"".join(chunks).decode()
            writer.join()
            os.close(read_fd)
            assert len(text) == size
            return watch.wall

        times = interleaved_self_timed({"floor": floor, "ours": ours}, START_REPEATS)
    finally:
        bash.close()
    return report(
        "bash",
        "bash_output of 1 MB of new output (vs the same bytes from a pipe)",
        times["ours"],
        times["floor"],
        1.3,
    )


def _write_all(fd: int, data: bytes) -> None:
    with os.fdopen(fd, "wb") as pipe:
        pipe.write(data)


def _peak_growth(action: Callable[[], object]) -> float:
    """Peak RSS growth of this process while ``action`` runs, in bytes (Linux)."""

    def status(field: str) -> int:
        with open("/proc/self/status") as f:
            return int(next(x for x in f if x.startswith(field)).split()[1]) * 1024

    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS:")
    action()
    return status("VmHWM:") - before


def bench_memory(workspace: str) -> bool:
    tool = make_tool(workspace)
    try:
        tool.call({"command": "echo warm"})
        result: dict[str, object] = {}

        def ours() -> None:
            result["obs"] = tool.call({"command": "seq 1 5000000", "timeout": 60})

        growth = _peak_growth(ours)
        observation = result["obs"]
        assert observation.exit_code == 0 and observation.full_output_path  # type: ignore[attr-defined]
    finally:
        tool.close()

    def floor() -> None:  # the same output read whole, as a plain capture would hold it
        subprocess.run(["seq", "1", "5000000"], stdout=subprocess.PIPE, check=True)

    floor_growth = _peak_growth(floor)
    mib = 1024 * 1024
    return report(
        "bash",
        "seq 1 5000000 peak memory growth",
        growth / mib,
        max(floor_growth, 1) / mib,
        unit="MB",
        limit=50,
    )


def sandbox_problem() -> str | None:
    """Why the bubblewrap sandbox cannot run here (None: it can)."""
    try:
        sandbox.check_runs(sandbox.find_bwrap(os.environ.get("PATH")), network=False)
    except ToolError as exc:
        return str(exc)
    return None


def bench_sandbox_round_trip(workspace: str) -> bool:
    """A warm ``echo hi`` in the sandbox against the same outside it."""
    inside = make_tool(workspace, sandbox="bwrap")
    outside = make_tool(workspace)
    try:
        for tool in (inside, outside):
            assert tool.call({"command": "echo hi"}).output == "hi\n"
        medians = interleaved(
            {
                "outside": lambda: outside.call({"command": "echo hi"}),
                "inside": lambda: inside.call({"command": "echo hi"}),
            },
            REPEATS,
        )
    finally:
        inside.close()
        outside.close()
    return report(
        "bash",
        "sandbox: echo hi round trip (vs no sandbox)",
        medians["inside"],
        medians["outside"],
        1.2,
    )


def bench_sandbox_start(workspace: str) -> bool:
    """Creating the tool, then its first ``echo hi`` (which starts the shell), in the
    sandbox and outside it, alternated; closing is not timed."""

    def start(**params: object) -> float:
        with Stopwatch() as watch:
            tool = make_tool(workspace, **params)
            assert tool.call({"command": "echo hi"}).output == "hi\n"
        tool.close()
        return watch.wall

    start(sandbox="bwrap")  # the one-time probe of bwrap is not a session's start
    times = interleaved_self_timed(
        {"outside": start, "inside": partial(start, sandbox="bwrap")}, START_REPEATS
    )
    return report(
        "bash",
        "sandbox: session start + first echo hi",
        times["inside"],
        times["outside"],
        extra=0.060,
    )


def main() -> int:
    with tempfile.TemporaryDirectory() as workspace:
        workspace = os.path.realpath(workspace)
        ok = bench_round_trip(workspace)
        ok &= bench_session_start(workspace)
        ok &= bench_memory(workspace)
        ok &= bench_background_start(workspace)
        ok &= bench_background_read(workspace)
        problem = sandbox_problem()
        if problem is None:
            ok &= bench_sandbox_round_trip(workspace)
            ok &= bench_sandbox_start(workspace)
        else:
            print(f"sandbox benchmarks skipped: {problem}")
    save("bench_bash")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
