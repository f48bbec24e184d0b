"""What a hostile or unlucky world does to the bash tool, through a real bash.

Most tests are one way the session used to break (issue #13): a host holding more
than 1,024 descriptors, a timeout that is not a number, a command that prints the
completion marker, a command that reprograms the session (``exec bash``, ``exec cat``,
``PROMPT_COMMAND=``, ``exec >/dev/null``, ``stty echo``), and the environment a served
client's shell sees; the others pin down what must stay as it is (a library host's
environment, a long host timeout). Waits have generous limits whose expiry fails the
test; nothing is timed.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import platform
import resource
import secrets
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import toolplug_bash
from conftest import MakeBash, both_modes, need_bwrap
from hypothesis import HealthCheck, given, settings, strategies as st
from toolplug import Tool, ToolContext, ToolDefinition, ToolParamsError
from toolplug.testing import params_listing, registry_from, run_toolplug

if TYPE_CHECKING:
    from jails import Jail, MakeJail

Bash = ToolDefinition[Any, Any]

#: The sandbox cases' fixtures: ``jail`` and ``make_jail``, as root and as uid 65534.
pytest_plugins = ("jails",)

#: Examples per property: enough to find a seam, few enough to keep the suite quick.
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def run(tool: Bash, command: str, **arguments: Any) -> Any:
    """Call the tool; the observation must be a valid, non-error result."""
    observation = tool.call({"command": command, **arguments})
    assert not observation.is_error, observation.text
    return observation


def bash_with(context: ToolContext, **params: Any) -> Bash:
    """A bash tool created as a host creates it, in ``context``."""
    (tool,) = registry_from(toolplug_bash).resolve(Tool("bash", params), context)
    return tool


# -- descriptors past 1,024 ------------------------------------------------------------


@pytest.fixture
def many_descriptors() -> Iterator[int]:
    """Hold /dev/null open until descriptor numbers pass 1,100 (raising the soft limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1400
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the hard descriptor limit ({hard}) is below {wanted}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    held: list[int] = []
    try:
        while not held or held[-1] < 1100:
            held.append(os.open(os.devnull, os.O_RDONLY))
        yield held[-1]
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_host_holding_over_1024_descriptors_still_runs_commands(
    many_descriptors: int, make_bash: MakeBash, tmp_path: Path
) -> None:
    assert many_descriptors >= 1100
    bash = make_bash(timeout=60)
    first = run(bash, "export MARK=kept; echo hi")
    assert first.output == "hi\n"
    assert first.exit_code == 0
    # The session's own descriptors are past 1,024 too: it keeps working and keeps state.
    second = run(bash, 'echo "$MARK"; (exit 3)')
    assert second.output == "kept\n"
    assert second.exit_code == 3
    # Waiting (a timeout, then input) also goes through the same waits.
    waiting = run(bash, "read -r answer; echo got $answer", timeout=1)
    assert waiting.waiting_for_input
    assert run(bash, "yes", is_input=True).output.endswith("got yes\n")


@both_modes
def test_a_session_closed_under_a_waiting_call_is_an_error_not_an_exit(
    make_bash: MakeBash,
) -> None:
    bash = make_bash(timeout=60)
    run(bash, "true")
    results: list[Any] = []
    caller = threading.Thread(target=lambda: results.append(bash.call({"command": "sleep 50"})))
    caller.start()
    session = bash.executor.session
    # Wait (bounded) until the call is in flight, then close the tool under it.
    for _ in range(2000):
        if session is not None and session.running:
            break
        threading.Event().wait(0.005)
    assert session is not None and session.running
    bash.close()
    caller.join(30)
    assert not caller.is_alive()
    (observation,) = results
    assert observation.is_error, observation.text
    assert "closed" in observation.text


# -- timeouts ----------------------------------------------------------------------------


BAD_TIMEOUTS = st.one_of(
    st.sampled_from([math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0]),
    st.floats(max_value=0.0),
)


@FUZZ
@given(timeout=BAD_TIMEOUTS)
def test_a_bad_host_timeout_is_refused_and_the_session_lives_on(bash: Bash, timeout: float) -> None:
    run(bash, "export ALIVE=yes")
    observation = bash.call({"command": "echo should-not-run"}, timeout=timeout)
    assert observation.is_error, observation.text
    assert "should-not-run" not in observation.text
    # The same shell, with its state, answers the next call.
    assert run(bash, 'echo "$ALIVE"').output == "yes\n"


def test_a_huge_host_timeout_is_a_long_wait(bash: Bash) -> None:
    observation = bash.call({"command": "echo fine"}, timeout=1e300)
    assert not observation.is_error, observation.text
    assert observation.output == "fine\n"


@pytest.mark.parametrize("param", ["timeout", "no_output_timeout", "hard_timeout"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, 0])
def test_bad_timeout_params_are_refused_at_creation(
    make_bash: MakeBash, param: str, value: float
) -> None:
    with pytest.raises(Exception, match=param):
        make_bash(**{param: value})


def test_a_context_timeout_of_nan_is_refused_at_creation(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="timeout"):
        bash_with(ToolContext(workspace=tmp_path, timeout=math.nan))


# -- the completion marker ------------------------------------------------------------------


@both_modes
def test_printing_the_old_sentinel_does_not_end_the_command(bash: Bash) -> None:
    forged = (
        "printf '\\036TP%s;0;/etc\\037' \"$TOOLPLUG_BASH_SESSION\"; "
        "sleep 1; echo real end; (exit 5)"
    )
    observation = run(bash, forged)
    assert "real end" in observation.output
    assert observation.exit_code == 5
    assert observation.cwd != "/etc"
    assert run(bash, "echo next").output == "next\n"


#: Text printed around the forged frames: any, but for NUL and the escape sequences'
#: introducers (ESC, C1), which the output's renderer removes with what follows.
SENTINEL_TEXT = st.text(
    alphabet=st.characters(
        codec="utf-8",
        exclude_characters="\x00\x1b" + "".join(map(chr, range(0x80, 0xA0))),
    ),
    max_size=60,
)


@FUZZ
@given(body=SENTINEL_TEXT, tail=st.sampled_from(["\\037", "", "\\037\\037", ";0;/\\037"]))
@both_modes
def test_no_printed_sentinel_ends_the_command(bash: Bash, body: str, tail: str) -> None:
    # The forgery is printed by the command itself, with whatever the session
    # shows it: its marker variable, its prompt settings, the text of its functions.
    printed = body.encode("utf-8").hex()
    command = (
        f"printf '\\036TP'; printf '{tail}'; "
        f"printf '\\036TP%s;0;/etc{tail}' \"$TOOLPLUG_BASH_SESSION\"; "
        f"echo {printed} | xxd -r -p 2>/dev/null || true; "
        "echo END; (exit 7)"
    )
    observation = run(bash, command, timeout=60)
    assert not observation.running, observation.text
    assert "END" in observation.output
    assert observation.exit_code == 7
    assert observation.cwd != "/etc"


def test_the_nonce_is_not_in_the_commands_view(bash: Bash) -> None:
    # What a command can read of the session (its environment, variables, functions)
    # holds nothing that ends a command: printing all of it ends nothing.
    observation = run(bash, "env; set; declare -f; echo END; (exit 4)", timeout=60)
    assert "END" in observation.output
    assert observation.exit_code == 4


# -- commands that reprogram the session --------------------------------------------------


@both_modes
def test_exec_bash_is_repaired(make_bash: MakeBash, tmp_path: Path) -> None:
    bash = make_bash(timeout=60)
    run(bash, "cd /")
    observation = run(bash, "exec bash --norc")
    assert not observation.running, observation.text
    assert "new bash" in observation.text
    after = run(bash, "echo works; (exit 6)")
    assert after.output == "works\n"
    assert after.exit_code == 6
    # The interrupt path works in the new shell too.
    assert run(bash, "sleep 50", timeout=1).running
    assert run(bash, "C-c", is_input=True).exit_code == 130


@both_modes
def test_a_shell_replaced_by_another_program_is_reported(make_bash: MakeBash) -> None:
    bash = make_bash(timeout=60)
    replaced = run(bash, "exec cat")
    assert replaced.waiting_for_input, replaced.text
    assert "replaced by `cat`" in replaced.text
    assert run(bash, "meow", is_input=True).output == "meow\n"
    fresh = run(bash, "echo fresh", reset=True)
    assert fresh.output == "fresh\n"
    assert "replaced by" not in fresh.text


@both_modes
def test_clearing_prompt_command_wedges_nothing(make_bash: MakeBash) -> None:
    bash = make_bash(timeout=60)
    run(bash, "PROMPT_COMMAND=")
    assert run(bash, "echo one").output == "one\n"
    run(bash, "PROMPT_COMMAND=; unset -v PS1")
    # An interrupted line ends with the prompt mark: it needs PROMPT_COMMAND back.
    assert run(bash, "sleep 50", timeout=1).running
    interrupted = run(bash, "C-c", is_input=True)
    assert not interrupted.running, interrupted.text
    assert run(bash, "echo two").output == "two\n"


@both_modes
def test_redirecting_the_shells_output_away_is_reported(make_bash: MakeBash) -> None:
    bash = make_bash(timeout=60)
    hidden = run(bash, "exec 1>/dev/null 2>&1; echo invisible")
    assert not hidden.running, hidden.text
    assert "invisible" not in hidden.output
    assert "standard output and standard error no longer go to the terminal" in hidden.text, (
        hidden.text
    )
    run(bash, "exec >/dev/tty 2>&1")
    back = run(bash, "echo visible")
    assert back.output == "visible\n"
    assert "no longer" not in back.text


@both_modes
@pytest.mark.parametrize("setting", ["stty echo", "stty echo echonl echoctl", "stty sane"])
def test_echo_settings_do_not_prefix_outputs(make_bash: MakeBash, setting: str) -> None:
    bash = make_bash(timeout=60)
    run(bash, setting)
    for _ in range(3):
        assert run(bash, "echo hi").output == "hi\n"


# -- the environment ------------------------------------------------------------------------


HOST_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/home/someone",
    "LANG": "C.UTF-8",
    "LC_TIME": "C",
    "SERVER_SECRET": "s3cret",
    "TOOLPLUG_MCP_TOKEN": "tok3n",
    "OPERATOR_ALLOWED": "yes",
}


