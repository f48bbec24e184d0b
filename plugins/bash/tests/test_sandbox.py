"""The bubblewrap sandbox: each escape is tried through the real tool, and shown to fail
without touching the host; then what a host sees when bubblewrap cannot run.

Tests that take ``jail`` or ``make_jail`` run twice: as the user running the tests (root
in CI and containers) and as uid 65534 (see jails.py). The escapes found in issue #26
are in test_adversarial.py.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import MakeBash, alive, need_bwrap
from toolplug import Tool, ToolContext, ToolDefinition, ToolError, ToolParamsError
from toolplug.testing import registry_from, wait_until
from toolplug_bash import sandbox, seccomp
from toolplug_bash.procs import all_processes, command_line, processes_with_env

if TYPE_CHECKING:
    from jails import Jail, MakeJail

Bash = ToolDefinition[Any, Any]

#: The unprivileged user the jails switch to (jails.NOBODY).
NOBODY_UID = 65534

pytest_plugins = ("jails",)


def run(tool: Bash, command: str, **arguments: Any) -> Any:
    """Call the tool; the call itself must not fail (the command may)."""
    observation = tool.call({"command": command, **arguments})
    assert not observation.is_error, observation.text
    return observation


@pytest.fixture
def tool(make_bash: MakeBash) -> Bash:
    """A bash tool in the sandbox with the default rights and limits, in this process."""
    need_bwrap()
    return make_bash(sandbox="bwrap")


@pytest.fixture
def host_sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A real process of the host, that the sandbox must neither see nor kill."""
    process = subprocess.Popen(["sleep", "1000"])
    yield process
    process.kill()
    process.wait()


def real_home() -> Path:
    return Path(pwd.getpwuid(os.getuid()).pw_dir)


def processes_running(argument: str) -> list[int]:
    """Host processes with ``argument`` among their arguments."""
    return [p.pid for p in all_processes() if argument in (command_line(p.pid) or [])]


# -- the file system -----------------------------------------------------------------------


def test_writes_outside_the_workspace_fail_and_the_host_is_untouched(jail: Jail) -> None:
    token = secrets.token_hex(6)
    targets = [f"/etc/escape-{token}", f"/usr/escape-{token}", f"/var/tmp/escape-{token}"]
    writes = "; ".join(f"echo x > {t} && echo WROTE {t}" for t in targets)
    output = jail.run(f"{writes}; echo inside > in-workspace.txt; echo secret > /tmp/{token}")
    assert "WROTE" not in output
    assert output.count("Read-only file system") == len(targets)
    assert not any(Path(t).exists() for t in targets)
    # The workspace is writable; the sandbox's /tmp is its own.
    assert (jail.workspace / "in-workspace.txt").read_text() == "inside\n"
    assert jail.run(f"cat /tmp/{token}") == "secret\n"
    assert not Path(f"/tmp/{token}").exists()


def test_the_real_home_is_hidden(make_bash: MakeBash, tmp_path: Path) -> None:
    need_bwrap()
    home = real_home()
    token = secrets.token_hex(6)
    secret = home / f".toolplug-sandbox-test-{token}"
    try:
        secret.write_text(f"key-{token}\n")
    except OSError as exc:
        pytest.skip(f"the home {home} is not writable here to plant a secret: {exc}")
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "note.txt").write_text("read me\n")
    try:
        jail = make_bash(workspace=tmp_path / "shared", sandbox="bwrap", read_only_paths=[])
        observation = run(jail, f"cat {secret}; cat ~/{secret.name}; ls -A {home} | wc -l")
        assert f"key-{token}" not in observation.output
        assert observation.output.count("No such file or directory") == 2
        assert observation.output.splitlines()[-1] == "0"
        # What the params expose is seen: read-only, or writable.
        exposed = make_bash(
            workspace=tmp_path / "shared",
            sandbox="bwrap",
            read_only_paths=[str(secret)],
            writable_paths=[str(tmp_path)],
        )
        seen = run(exposed, f"cat {secret}; echo x >> {secret}; echo y > {tmp_path}/rw.txt")
        assert seen.output.splitlines()[0] == f"key-{token}"
        assert "Read-only file system" in seen.output
        assert secret.read_text() == f"key-{token}\n"
        assert (tmp_path / "rw.txt").read_text() == "y\n"
    finally:
        secret.unlink()


