"""The sandbox's system-call filter: a small seccomp program, handed to bubblewrap.

It refuses two kinds of call that namespaces do not confine:

- the kernel keyring (``add_key``, ``request_key``, ``keyctl``): keyrings are not
  namespaced by the sandbox, so a shell could read and fill the keyrings of the user
  who runs the host (as root, root's own), and use up its key quota;
- new user namespaces (``unshare`` or ``clone`` with ``CLONE_NEWUSER``; ``clone3``,
  whose flags a filter cannot read, answers "not implemented", and the C library then
  falls back to ``clone``): in one, a process holds every capability over what it
  creates, so it could mount file systems of its own (an unbounded ``tmpfs``) and
  reach kernel code that ordinary users cannot.

The program is classic BPF, built here for the machine's architectures: x86-64 (with
its 32-bit and x32 system-call entry points), and arm64 (with 32-bit ARM). On another
architecture there is no filter (:func:`program` returns None), and the docs say so.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

# BPF instruction classes and fields (linux/bpf_common.h), seccomp's return values
# and the offsets in its ``struct seccomp_data`` (linux/seccomp.h).
_LD_W_ABS = 0x00 | 0x00 | 0x20
_JEQ_K = 0x05 | 0x10 | 0x00
_JGE_K = 0x05 | 0x30 | 0x00
_JSET_K = 0x05 | 0x40 | 0x00
_RET_K = 0x06 | 0x00
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_NR, _ARCH, _ARG0_LOW = 0, 4, 16  # args[0]'s low half (little-endian machines)

_CLONE_NEWUSER = 0x10000000
_X32_BIT = 0x40000000


@dataclass(frozen=True)
class _Abi:
    """One system-call entry point: its audit arch and the numbers the filter checks."""

    arch: int
    keyring: tuple[int, ...]  # add_key, request_key, keyctl
    unshare: int
    clone: int
    clone3: int
    x32: bool = False  # x86-64: numbers with the x32 bit belong to the x32 ABI


_X86_64 = _Abi(0xC000003E, (248, 249, 250), unshare=272, clone=56, clone3=435, x32=True)
_I386 = _Abi(0x40000003, (286, 287, 288), unshare=310, clone=120, clone3=435)
_AARCH64 = _Abi(0xC00000B7, (217, 218, 219), unshare=97, clone=220, clone3=435)
_ARM = _Abi(0x40000028, (309, 310, 311), unshare=337, clone=120, clone3=435)

#: The entry points a process may use, by ``platform.machine()``.
_MACHINES = {
    "x86_64": (_X86_64, _I386),
    "amd64": (_X86_64, _I386),
    "aarch64": (_AARCH64, _ARM),
    "arm64": (_AARCH64, _ARM),
}


def program(machine: str | None = None) -> bytes | None:
    """The filter as bubblewrap's ``--seccomp`` reads it (an array of ``struct
    sock_filter``), for ``machine`` (default: this one); None where there is none."""
    abis = _MACHINES.get((machine or platform.machine()).lower())
    if abis is None:
        return None
    code: list[tuple[int, int, int, int]] = []  # (op, jump if true, if false, k)
    code.append((_LD_W_ABS, 0, 0, _ARCH))
    blocks = [_block(abi) for abi in abis]
    # A jump table on the arch: each entry skips to its block; an unknown arch
    # (unreachable on these machines) is refused.
    offset = 1  # past the refusal after the table
    for index, abi in enumerate(abis):
        to_block = len(abis) - index - 1 + offset + sum(len(b) for b in blocks[:index])
        code.append((_JEQ_K, to_block, 0, abi.arch))
    code.append((_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS))
    for block in blocks:
        code += block
    return b"".join(struct.pack("=HBBI", op, jt, jf, k) for op, jt, jf, k in code)


def _block(abi: _Abi) -> list[tuple[int, int, int, int]]:
    """The checks for one entry point, ending in a return on every path."""
    deny, enosys, allow = (
        (_RET_K, 0, 0, _RET_ERRNO | errno.EPERM),
        (_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS),
        (_RET_K, 0, 0, _RET_ALLOW),
    )
    flags = [
        (_LD_W_ABS, 0, 0, _ARG0_LOW),
        (_JSET_K, 0, 1, _CLONE_NEWUSER),
        deny,
        allow,
    ]
    # Laid out as: tests..., allow, deny, enosys, flags...
    tests: list[tuple[str, int, int]] = []  # (target, op, k)
    if abi.x32:
        tests.append(("enosys", _JGE_K, _X32_BIT))
    tests += [("deny", _JEQ_K, nr) for nr in abi.keyring]
    tests += [("enosys", _JEQ_K, abi.clone3)]
    tests += [("flags", _JEQ_K, abi.unshare), ("flags", _JEQ_K, abi.clone)]
    where = {"deny": 1, "enosys": 2, "flags": 3}  # after the allow that ends the tests
    block: list[tuple[int, int, int, int]] = [(_LD_W_ABS, 0, 0, _NR)]
    for index, (target, op, k) in enumerate(tests):
        remaining = len(tests) - index - 1
        block.append((op, remaining + where[target], 0, k))
    return [*block, allow, deny, enosys, *flags]


__all__ = ["program"]