def shell_env(tool: Bash) -> dict[str, str]:
    text = run(tool, "env -0 | tr '\\0' '\\n'; (exit 0)").output
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_a_library_host_passes_its_whole_environment_by_default(tmp_path: Path) -> None:
    tool = bash_with(ToolContext(workspace=tmp_path, env=HOST_ENV))
    try:
        env = shell_env(tool)
    finally:
        tool.close()
    assert env["SERVER_SECRET"] == "s3cret"  # as the docs say: all of context.env
    assert env["HOME"] == "/home/someone"


@pytest.mark.parametrize("how", ["param", "context"])
def test_a_minimal_environment_keeps_only_the_harmless_and_the_allowed(
    tmp_path: Path, how: str
) -> None:
    env = {**HOST_ENV, "TOOLPLUG_BASH_PASS_ENV": "OPERATOR_ALLOWED"}
    if how == "param":
        context = ToolContext(workspace=tmp_path, env=env)
        tool = bash_with(context, inherit_env=False, env_allowlist=["HOST_ALLOWED"])
    else:
        context = ToolContext(workspace=tmp_path, env=env, extra={"inherit_env": False})
        tool = bash_with(context, env_allowlist=["HOST_ALLOWED"])
    try:
        seen = shell_env(tool)
    finally:
        tool.close()
    assert "SERVER_SECRET" not in seen
    assert "TOOLPLUG_MCP_TOKEN" not in seen
    assert seen["OPERATOR_ALLOWED"] == "yes"
    assert seen["PATH"] == HOST_ENV["PATH"]
    assert seen["HOME"] == "/home/someone"
    assert seen["LANG"] == "C.UTF-8"
    assert seen["LC_TIME"] == "C"