def test_the_sessions_home_is_hidden(make_jail: MakeJail) -> None:
    # A home of the session's user, with a secret in it (made on the host side).
    home = Path(tempfile.mkdtemp(prefix="toolplug-home-", dir="/tmp"))
    try:
        (home / ".token").write_text("key-123\n")
        jail = make_jail(env={"HOME": str(home)})
        if jail.user == "nobody":
            os.chown(home, NOBODY_UID, NOBODY_UID)
            os.chown(home / ".token", NOBODY_UID, NOBODY_UID)
        output = jail.run(f"cat ~/.token {home}/.token; ls -A ~ | wc -l; echo $HOME")
        assert "key-123" not in output
        assert output.count("No such file or directory") == 2
        assert output.splitlines()[-2:] == ["0", str(home)]
    finally:
        shutil.rmtree(home)


# -- processes -----------------------------------------------------------------------------


def test_host_processes_can_be_neither_seen_nor_killed(
    jail: Jail, host_sleeper: subprocess.Popen[bytes]
) -> None:
    pid = host_sleeper.pid
    output = jail.run(
        f"ls /proc | grep -cx '[0-9]*'; ls -d /proc/{pid} 2>&1; kill -9 {pid}; "
        "kill -9 -1; echo survived",
    )
    lines = output.splitlines()
    assert int(lines[0]) <= 4  # the sandbox's init, the shell, ls and grep
    assert "No such file or directory" in lines[1]
    assert "No such process" in output
    assert lines[-1] == "survived"  # kill -1 reached only the sandbox's own processes
    time.sleep(0.2)
    assert host_sleeper.poll() is None and alive(pid)
    assert jail.run("echo still here") == "still here\n"


def test_no_descriptor_of_the_host_is_held_inside(jail: Jail) -> None:
    # Every process of the sandbox holds only its terminal, pipes made inside, and
    # bubblewrap's own event descriptor: no file, socket or terminal of the host.
    output = jail.run("for p in /proc/[0-9]*/fd/*; do readlink $p; done 2>/dev/null | sort -u")
    held = output.split()
    inside = ("/dev/null", "/dev/pts/", "pipe:[", "anon_inode:[eventfd]", "/proc/")
    assert held and all(target.startswith(inside) for target in held), held


def test_a_setuid_binary_gains_nothing(jail: Jail) -> None:
    # A setuid copy of cat in the workspace, owned by root when the tests can make it
    # so: it runs as the user who started it, with no capability.
    suid = jail.workspace / "suidcat"
    shutil.copy("/bin/cat", suid)
    if os.getuid() == 0:
        os.chown(suid, 0, 0)
    suid.chmod(0o4755)
    output = jail.run(
        "ls -l suidcat | cut -c1-10; id -u; "
        "./suidcat /proc/self/status | grep -E '^(Uid|CapEff|CapPrm|NoNewPrivs)'; "
        "mount -t tmpfs none /mnt 2>&1 | head -1"
    )
    lines = output.splitlines()
    assert lines[0] == "-rwsr-xr-x"
    uid = lines[1]
    assert lines[2].split()[1:3] == [uid, uid]  # real and effective: unchanged
    assert "CapEff:\t0000000000000000" in lines
    assert "CapPrm:\t0000000000000000" in lines
    assert "NoNewPrivs:\t1" in lines
    # mount, refused: by the kernel as root, by mount itself (setuid ignored) otherwise.
    assert "permission denied" in lines[-1].lower() or "superuser" in lines[-1]


