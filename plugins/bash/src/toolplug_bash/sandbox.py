"""The bash sandbox: bubblewrap's command line, the check that it runs here, and the
launch of a sandboxed shell with its resource limits and its pids cgroup.

The session does not know any of this: it is handed :meth:`Confinement.spawn`, which
starts its shell command inside the sandbox, and :meth:`Confinement.close`.

A sandboxed shell is started as a chain of three programs::

    bash -c 'limits; wait for the gate; exec "$@"'   (outside: becomes bwrap, same pid)
      bwrap --ro-bind / / ... --unshare-pid ...      (the sandbox, its own PID namespace)
        setsid bash --norc ... -i                    (the session's shell, inside)

The first one sets the resource limits (``ulimit``, inherited by everything below it
and not raisable inside, where every capability is dropped) and, when a pids cgroup
could be made, waits until the host has moved it into that cgroup, so that no process
of the sandbox is ever started outside it. ``setsid`` makes the shell a session leader
inside, so it can take the pseudo-terminal as its controlling terminal.

A host running as root is the case to design for (CI, containers): the shell inside is
still uid 0, with no capability. What the kernel grants to uid 0 without asking for a
capability is closed here one by one: the kernel's settings in ``/proc/sys`` are bound
read-only, the keyring and new user namespaces are refused by the system-call filter
(:mod:`toolplug_bash.seccomp`), and no writable file system lacks a size. A user
namespace would not help: uid 0 inside one is still the host's uid 0 to those checks.
"""

from __future__ import annotations

import fcntl
import functools
import os
import pwd
import queue
import resource
import secrets
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolplug import ToolError

from toolplug_bash import seccomp
from toolplug_bash.signals import with_default_signals

#: The ``sandbox`` param's values.
MODES = ("none", "bwrap")
#: The host variable that picks the mode when the param is not given.
ENV_VAR = "TOOLPLUG_BASH_SANDBOX"

#: How to get bubblewrap, for the error when it is missing.
INSTALL_HINT = (
    "Install bubblewrap: `apt-get install bubblewrap` (Debian, Ubuntu), "
    "`dnf install bubblewrap` (Fedora), `apk add bubblewrap` (Alpine) or "
    "`pacman -S bubblewrap` (Arch)"
)

#: Default resource limits: address space and file size in MiB, CPU seconds per
#: process, and processes (in the session's pids cgroup, and RLIMIT_NPROC).
DEFAULT_MAX_MEMORY_MB = 8192
DEFAULT_MAX_CPU_SECONDS = 3600
DEFAULT_MAX_PROCESSES = 512
DEFAULT_MAX_FILE_SIZE_MB = 1024
#: Default sizes of the sandbox's in-memory file systems, in MiB: the private ``/tmp``
#: (and each hidden home), and ``/dev/shm`` (Docker's default size for it).
DEFAULT_MAX_TMP_MB = 1024
DEFAULT_MAX_SHM_MB = 64

#: Files of a fresh ``/proc`` that root may write although it holds no capability (the
#: kernel checks only the owner there): global kernel settings, the SysRq trigger,
#: pressure triggers. Shown read-only, bound from the host's ``/proc``: what the
#: ``sys`` files show is read from the reader's own namespaces.
_PROC_READ_ONLY = ("/proc/sys", "/proc/sysrq-trigger", "/proc/pressure")
#: Files of ``/proc`` made unreadable (``/dev/null`` bound over them, which a ``nodev``
#: mount refuses to open): the keys of every keyring the user may view (as root, the
#: host's root keyrings), by id and description, and their owners' quotas.
_PROC_HIDDEN = ("/proc/keys", "/proc/key-users")

#: Where cgroup hierarchies are mounted.
_CGROUP_ROOT = Path("/sys/fs/cgroup")
#: ``ioctl`` that reads a terminal's session id (Linux, all but a few old ABIs).
_TIOCGSID = 0x5429


