"""System calls a bot may not make: the kernel's key retention service.

A key lives in the kernel, not in any process, and its owner may make it readable by any
process of the machine: a bot could leave one for its next game (with duplicate deals, the
other seats' hands) or for another seat (collusion), past every namespace. No bot needs
one, so a seccomp filter (``seccomp(2)``, a classic BPF program over the call's number and
architecture) makes ``add_key``, ``request_key`` and ``keyctl`` fail with ``ENOSYS``, as on
a kernel built without keys. The filter is a dozen instructions; libseccomp would need a
system library the arena cannot count on.
"""

from __future__ import annotations

import ctypes
import errno
import platform

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
BPF_LD_W_ABS = 0x20  # load the 32-bit word at a fixed offset of struct seccomp_data
BPF_JEQ_K = 0x15  # jump if the word equals k
BPF_RET_K = 0x06
NR_OFFSET, ARCH_OFFSET = 0, 4  # struct seccomp_data: int nr; __u32 arch; ...
RET_ALLOW = 0x7FFF_0000
RET_ENOSYS = 0x0005_0000 | errno.ENOSYS  # SECCOMP_RET_ERRNO
X32_BIT = 0x4000_0000  # x86_64's x32 calls: the same numbers with this bit set

# add_key, request_key, keyctl by audit architecture (linux/audit.h, each unistd table):
# every ABI a process of that machine may call the kernel through
KEY_CALLS: dict[str, dict[int, tuple[int, ...]]] = {
    "x86_64": {0xC000_003E: (248, 249, 250, 248 | X32_BIT, 249 | X32_BIT, 250 | X32_BIT),
               0x4000_0003: (286, 287, 288)},  # i386, through int 0x80
    "aarch64": {0xC000_00B7: (217, 218, 219),
                0x4000_0028: (309, 310, 311)},  # 32-bit ARM
}


class SockFilter(ctypes.Structure):
    """One classic BPF instruction (struct sock_filter)."""

    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint)]


class SockFprog(ctypes.Structure):
    """A BPF program (struct sock_fprog)."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def key_filter(calls: dict[int, tuple[int, ...]]) -> list[tuple[int, int, int, int]]:
    """The program: for each architecture, refuse its key calls; allow everything else.

    >>> key_filter({7: (1,)})
    [(32, 0, 0, 4), (21, 0, 4, 7), (32, 0, 0, 0), (21, 0, 1, 1), (6, 0, 0, 327718), \
(6, 0, 0, 2147418112), (6, 0, 0, 2147418112)]
    """
    program = [(BPF_LD_W_ABS, 0, 0, ARCH_OFFSET)]
    for arch, numbers in calls.items():
        block = [(BPF_LD_W_ABS, 0, 0, NR_OFFSET)]
        for number in numbers:
            block += [(BPF_JEQ_K, 0, 1, number), (BPF_RET_K, 0, 0, RET_ENOSYS)]
        block.append((BPF_RET_K, 0, 0, RET_ALLOW))
        program += [(BPF_JEQ_K, 0, len(block), arch), *block]
    program.append((BPF_RET_K, 0, 0, RET_ALLOW))
    return program


def refuse_key_calls() -> bool:
    """Install the filter on this process and all it starts (needs no_new_privs, which
    ``drop_capabilities`` sets); False where the machine or the kernel has none."""
    calls = KEY_CALLS.get(platform.machine())
    if calls is None:
        return False
    program = key_filter(calls)
    instructions = (SockFilter * len(program))(*(SockFilter(*i) for i in program))
    fprog = SockFprog(len(program), instructions)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog),
                              0, 0)) == 0
    except (OSError, AttributeError):
        return False