def test_a_fork_bomb_is_capped_and_ends_with_the_session(make_bash: MakeBash) -> None:
    need_bwrap()
    limit = 48
    jail = make_bash(sandbox="bwrap", max_processes=limit)
    run(jail, "echo warm")
    session = jail.executor.session
    cgroup = session.confinement.cgroup
    if cgroup is None:
        # Then only RLIMIT_NPROC applies: it counts every process of the user (and
        # none of root's), so the count below would not be the session's.
        pytest.skip("no pids cgroup can be made here (see docs/tools/bash.md)")
    marker = b"TOOLPLUG_BASH_SESSION=" + session._token
    started = run(jail, ":(){ :|:& };:", timeout=5)
    assert not started.running  # the bomb went to the background at once
    seen = [0]

    def at_the_cap() -> bool:
        seen.append(int((cgroup.path / "pids.current").read_text()))
        return max(seen) >= limit

    wait_until(at_the_cap, timeout=20, interval=0.02, what=f"the bomb to reach {limit}")
    time.sleep(0.5)  # the bomb keeps trying
    peak = max(*seen, int((cgroup.path / "pids.current").read_text()))
    assert peak == limit  # it reached the cap, and never went past it
    refused = int((cgroup.path / "pids.events").read_text().split()[-1])
    assert refused > 0  # the cgroup is what refused its forks
    # The host still starts processes while the bomb runs.
    assert subprocess.run(["true"], check=False).returncode == 0
    jail.close()
    assert processes_with_env(marker) == []
    assert not cgroup.path.exists()


def uid_processes(uid: int) -> set[int]:
    """Live host processes whose real user is ``uid``."""
    found = set()
    for proc in all_processes():
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:
            continue
        uids = next(line for line in status.splitlines() if line.startswith("Uid:"))
        if int(uids.split()[1]) == uid and alive(proc.pid):
            found.add(proc.pid)
    return found


def test_a_fork_bomb_of_an_unprivileged_user_is_capped_and_ends_with_the_session() -> None:
    # No pids cgroup can be made by that user: RLIMIT_NPROC holds it, counting the
    # user's processes (its driver's among them).
    from jails import NOBODY, unprivileged_jail  # (once pytest has loaded the plugin)

    limit = 48
    before = uid_processes(NOBODY)
    jail = unprivileged_jail(max_processes=limit)
    try:
        jail.run("echo warm")
        jail.run(":(){ :|:& };:", timeout=5)
        peak = 0
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            peak = max(peak, len(uid_processes(NOBODY) - before))
            time.sleep(0.05)
        assert limit // 2 < peak <= limit
        # The host still starts processes while the bomb runs.
        assert subprocess.run(["true"], check=False).returncode == 0
    finally:
        jail.close()
    assert uid_processes(NOBODY) - before == set()


def test_a_2_gb_file_write_stops_at_the_file_size_limit(make_jail: MakeJail) -> None:
    # The default limit (1 GiB) refuses a 2 GB file at once (a sparse one: no disk).
    jail = make_jail()
    output = jail.run("truncate -s 2G sparse.bin; echo status $?")
    assert "File too large" in output or "File size limit" in output
    sparse = jail.workspace / "sparse.bin"
    assert not sparse.exists() or sparse.stat().st_size < 2**31
    # A real write of 2 GB stops at a small limit: the writer is killed (SIGXFSZ).
    small = make_jail(max_file_size_mb=8)
    written = small.run("head -c 2G /dev/zero > big.bin; echo status $?")
    assert written.splitlines()[-1] == "status 153"  # 128 + SIGXFSZ
    assert (small.workspace / "big.bin").stat().st_size == 8 * 2**20


def test_the_limits_are_set_and_cannot_be_raised(make_jail: MakeJail) -> None:
    defaults = make_jail().run("ulimit -v; ulimit -t; ulimit -u; ulimit -f")
    assert defaults.split() == ["8388608", "3600", "512", "1048576"]
    jail = make_jail(max_memory_mb=512, max_cpu_seconds=5, max_processes=0, max_file_size_mb=1)
    limits = jail.run("ulimit -v; ulimit -t; ulimit -f; ulimit -Hv; ulimit -v unlimited; echo $?")
    assert limits.split()[:4] == ["524288", "5", "1024", "524288"]
    assert limits.splitlines()[-1] != "0"
    # A program past its address space fails to allocate; the session lives on.
    grab = jail.run("python3 -c 'x = bytearray(1 << 30)' 2>&1 | tail -1")
    assert "MemoryError" in grab
    assert jail.run("echo alive") == "alive\n"