def test_the_param_wins_over_the_context(tmp_path: Path) -> None:
    context = ToolContext(workspace=tmp_path, env=HOST_ENV, extra={"inherit_env": False})
    tool = bash_with(context, inherit_env=True)
    try:
        assert shell_env(tool)["SERVER_SECRET"] == "s3cret"
    finally:
        tool.close()


def test_a_bad_inherit_env_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="inherit_env"):
        bash_with(ToolContext(workspace=tmp_path, extra={"inherit_env": "no"}))


# -- escapes from the sandbox (issue #26) ---------------------------------------------
#
# Each is tried through the real tool in the real bubblewrap sandbox, as the user
# running the tests (root in CI and containers) and as uid 65534 (see jails.py). The
# Python snippets run inside, with the system's python3.

#: Inside: every regular file of /proc (but the processes' own folders) and /sys that
#: opens for writing, then the same for a few settings, tried by writing back the value
#: they hold (so that, were the sandbox open, the host would be left as it was).
OPEN_FOR_WRITING = r"""
import errno, os, stat
def opens(path):
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY))
        return "opened"
    except OSError as exc:
        return errno.errorcode[exc.errno]
opened = []
for top in ("/proc", "/sys"):
    for folder, folders, files in os.walk(top):
        if folder == "/proc":
            folders[:] = [f for f in folders if not f.isdigit() and "self" not in f]
        for name in files:
            path = os.path.join(folder, name)
            if stat.S_ISREG(os.lstat(path).st_mode) and opens(path) == "opened":
                opened.append(path)
print("opened", len(opened), *opened[:5])
for name in ("kernel/core_pattern", "kernel/core_uses_pid", "fs/file-max", "vm/swappiness"):
    path = "/proc/sys/" + name
    try:
        value = open(path).read()
    except FileNotFoundError:
        print(name, "absent")
        continue
    try:
        with open(path, "w") as f:
            f.write(value)
        print(name, "WRITTEN")
    except OSError as exc:
        print(name, errno.errorcode[exc.errno])
"""