@dataclass(frozen=True)
class SandboxConfig:
    """What a sandboxed session is allowed: checked by ``BashTool.create``.

    Paths are absolute. A limit of ``None`` means no limit.
    """

    bwrap: str
    workspace: Path
    hidden: tuple[str, ...]
    read_only_paths: tuple[Path, ...] = ()
    writable_paths: tuple[Path, ...] = ()
    network: bool = False
    max_memory_mb: int | None = DEFAULT_MAX_MEMORY_MB
    max_cpu_seconds: int | None = DEFAULT_MAX_CPU_SECONDS
    max_processes: int | None = DEFAULT_MAX_PROCESSES
    max_file_size_mb: int | None = DEFAULT_MAX_FILE_SIZE_MB
    max_tmp_mb: int | None = DEFAULT_MAX_TMP_MB
    max_shm_mb: int | None = DEFAULT_MAX_SHM_MB


# -- is bubblewrap there, and can it run -------------------------------------------------


def find_bwrap(path: str | None) -> str:
    """The bwrap executable on ``path``; a :class:`ToolError` that says how to install it."""
    found = shutil.which("bwrap", path=path)
    if found is None:
        raise ToolError(
            "sandbox='bwrap' needs bubblewrap (the `bwrap` program), which is not on "
            f"PATH ({path or os.defpath}). {INSTALL_HINT}. The bash tool never runs "
            "unsandboxed when a sandbox was asked for."
        )
    return found


def check_runs(bwrap: str, *, network: bool) -> None:
    """Start an empty sandbox like a session's; a :class:`ToolError` with bwrap's own
    message when it cannot (no namespaces allowed here, a broken install)."""
    problem = _probe(bwrap, network)
    if problem is not None:
        raise ToolError(
            f"sandbox='bwrap' cannot run here: bubblewrap ({bwrap}) could not create a "
            f"sandbox: {problem}. {_why(problem)}The bash tool never runs unsandboxed "
            "when a sandbox was asked for."
        )


@functools.lru_cache(maxsize=8)
def _probe(bwrap: str, network: bool) -> str | None:
    """bwrap's error running ``setsid true`` in a sandbox like a session's, with its
    mounts and its system-call filter (None: it ran). Done once per process:
    namespaces do not come and go while a host runs."""
    filter_fd = seccomp_fd()
    try:
        with tempfile.TemporaryDirectory(prefix="toolplug-bash-probe-") as workspace:
            config = SandboxConfig(
                bwrap=bwrap, workspace=Path(workspace), hidden=(), network=network
            )
            argv = bwrap_args(config, session_dir=None, filter_fd=filter_fd)
            done = subprocess.run(
                [*argv, "true"],
                capture_output=True,
                timeout=30,
                stdin=subprocess.DEVNULL,
                pass_fds=() if filter_fd is None else (filter_fd,),
            )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    finally:
        if filter_fd is not None:
            os.close(filter_fd)
    if done.returncode == 0:
        return None
    message = done.stderr.decode("utf-8", errors="replace").strip()
    return message or f"it exited with status {done.returncode}"


def seccomp_fd() -> int | None:
    """A pipe's read end holding the system-call filter, for bubblewrap's ``--seccomp``
    (the caller closes it once bubblewrap has started); None where there is no filter."""
    program = seccomp.program()
    if program is None:
        return None
    read, write = os.pipe()
    try:
        os.write(write, program)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write)
    return read


def _why(problem: str) -> str:
    if "namespace" in problem or "Operation not permitted" in problem:
        return (
            "This system does not let this user create the namespaces bubblewrap needs "
            "(unprivileged user namespaces disabled by sysctl or AppArmor, or a container "
            "started without the rights to nest one). "
        )
    if "Unknown option" in problem:
        return "This bubblewrap is too old for the sandbox's options: install 0.8 or newer. "
    return ""


def _namespace_args(network: bool) -> list[str]:
    args = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        args.append("--unshare-net")
    return [*args, "--new-session", "--die-with-parent", "--cap-drop", "ALL"]


# -- the command line --------------------------------------------------------------------