def test_a_cpu_burner_is_stopped_at_its_cpu_limit(make_jail: MakeJail) -> None:
    jail = make_jail(max_cpu_seconds=1)
    output = jail.run("bash -c 'while :; do :; done'; echo status $?", timeout=30)
    assert output.splitlines()[-1] == "status 152"  # 128 + SIGXCPU
    assert "CPU time limit exceeded" in output


def test_nothing_started_in_the_sandbox_outlives_close(jail: Jail) -> None:
    tag = f"1000.{secrets.randbelow(10**9)}"
    jail.run(
        f"nohup sleep {tag}1 >/dev/null 2>&1 & setsid sleep {tag}2 & "
        f"( setsid sh -c 'sleep {tag}3 & exit' & ) ; env -i setsid sleep {tag}4 &",
    )
    wait_until(lambda: len(processes_running_prefix(tag)) >= 4, timeout=10, what="the four sleeps")
    started = processes_running_prefix(tag)
    assert len(started) == 4  # one even cleared its environment, the session's marker
    jail.close()
    assert processes_running_prefix(tag) == []
    assert not any(alive(p) for p in started)


def test_a_session_started_from_a_thread_that_ends_lives_on(tool: Bash) -> None:
    # --die-with-parent kills the sandbox when the *thread* that started it ends (the
    # kernel's parent-death signal): hosts run calls in worker threads that come and go.
    first: list[Any] = []
    worker = threading.Thread(target=lambda: first.append(tool.call({"command": "X=1"})))
    worker.start()
    worker.join(30)
    assert first and not first[0].is_error, first
    time.sleep(0.3)
    assert run(tool, "echo $X").output == "1\n"


def processes_running_prefix(prefix: str) -> list[int]:
    found = []
    for proc in all_processes():
        argv = command_line(proc.pid) or []
        if len(argv) == 2 and argv[0] == "sleep" and argv[1].startswith(prefix) and alive(proc.pid):
            found.append(proc.pid)
    return found


# -- the network ---------------------------------------------------------------------------


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP socket listening on 127.0.0.1 outside the sandbox."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def connect_command(port: int) -> str:
    return f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo connected || echo refused"


def test_no_network_reaches_the_hosts_loopback(jail: Jail, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    interfaces = "tail -n +3 /proc/net/dev | cut -d: -f1"
    # /run, where the host's daemons keep their sockets (docker, D-Bus), is empty.
    output = jail.run(f"{connect_command(port)}; {interfaces}; ls -A /run | wc -l")
    assert output.split() == ["refused", "lo", "0"]
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing came


def test_network_true_keeps_the_hosts_network(make_jail: MakeJail, listener: socket.socket) -> None:
    jail = make_jail(network=True)
    port = listener.getsockname()[1]
    assert jail.run(connect_command(port)) == "connected\n"
    listener.setblocking(True)
    listener.settimeout(10)
    accepted, _ = listener.accept()
    accepted.close()


# -- choosing the sandbox, and when it cannot run ----------------------------------------


def resolve(tmp_path: Path, env: dict[str, str] | None = None, **params: Any) -> Bash:
    context = ToolContext(workspace=tmp_path, env=env if env is not None else dict(os.environ))
    import toolplug_bash

    (tool,) = registry_from(toolplug_bash).resolve(Tool("bash", params), context)
    return tool


def test_the_environment_variable_turns_the_sandbox_on_and_the_param_wins(
    tmp_path: Path,
) -> None:
    need_bwrap()
    env = {**os.environ, "TOOLPLUG_BASH_SANDBOX": "bwrap"}
    sandboxed = resolve(tmp_path, env)
    plain = resolve(tmp_path, env, sandbox="none")
    try:
        assert run(sandboxed, "touch /etc/x 2>&1").output.endswith("Read-only file system\n")
        # Unsandboxed, the shell sees the host's processes (this test's among them).
        assert str(os.getpid()) in run(plain, "ls /proc").output.split()
    finally:
        sandboxed.close()
        plain.close()


def test_missing_bubblewrap_fails_at_creation_and_says_how_to_install(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bash").symlink_to(Path("/bin/bash").resolve())
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path)}
    for how in ({"sandbox": "bwrap"}, {}):
        with pytest.raises(ToolError) as raised:
            resolve(tmp_path, {**env, "TOOLPLUG_BASH_SANDBOX": "bwrap"} if not how else env, **how)
        message = str(raised.value)
        assert "apt-get install bubblewrap" in message
        assert "never runs unsandboxed" in message