def test_no_kernel_setting_or_proc_file_can_be_written(jail: Jail) -> None:
    # Root holds no capability inside, but the kernel lets the owner of /proc/sys
    # write it on uid alone: kernel.core_pattern names a program the kernel runs as
    # full root outside every namespace.
    jail.run(f"cat > open.py <<'EOF'\n{OPEN_FOR_WRITING}\nEOF")
    lines = jail.run("python3 open.py").splitlines()
    assert lines[0] == "opened 0", lines[0]
    assert "kernel/core_pattern absent" not in lines
    for line in lines[1:]:
        outcome = line.split()[-1]
        assert outcome in ("EROFS", "EACCES", "EPERM", "absent"), line


def test_kernel_memory_and_its_log_cannot_be_read(jail: Jail) -> None:
    # Each is refused, by a missing capability or because the sandbox's /dev lacks it.
    paths = ["/proc/kcore", "/proc/kmsg", "/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg"]
    output = jail.run(
        "for f in " + " ".join(paths) + "; do head -c1 $f >/dev/null 2>&1 && echo READ $f; done; "
        "echo done"
    )
    assert output == "done\n"


def test_the_sysrq_trigger_cannot_be_written(jail: Jail) -> None:
    if not os.path.exists("/proc/sysrq-trigger"):
        pytest.skip("this kernel has no /proc/sysrq-trigger (built without magic SysRq)")
    # Opened only, never written: one character there reboots or crashes the host.
    output = jail.run("python3 -c \"import os; os.open('/proc/sysrq-trigger', os.O_WRONLY)\"")
    assert "Read-only file system" in output or "Permission denied" in output


KEYRING_NUMBERS = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}

#: Inside: read the thread's, session and user keyrings, add a key to the user's and
#: ask for one; each call's result or error.
KEYRING = r"""
import ctypes, errno, sys
add_key, request_key, keyctl = map(int, sys.argv[1:4])
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def show(name, result):
    print(name, result if result >= 0 else errno.errorcode[ctypes.get_errno()])
for name, ring in (("session", -3), ("user", -4), ("user-session", -5)):
    show(name, libc.syscall(keyctl, 0, ctypes.c_long(ring), 1))  # get it, made if missing
show("add_key", libc.syscall(add_key, b"user", sys.argv[4].encode(), b"x", 1, ctypes.c_long(-4)))
show("request_key", libc.syscall(request_key, b"user", sys.argv[4].encode(), None, 0))
"""


