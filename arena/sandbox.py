"""Limits for a bot process, applied by a small wrapper before it becomes the bot.

``python -m arena.sandbox --memory BYTES --files BYTES [--pids-cgroup DIR] -- CMD...`` sets the
address-space and file-size limits, joins a pids cgroup that caps the processes the bot may
start, drops every capability (so it cannot read other processes' memory), then executes the
bot. Doing this in a fresh process avoids ``preexec_fn``, which is unsafe in a process with
threads.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import resource
import signal
import sys
import time
import uuid
from pathlib import Path

PIDS_ROOT = Path("/sys/fs/cgroup/pids")
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
LAST_CAP = 63


def _prctl(option: int, arg: int) -> int:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, arg, 0, 0, 0))
    except (OSError, AttributeError):
        return -1


def harden_self() -> None:
    """Make this process's memory unreadable to other processes of the same user."""
    _prctl(PR_SET_DUMPABLE, 0)


def drop_capabilities() -> None:
    """Empty the bounding set, so the command executed next runs with no capability."""
    for cap in range(LAST_CAP + 1):
        _prctl(PR_CAPBSET_DROP, cap)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


def new_pids_cgroup(limit: int) -> Path | None:
    """A fresh pids cgroup allowing ``limit`` processes, or None where cgroups are closed."""
    if not (PIDS_ROOT / "cgroup.procs").exists():
        return None
    try:
        group = PIDS_ROOT / "rummy-arena" / uuid.uuid4().hex[:12]
        group.mkdir(parents=True)
        (group / "pids.max").write_text(str(limit))
        return group
    except OSError:
        return None


def kill_cgroup(group: Path | None) -> None:
    """Kill every process left in the cgroup (a fork bomb escapes its process group), then
    remove it."""
    if group is None:
        return
    for _ in range(200):
        try:
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
        except OSError:
            return
        if not pids:
            break
        time.sleep(0.005)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    for _ in range(100):  # an emptied cgroup stays busy for a moment
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.01)


def main(argv: list[str] | None = None) -> None:
    """Apply the limits to this process, then execute the bot command in its place."""
    parser = argparse.ArgumentParser(prog="python -m arena.sandbox")
    parser.add_argument("--memory", type=int, required=True, help="address space, bytes")
    parser.add_argument("--files", type=int, required=True, help="largest file, bytes")
    parser.add_argument("--pids-cgroup", type=Path, default=None)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    if args.pids_cgroup is not None:
        (args.pids_cgroup / "cgroup.procs").write_text(str(os.getpid()))
    resource.setrlimit(resource.RLIMIT_AS, (args.memory, args.memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (args.files, args.files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the cap, writes fail quietly
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # never outlive the referee that started it
    drop_capabilities()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