def test_a_bwrap_that_cannot_make_namespaces_is_reported_with_its_error(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bash").symlink_to(Path("/bin/bash").resolve())
    fake = bin_dir / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because "
        "the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    with pytest.raises(ToolError) as raised:
        resolve(tmp_path, {"PATH": str(bin_dir)}, sandbox="bwrap")
    message = str(raised.value)
    assert "No permissions to create new namespace" in message
    assert "cannot run here" in message and "namespaces" in message


def test_a_sandbox_that_cannot_start_says_why(make_bash: MakeBash, tmp_path: Path) -> None:
    need_bwrap()
    exposed = tmp_path / "exposed"
    exposed.mkdir()
    jail = make_bash(workspace=tmp_path, sandbox="bwrap", writable_paths=[str(exposed)])
    exposed.rmdir()  # gone between the tool's creation and the shell's start
    observation = jail.call({"command": "echo hi"})
    assert "shell exited" in observation.text
    assert "bwrap: Can't find source path" in observation.output


@pytest.mark.parametrize(
    "params",
    [
        {"sandbox": "docker"},
        {"network": True},
        {"sandbox": "bwrap", "max_processes": -1},
        {"sandbox": "bwrap", "max_memory_mb": 1.5},
        {"sandbox": "bwrap", "read_only_paths": "/etc"},
        {"sandbox": "bwrap", "writable_paths": ["/no/such/path"]},
    ],
)
def test_bad_sandbox_params_are_refused(tmp_path: Path, params: dict[str, Any]) -> None:
    if params.get("sandbox") == "bwrap":
        need_bwrap()
    with pytest.raises(ToolParamsError):
        resolve(tmp_path, **params)


def test_a_bad_environment_value_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolParamsError, match="TOOLPLUG_BASH_SANDBOX"):
        resolve(tmp_path, {**os.environ, "TOOLPLUG_BASH_SANDBOX": "firejail"})


def test_the_command_line(tmp_path: Path) -> None:
    # Later mounts cover earlier ones: the hidden home comes before a workspace in it,
    # and a read-only path inside the workspace after the workspace.
    home = tmp_path / "home"
    workspace = home / "project"
    inner = workspace / ".git"
    config = sandbox.SandboxConfig(
        bwrap="/usr/bin/bwrap",
        workspace=workspace,
        hidden=(str(home),),
        read_only_paths=(inner,),
    )
    args = sandbox.bwrap_args(config, session_dir=tmp_path / "session")
    joined = " ".join(args)
    assert joined.index(f"--tmpfs {home}") < joined.index(f"--bind {workspace} {workspace}")
    assert joined.index(f"--bind {workspace} ") < joined.index(f"--ro-bind {inner} {inner}")
    for flag in ("--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session"):
        assert flag in args
    assert args[args.index("--cap-drop") + 1] == "ALL"
    assert args[-2:] == ["--", "setsid"]
    # /proc/sys bound read-only over the fresh /proc; the in-memory file systems sized;
    # /dev and /run made read-only after everything is mounted in them.
    assert joined.index("--proc /proc") < joined.index("--ro-bind /proc/sys /proc/sys")
    assert f"--size {1024 << 20} --tmpfs /tmp" in joined
    assert f"--size {1024 << 20} --tmpfs {home}" in joined
    assert f"--size {64 << 20} --tmpfs /dev/shm" in joined
    assert joined.index("--tmpfs /dev/shm") < joined.index("--remount-ro /dev")
    for tried in ("/proc/sysrq-trigger", "/proc/pressure"):  # kernels may lack them
        assert f"--ro-bind-try {tried} {tried}" in joined
    if Path("/proc/keys").exists():
        assert "--ro-bind /dev/null /proc/keys" in joined
    if Path("/run").is_dir():
        assert joined.index("--tmpfs /run") < joined.index("--remount-ro /run")
    assert "--seccomp" not in args  # only with a filter's descriptor
    unlimited = sandbox.SandboxConfig(
        bwrap="bwrap", workspace=workspace, hidden=(), max_tmp_mb=None, max_shm_mb=None
    )
    plain = sandbox.bwrap_args(unlimited, session_dir=tmp_path, filter_fd=7)
    assert "--size" not in " ".join(plain).replace("--size 1048576 --tmpfs /run", "")
    assert plain[plain.index("--seccomp") + 1] == "7"
    opened = sandbox.bwrap_args(
        sandbox.SandboxConfig(bwrap="bwrap", workspace=workspace, hidden=(), network=True),
        session_dir=tmp_path,
    )
    assert "--unshare-net" not in opened