def host_keys_named(description: str) -> list[str]:
    """Lines of the host's /proc/keys (as this user sees it) for keys so described."""
    try:
        return [line for line in Path("/proc/keys").read_text().splitlines() if description in line]
    except OSError:
        return []


def unlink_from_user_keyring(description: str, numbers: tuple[int, int, int]) -> None:
    """Undo a key a broken sandbox let a test add to this user's keyring."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    keyctl = numbers[2]
    key = libc.syscall(keyctl, 10, ctypes.c_long(-4), b"user", description.encode(), 0)
    if key > 0:
        libc.syscall(keyctl, 9, ctypes.c_long(key), ctypes.c_long(-4))


def test_the_kernel_keyring_is_out_of_reach(jail: Jail) -> None:
    numbers = KEYRING_NUMBERS.get(platform.machine())
    if numbers is None:
        pytest.skip(f"the test knows the keyring's system calls on {list(KEYRING_NUMBERS)} only")
    # Keyrings are not namespaced: without the filter, the sandbox shares the user's
    # (as root, root's own), can read its keys and fill its quota.
    description = f"toolplug-escape-{secrets.token_hex(6)}"
    jail.run(f"cat > keys.py <<'EOF'\n{KEYRING}\nEOF")
    try:
        output = jail.run(f"python3 keys.py {' '.join(map(str, numbers))} {description}")
        assert output.split() == [
            *("session", "EPERM", "user", "EPERM", "user-session", "EPERM"),
            *("add_key", "EPERM", "request_key", "EPERM"),
        ]
        if jail.user == "root":
            assert host_keys_named(description) == []
        # Nor can it list the keys it may view (as root, the host's root keyrings).
        listing = jail.run("cat /proc/keys /proc/key-users 2>&1; true")
        assert "keyring" not in listing and "_uid" not in listing, listing
    finally:
        if jail.user == "root":
            unlink_from_user_keyring(description, numbers)


#: A system call through x86-64's 32-bit entry point (``int 0x80``), from machine code
#: written to executable memory: ``python3 int80.py NR ARG1 ARG2 ARG3`` prints the
#: kernel's answer (a negative errno on failure).
INT80 = r"""
import ctypes, mmap, sys
nr, *args = (int(a, 0) for a in sys.argv[1:5])
code = b"\x53\xb8" + nr.to_bytes(4, "little", signed=True)  # push rbx; mov eax, nr
for register, value in zip((b"\xbb", b"\xb9", b"\xba"), args):  # mov ebx/ecx/edx
    code += register + value.to_bytes(4, "little", signed=True)