def hidden_homes(env_home: str | None) -> tuple[str, ...]:
    """The home directories a sandbox hides: the session's ``HOME`` and the user's own."""
    homes = {env_home or ""}
    try:
        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        pass
    # A home that does not exist has nothing to hide (and no place to mount on).
    return tuple(sorted(h for h in homes if os.path.isabs(h) and h != "/" and os.path.isdir(h)))


def bwrap_args(
    config: SandboxConfig, *, session_dir: Path | None, filter_fd: int | None = None
) -> list[str]:
    """bubblewrap's arguments for one session, up to and including ``--`` and ``setsid``.

    Mounts are applied shallowest first (a hidden tmpfs before a bind at the same
    depth), so a path exposed inside a hidden one stays visible, and a home inside the
    workspace stays hidden. ``filter_fd`` holds the system-call filter (:func:`seccomp_fd`).
    """
    mounts: list[tuple[int, int, list[str]]] = []

    def add(path: str | Path, order: int, args: list[str]) -> None:
        mounts.append((len(Path(path).parts), order, args))

    add("/tmp", 0, [*_size(config.max_tmp_mb), "--tmpfs", "/tmp"])  # private, writable
    if os.path.isdir("/run"):
        # Host daemons' sockets (docker, dbus) hidden; empty, and read-only below.
        add("/run", 0, ["--size", str(1 << 20), "--tmpfs", "/run"])
    if config.network:
        resolver = os.path.realpath("/etc/resolv.conf")
        if resolver.startswith("/run/"):  # systemd-resolved's stub lives there
            folder = os.path.dirname(resolver)
            add(folder, 1, ["--ro-bind", folder, folder])
    for home in config.hidden:
        add(home, 0, [*_size(config.max_tmp_mb), "--tmpfs", home])
    for path in config.read_only_paths:
        add(path, 1, ["--ro-bind", os.path.realpath(path), str(path)])
    for path in config.writable_paths:
        add(path, 1, ["--bind", os.path.realpath(path), str(path)])
    workspace = str(config.workspace)
    add(workspace, 1, ["--bind", os.path.realpath(workspace), workspace])
    if session_dir is not None:
        # The session's own files (long commands, saved outputs): readable, not writable.
        add(session_dir, 2, ["--ro-bind", str(session_dir), str(session_dir)])
    args = [config.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for entry in _PROC_READ_ONLY:
        # /proc/sys must be there; the others only on kernels built with them.
        args += ["--ro-bind" if entry == "/proc/sys" else "--ro-bind-try", entry, entry]
    for entry in _PROC_HIDDEN:
        if os.path.exists(entry):  # the same kernel: then the sandbox's /proc has it
            args += ["--ro-bind", "/dev/null", entry]
    # /dev is a tmpfs that root could fill: read-only (its devices still work), with
    # /dev/shm a sized tmpfs of its own.
    args += [*_size(config.max_shm_mb), "--tmpfs", "/dev/shm"]
    for _, _, mount in sorted(mounts, key=lambda m: (m[0], m[1])):
        args += mount
    args += ["--remount-ro", "/dev"]
    if os.path.isdir("/run"):
        args += ["--remount-ro", "/run"]
    args += _namespace_args(config.network)
    if filter_fd is not None:
        args += ["--seccomp", str(filter_fd)]
    return [*args, "--chdir", workspace, "--setenv", "TMPDIR", "/tmp", "--", "setsid"]


def _size(megabytes: int | None) -> list[str]:
    """bubblewrap's size option for the next tmpfs (none: the kernel's default, half
    of the memory)."""
    return [] if megabytes is None else ["--size", str(megabytes << 20)]


def limit_script(config: SandboxConfig, gate_fd: int | None, stdio: Sequence[int]) -> str:
    """The outer shell's script: set the limits, wait for the gate, take ``stdio`` (the
    descriptors that become 0, 1 and 2) and ``exec "$@"``.

    The outer shell starts with its standard streams on /dev/null: a session leader
    that bash sees on a terminal would take it as its controlling terminal, and then
    the shell inside could not. A limit above the current hard limit is lowered to it
    (raising it would fail).
    """
    limits = []
    for flag, rlimit, value, unit in (
        ("-v", resource.RLIMIT_AS, config.max_memory_mb, 1024),  # in KiB
        ("-t", resource.RLIMIT_CPU, config.max_cpu_seconds, 1),
        ("-u", resource.RLIMIT_NPROC, config.max_processes, 1),
        ("-f", resource.RLIMIT_FSIZE, config.max_file_size_mb, 1024),  # 1024-byte blocks
    ):
        if value is None:
            continue
        _, current = resource.getrlimit(rlimit)
        scale = 1024 if flag in ("-v", "-f") else 1  # the kernel counts bytes

        def capped(wanted: int, current: int = current, scale: int = scale) -> int:
            return wanted if current == resource.RLIM_INFINITY else min(wanted, current // scale)

        if flag == "-t":
            # The hard limit a little later: at the soft one the process gets SIGXCPU
            # ("CPU time limit exceeded"), at the hard one SIGKILL.
            limits += [f"-S -t {capped(value)}", f"-H -t {capped(value + 5)}"]
        else:
            limits.append(f"{flag} {capped(value * unit)}")
    script = "".join(f"ulimit {limit} || exit 125; " for limit in limits)
    if gate_fd is not None:
        # Only the host's "go" opens the gate; a host gone before it ends the launch.
        script += f"read -r go <&{gate_fd} && [[ $go == go ]] || exit 125; "
    closing = " ".join(f"{fd}<&-" for fd in sorted({*stdio, *([gate_fd] if gate_fd else [])}))
    streams = f"0<&{stdio[0]} 1>&{stdio[1]} 2>&{stdio[2]}"
    return script + f'exec {streams} {closing}; exec "$@"'


# -- the launch --------------------------------------------------------------------------


class Confinement:
    """Starts a session's shell in the sandbox, and cleans up after it.

    One per session; :meth:`spawn` may be called again after :meth:`close` (a fresh
    shell after ``exit``) and makes a new cgroup each time.
    """

    def __init__(self, config: SandboxConfig, session_dir: Path) -> None:
        self.config = config
        self.session_dir = session_dir
        self.cgroup: PidsCgroup | None = None

    def spawn(self, argv: Sequence[str], **popen: Any) -> subprocess.Popen[bytes]:
        """Start ``argv`` (the shell's command) in the sandbox. Takes Popen's keywords;
        ``stdin``, ``stdout`` and ``stderr`` must be descriptors (the terminal's)."""
        self.close()
        stdio = [popen.pop(name) for name in ("stdin", "stdout", "stderr")]
        if not all(isinstance(fd, int) and fd > 2 for fd in stdio):
            raise ValueError("a sandboxed shell's streams must be descriptors above 2")
        self.cgroup = PidsCgroup.create(self.config.max_processes)
        gate_read, gate_write = os.pipe() if self.cgroup is not None else (None, None)
        filter_fd = seccomp_fd()
        command = [
            argv[0],  # the session's bash runs the limits script too
            "-c",
            limit_script(self.config, gate_read, stdio),
            "toolplug-sandbox",
            *bwrap_args(self.config, session_dir=self.session_dir, filter_fd=filter_fd),
            *with_default_signals(argv),
        ]
        extra = [fd for fd in (*stdio, gate_read, filter_fd) if fd is not None]
        popen["pass_fds"] = (*popen.get("pass_fds", ()), *extra)
        null = subprocess.DEVNULL
        try:
            process: subprocess.Popen[bytes] = _spawner.call(
                lambda: subprocess.Popen(command, stdin=null, stdout=null, stderr=null, **popen)
            )
        finally:
            for fd in (gate_read, filter_fd):
                if fd is not None:
                    os.close(fd)
        if self.cgroup is None or gate_write is None:
            return process
        try:
            self.cgroup.add(process.pid)
            os.write(gate_write, b"go\n")
        except OSError:
            process.kill()
            process.wait()
            self.close()
            raise
        finally:
            os.close(gate_write)
        return process

    def close(self) -> None:
        """Kill what is left in the session's cgroup and remove it."""
        cgroup, self.cgroup = self.cgroup, None
        if cgroup is not None:
            cgroup.remove()


def terminal_session(fd: int) -> int | None:
    """The session id (the shell's pid, as this host sees it) that owns the terminal
    whose master end is ``fd``; None while no process has made it its terminal."""
    try:
        raw = fcntl.ioctl(fd, _TIOCGSID, b"\0\0\0\0")
    except OSError:
        return None
    sid: int = struct.unpack("i", raw)[0]
    return sid if sid > 0 else None


class PidsCgroup:
    """A per-session cgroup of the pids controller (v1 or v2), capping the number of
    processes: unlike RLIMIT_NPROC, it also holds for root and counts only the session.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, max_processes: int | None) -> PidsCgroup | None:
        """Make one under this process's pids cgroup; None when this host cannot."""
        if max_processes is None:
            return None
        for parent in _pids_parents():
            path = parent / f"toolplug-bash-{secrets.token_hex(6)}"
            try:
                path.mkdir()
            except OSError:
                continue
            try:
                (path / "pids.max").write_text(f"{max_processes}\n")
            except OSError:
                path.rmdir()
                continue
            return cls(path)
        return None

    def add(self, pid: int) -> None:
        """Move a process into the cgroup (its children are born there)."""
        (self.path / "cgroup.procs").write_text(f"{pid}\n")

    def pids(self) -> list[int]:
        """The processes in the cgroup."""
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def remove(self) -> None:
        """Kill every process in it, then remove it (bounded: a few seconds)."""
        deadline = time.monotonic() + 5.0
        while True:
            left = self.pids()
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                self.path.rmdir()
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # left behind empty-ish; the kernel frees it when unused
                time.sleep(0.005 if left else 0.02)


def _pids_parents() -> list[Path]:
    """Where this process may make a pids cgroup: its own pids cgroup (v1), or, in a
    v2 hierarchy, its own cgroup or its parent where ``pids`` is delegated to children.
    """
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        number, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        if "pids" in controllers.split(","):
            found.append(_CGROUP_ROOT / "pids" / relative)
        elif number == "0" and (_CGROUP_ROOT / "cgroup.controllers").exists():
            own = _CGROUP_ROOT / relative
            for candidate in (own, own.parent):
                try:
                    control = (candidate / "cgroup.subtree_control").read_text().split()
                except OSError:
                    continue
                if "pids" in control:
                    found.append(candidate)
    return found


class _Spawner:
    """Starts processes from one thread that lasts as long as the host process.

    ``--die-with-parent`` kills the sandbox when its parent *thread* ends (that is
    how the kernel's parent-death signal works); a session started from a worker
    thread that later exits (anyio's exit when idle) would die with it.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def call(self, job: Callable[[], Any]) -> Any:
        """Run ``job`` in the spawner thread; its result, or its exception."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._serve, name="toolplug-bash-spawner", daemon=True
                )
                self._thread.start()
        done: Future[Any] = Future()
        self._jobs.put((job, done))
        return done.result()

    def _serve(self) -> None:
        while True:
            job, done = self._jobs.get()
            try:
                done.set_result(job())
            except BaseException as exc:  # handed to the caller, which raises it
                done.set_exception(exc)


_spawner = _Spawner()

__all__ = [
    "DEFAULT_MAX_CPU_SECONDS",
    "DEFAULT_MAX_FILE_SIZE_MB",
    "DEFAULT_MAX_MEMORY_MB",
    "DEFAULT_MAX_PROCESSES",
    "DEFAULT_MAX_SHM_MB",
    "DEFAULT_MAX_TMP_MB",
    "ENV_VAR",
    "MODES",
    "Confinement",
    "PidsCgroup",
    "SandboxConfig",
    "bwrap_args",
    "check_runs",
    "find_bwrap",
    "hidden_homes",
    "limit_script",
    "seccomp_fd",
    "terminal_session",
]