# -- the system-call filter's program, for every machine it is built for ---------------
#
# The sandbox tests run it in the kernel on this machine. For the other entry points,
# a small interpreter of the classic BPF instructions it uses reads the program.

#: audit arch -> (add_key, request_key, keyctl, unshare, clone, clone3, a harmless call),
#: from the kernel's system-call tables.
ENTRY_POINTS = {
    "x86_64": {
        0xC000003E: (248, 249, 250, 272, 56, 435, 39),  # getpid
        0x40000003: (286, 287, 288, 310, 120, 435, 20),  # i386; getpid
    },
    "aarch64": {
        0xC00000B7: (217, 218, 219, 97, 220, 435, 172),  # getpid
        0x40000028: (309, 310, 311, 337, 120, 435, 20),  # 32-bit ARM; getpid
    },
}
ALLOW, EPERM, ENOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38


def filtered(program: bytes, arch: int, nr: int, flags: int = 0) -> int:
    """What the program returns for a call (``flags``: its first argument)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, flags, 0, 0, 0, 0, 0)
    code = [struct.unpack_from("=HBBI", program, at) for at in range(0, len(program), 8)]
    accumulator, pc = 0, 0
    while True:
        op, if_true, if_false, k = code[pc]  # an IndexError: a jump out of the program
        if op == 0x20:  # load a word of the data
            accumulator, pc = struct.unpack_from("=I", data, k)[0], pc + 1
            continue
        if op == 0x06:  # return
            return k
        taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: accumulator & k}[op]
        pc += 1 + (if_true if taken else if_false)


@pytest.mark.parametrize("machine", sorted(ENTRY_POINTS))
def test_the_filter_program_refuses_what_it_says_on_every_entry_point(machine: str) -> None:
    program = seccomp.program(machine)
    assert program is not None
    for arch, numbers in ENTRY_POINTS[machine].items():
        add_key, request_key, keyctl, unshare, clone, clone3, harmless = numbers
        for nr in (add_key, request_key, keyctl):
            assert filtered(program, arch, nr) == EPERM
        assert filtered(program, arch, unshare, 0x10000000) == EPERM  # CLONE_NEWUSER
        assert filtered(program, arch, clone, 0x10000000 | 0x11) == EPERM
        assert filtered(program, arch, unshare, 0x00020000) == ALLOW  # CLONE_NEWNS
        assert filtered(program, arch, clone, 0x01200011) == ALLOW  # fork's flags
        assert filtered(program, arch, clone3) == ENOSYS
        assert filtered(program, arch, harmless) == ALLOW
    # An entry point the machine does not have is refused; so is x86-64's x32.
    assert filtered(program, 0xDEADBEEF, 0) == ENOSYS
    if machine == "x86_64":
        assert filtered(program, 0xC000003E, 0x40000000 | 250) == ENOSYS
    assert seccomp.program("riscv64") is None