code += b"\xcd\x80\x5b\xc3"  # int 0x80; pop rbx; ret
memory = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
memory.write(code)
call = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(memory)))
print(call())
"""


def test_the_filter_holds_at_the_32_bit_entry_point(jail: Jail, tmp_path: Path) -> None:
    if platform.machine() != "x86_64":
        pytest.skip("the 32-bit entry point tried here is x86-64's")
    script = tmp_path / "int80.py"
    script.write_text(INT80)
    getpid = subprocess.run(
        [sys.executable, str(script), "20", "0", "0", "0"], capture_output=True, text=True
    )
    if getpid.returncode != 0 or int(getpid.stdout) <= 0:
        pytest.skip(f"this kernel runs no 32-bit system calls: {getpid.stderr.strip()[-200:]}")
    # keyctl(KEYCTL_GET_KEYRING_ID, the user keyring) and unshare(CLONE_NEWUSER), by
    # their i386 numbers: a filter that checked only x86-64's numbers would let both by.
    jail.run(f"cat > int80.py <<'EOF'\n{INT80}\nEOF")
    output = jail.run("python3 int80.py 288 0 -4 0; python3 int80.py 310 0x10000000 0 0")
    assert output.split() == ["-1", "-1"]  # -EPERM


def test_no_user_namespace_can_be_made_inside(jail: Jail) -> None:
    # In a user namespace of its own a process holds every capability over what it
    # makes: it could mount a tmpfs of no size limit, and reach kernel code that
    # needs those capabilities.
    output = jail.run(
        "unshare -U true; echo user $?; "
        "unshare -Urm sh -c 'mount -t tmpfs none /tmp && echo MOUNTED'; echo mount $?; "
        "python3 -c 'import ctypes; print(ctypes.CDLL(None).unshare(0x10000000))'"
    )
    assert "MOUNTED" not in output
    assert "user 0" not in output and "mount 0" not in output
    assert output.splitlines()[-1] == "-1"


def test_no_capability_is_held_inside(jail: Jail) -> None:
    output = jail.run(
        "grep -E '^(CapInh|CapPrm|CapEff|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status"
    )
    fields = dict(line.split(":\t") for line in output.splitlines())
    assert {fields[k] for k in ("CapInh", "CapPrm", "CapEff", "CapAmb")} == {"0000000000000000"}
    assert fields["NoNewPrivs"] == "1"
    assert fields["Seccomp"] == "2"  # the system-call filter is on


def test_the_private_tmp_and_dev_shm_stop_at_their_size(make_jail: MakeJail) -> None:
    # They are the host's memory, which max_memory_mb (per process) does not count.
    jail = make_jail(max_tmp_mb=8, max_shm_mb=4)
    output = jail.run(
        "head -c 20M /dev/zero > /tmp/fill; echo tmp $?; "
        "head -c 20M /dev/zero > /dev/shm/fill; echo shm $?; "
        "du -k /tmp/fill /dev/shm/fill | cut -f1; rm /tmp/fill /dev/shm/fill; "
        "touch /dev/fill /run/fill 2>&1 | grep -c 'Read-only file system'"
    )
    lines = output.splitlines()
    assert output.count("No space left on device") == 2, output
    assert "tmp 1" in lines and "shm 1" in lines
    tmp_kib, shm_kib = (int(n) for n in lines[-3:-1])
    assert 7 * 1024 <= tmp_kib <= 8 * 1024 and 3 * 1024 <= shm_kib <= 4 * 1024
    assert lines[-1] == "2"  # /dev and /run: nothing to fill


def test_the_in_memory_file_systems_have_a_size_by_default(jail: Jail) -> None:
    sizes = jail.run("df -k --output=size /tmp /dev/shm | tail -n +2").split()
    assert [int(s) for s in sizes] == [1024 * 1024, 64 * 1024]
    home = jail.run("[ -w ~ ] && df -k --output=size ~ | tail -1 || echo none").strip()
    assert home in ("none", str(1024 * 1024))  # a hidden home is a sized tmpfs too


@pytest.mark.parametrize("params", [{"max_tmp_mb": -1}, {"max_shm_mb": 1.5}, {"max_tmp_mb": True}])
def test_bad_tmpfs_sizes_are_refused(tmp_path: Path, params: dict[str, Any]) -> None:
    need_bwrap()
    name = next(iter(params))
    with pytest.raises(ToolParamsError, match=rf"{name}.*(whole number|valid integer)"):
        bash_with(ToolContext(workspace=tmp_path), sandbox="bwrap", **params)


# -- params: described and bounded in create()'s annotations -------------------------------


def test_every_param_is_described_in_the_params_listing() -> None:
    properties = params_listing("bash", plugins="bash")
    assert properties
    assert [n for n, p in properties.items() if not p.get("description")] == []


def test_a_param_out_of_its_range_is_refused_by_name(tmp_path: Path) -> None:
    done = run_toolplug(
        "call", "bash", "{}", "--param", "hard_timeout=NaN", plugins="bash", cwd=tmp_path
    )

    assert done.returncode == 2
    assert "Invalid params for tool 'bash'" in done.stderr and "- hard_timeout: " in done.stderr


# -- a host that ignores Ctrl-C ------------------------------------------------------------

_IGNORING_HOST = r"""
import json, signal, sys
from pathlib import Path
# As a background job of a script (`nohup toolplug mcp serve &`) starts: SIGINT and
# SIGQUIT ignored (and SIGTSTP, as some service managers do), which every program it
# starts inherits.
for ignored in (signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP):
    signal.signal(ignored, signal.SIG_IGN)
import toolplug_bash
from toolplug import Tool, ToolContext
from toolplug.testing import registry_from
params = json.loads(sys.argv[2])
(bash,) = registry_from(toolplug_bash).resolve(
    Tool("bash", params), ToolContext(workspace=Path(sys.argv[1]))
)
try:
    started = bash.call({"command": "echo started; sleep 30; echo never", "timeout": 0.5})
    stopped = bash.call({"command": sys.argv[3], "is_input": True, "timeout": 10})
    print(json.dumps([started.running, stopped.exit_code, stopped.running, stopped.output]))
finally:
    bash.close()
"""


@pytest.mark.parametrize("params", [{}, {"sandbox": "bwrap"}], ids=["none", "bwrap"])
def test_ctrl_c_stops_a_command_when_the_host_ignores_it(
    tmp_path: Path, params: dict[str, Any]
) -> None:
    # A signal ignored when bash starts stays ignored for bash and its commands; the
    # session starts bash with the terminal's keys back to their defaults.
    running, exit_code, still_running, output = _in_an_ignoring_host(tmp_path, params, "C-c")
    assert running and exit_code == 130 and not still_running
    assert "never" not in output


@pytest.mark.parametrize("params", [{}, {"sandbox": "bwrap"}], ids=["none", "bwrap"])
def test_ctrl_z_stops_a_job_when_the_host_ignores_it(
    tmp_path: Path, params: dict[str, Any]
) -> None:
    running, _, still_running, output = _in_an_ignoring_host(tmp_path, params, "C-z")
    assert running and not still_running and "Stopped" in output


def _in_an_ignoring_host(tmp_path: Path, params: dict[str, Any], key: str) -> list[Any]:
    """Start ``sleep 30`` in a host that ignores the terminal's signals, then type ``key``:
    whether it ran, and the exit code, running flag and output after the key."""
    if params:
        need_bwrap()
    done = subprocess.run(
        [sys.executable, "-c", _IGNORING_HOST, str(tmp_path), json.dumps(params), key],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: list[Any] = json.loads(done.stdout)
    return result


# -- the native form (Anthropic's bash_20250124) ----------------------------------------


def _native_call(toolset: Any, data: Any) -> dict[str, Any]:
    [result] = toolset.dispatch(
        [{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": data}]
    )
    return result


def test_native_restart_ends_a_command_still_running(make_bash: MakeBash, tmp_path: Path) -> None:
    from conftest import alive
    from toolplug import Toolset
    from toolplug.testing import wait_until

    with Toolset([make_bash(tmp_path, timeout=1, no_output_timeout=1)]) as toolset:
        toolset.export("anthropic", native=True)
        started = _native_call(toolset, {"command": "sleep 1000 & echo pid=$!; wait"})
        text = started["content"][0]["text"]
        pid = int(text.split("pid=")[1].split()[0])
        assert alive(pid)
        restarted = _native_call(toolset, {"restart": True})
        assert "is_error" not in restarted
        wait_until(lambda: not alive(pid), what="the sleep to end with the old session")
        assert "fresh" in _native_call(toolset, {"command": "echo fresh"})["content"][0]["text"]


@pytest.mark.parametrize(
    "data",
    [
        {"command": None},
        {"restart": None},
        {"restart": 1},
        {"command": ["echo", "x"]},
        {"command": "x" * 200_000, "restart": "true"},
        "not an object",
    ],
)
def test_hostile_native_input_is_an_error_result(make_bash: MakeBash, data: Any) -> None:
    from toolplug import Toolset

    with Toolset([make_bash()]) as toolset:
        toolset.export("anthropic", native=True)
        result = _native_call(toolset, data)
    assert result["is_error"] is True
    assert 0 < len(result["content"][0]["text"]) < 5000
