"""Limits for a bot process, applied by a small wrapper before it becomes the bot.

``python -m arena.seats.sandbox --memory BYTES --files BYTES [--cgroup DIR ...] -- CMD...`` sets the
address-space and file-size limits, joins the seat's cgroups (processes capped, CPU capped at
one core at low weight, CPU time measured for the bot and all its children), drops every
capability (so it cannot read other processes' memory), with ``--confine`` moves into
namespaces of its own and a read-only root (:mod:`arena.seats.confine`), then executes the
bot. Doing this in a fresh process avoids ``preexec_fn``, which is unsafe in a process with
threads.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import errno
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
import uuid
from pathlib import Path

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


CGROUP_ROOT = Path("/sys/fs/cgroup")
CPU_QUOTA_US = 100_000  # per 100 ms period: a bot and all its children share one core at most
CPU_SHARES = 256  # a quarter of the default weight: the referee wins when cores are scarce


def new_seat_cgroups(processes: int, memory_bytes: int | None = None) -> list[Path]:
    """Fresh cgroups for one bot process: pids (caps its processes), memory (caps it and all
    its children together), cpu (caps them at one core, at low weight) and cpuacct
    (measures them all), in the version 1 hierarchies. Empty where the cgroup file system
    is closed or has none of them. Groups left by a
    referee that died are reaped first."""
    reap_orphan_cgroups()
    name = f"r{os.getpid()}-{uuid.uuid4().hex[:10]}"  # r<referee pid>-<random>
    made = []
    memory = {} if memory_bytes is None else {"memory.limit_in_bytes": str(memory_bytes)}
    for controller, settings in (("pids", {"pids.max": str(processes)}),
                                 ("memory", memory),
                                 ("cpu", {"cpu.cfs_period_us": "100000",
                                          "cpu.cfs_quota_us": str(CPU_QUOTA_US),
                                          "cpu.shares": str(CPU_SHARES)}),
                                 ("cpuacct", {})):
        hierarchy = CGROUP_ROOT / controller
        if not (hierarchy / "cgroup.procs").is_file():  # not mounted here (a v2-only machine):
            continue  # a folder made there would be a stray cgroup, or no cgroup at all
        group = hierarchy / "rummy-arena" / name
        try:
            group.mkdir(parents=True)
            for key, value in settings.items():
                (group / key).write_text(value)
        except OSError:
            continue
        made.append(group)
    return made


def cgroup_cpu_seconds(groups: list[Path]) -> float | None:
    """CPU time used by every process that ever ran in the seat's cpuacct group."""
    for group in groups:
        if group.parent.parent.name == "cpuacct":
            try:
                return int((group / "cpuacct.usage").read_text()) / 1e9
            except (OSError, ValueError):
                return None
    return None


def kill_cgroups(groups: list[Path]) -> None:
    """Kill every process left in the seat's groups (a fork bomb escapes its process group),
    then remove the groups."""
    for group in groups:
        for _ in range(200):
            try:
                pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
            except OSError:
                break
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)
    for group in groups:
        for _ in range(100):  # an emptied cgroup stays busy for a moment
            try:
                group.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.01)


def reap_orphan_cgroups() -> None:
    """Remove the groups of referees that are gone (killed before they could clean up)."""
    for controller in ("pids", "memory", "cpu", "cpuacct"):
        base = CGROUP_ROOT / controller / "rummy-arena"
        try:
            groups = [g for g in base.iterdir() if g.is_dir()]
        except OSError:
            continue
        for group in groups:
            owner = group.name.partition("-")[0][1:]
            if group.name.startswith("r") and owner.isdigit() and not alive(int(owner)):
                kill_cgroups([group])


WORKDIR_PREFIX = "arena-bot-r"  # then <referee pid>-<random>: its reaper can tell the owner


def new_workdir() -> str:
    """A fresh working folder for one bot process, named after this referee; the folders of
    referees that are gone (killed before they could remove them) are removed first."""
    reap_orphan_workdirs()
    return tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-")


def reap_orphan_workdirs(root: str | None = None) -> None:
    """Remove the bots' working folders left by referees that are gone: this user's own
    folders only, never a link (a bot may leave one in /tmp to lure the reaper)."""
    try:
        entries = list(os.scandir(root or tempfile.gettempdir()))
    except OSError:
        return
    for entry in entries:
        owner = entry.name[len(WORKDIR_PREFIX):].partition("-")[0]
        if not (entry.name.startswith(WORKDIR_PREFIX) and owner.isdigit()) \
                or not entry.is_dir(follow_symlinks=False) or alive(int(owner)):
            continue
        with contextlib.suppress(OSError):
            if entry.stat(follow_symlinks=False).st_uid == os.getuid():
                shutil.rmtree(entry.path, ignore_errors=True)


def alive(pid: int) -> bool:
    """Whether a process of that id exists (one of another user's too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def lower_limit(kind: int, wanted: int) -> None:
    """Cap ``kind`` at ``wanted``, or at the hard limit the arena was started under where
    that is lower (``ulimit -v`` on a shared machine): a limit may only be lowered."""
    hard = resource.getrlimit(kind)[1]
    limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    resource.setrlimit(kind, (limit, limit))


def main(argv: list[str] | None = None) -> None:
    """Apply the limits to this process, then execute the bot command in its place."""
    parser = argparse.ArgumentParser(prog="python -m arena.seats.sandbox")
    parser.add_argument("--memory", type=int, required=True, help="address space, bytes")
    parser.add_argument("--files", type=int, required=True, help="largest file, bytes")
    parser.add_argument("--processes", type=int, default=None,
                        help="processes and threads, confined: counted in its own namespace")
    parser.add_argument("--cgroup", type=Path, action="append", default=[],
                        help="a cgroup to join (repeatable)")
    parser.add_argument("--confine", action="store_true",
                        help="own namespaces and a read-only root (arena.seats.confine)")
    parser.add_argument("--read", action="append", default=[], help="a path it may read")
    parser.add_argument("--write", action="append", default=[], help="a path it may write")
    parser.add_argument("--network", action="store_true", help="confined, but with network")
    parser.add_argument("--hide", action="append", default=[],
                        help="a folder shown empty (the results folder)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    for group in args.cgroup:
        (group / "cgroup.procs").write_text(str(os.getpid()))
    lower_limit(resource.RLIMIT_AS, args.memory)
    lower_limit(resource.RLIMIT_FSIZE, args.files)
    lower_limit(resource.RLIMIT_CORE, 0)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the cap, writes fail quietly
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # never outlive the referee that started it
    if args.confine:
        from arena.seats.confine import ConfineError, become_bot_user, confine

        try:
            confine(args.read, args.write, network=args.network, hide=args.hide)
        except ConfineError as exc:
            sys.exit(f"arena.seats.sandbox: cannot confine the bot: {exc.strerror}")
        if args.processes is not None:  # its user namespace counts its own processes only:
            lower_limit(resource.RLIMIT_NPROC, args.processes)  # a cap without a pids cgroup
        drop_capabilities()
        become_bot_user()
    else:
        drop_capabilities()
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        hidden = args.confine and exc.errno == errno.ENOENT  # there outside, maybe not inside
        where = " inside the bot's confinement" if args.confine else ""
        sys.exit(f"arena.seats.sandbox: error: cannot run {command[0]!r}{where} "
                 f"({exc.strerror})" + (CONFINED_HINT if hidden else ""))


CONFINED_HINT = ("; it sees the system's programs, its own folder and its read: paths, and "
                 "a /tmp of its own")


if __name__ == "__main__":
    main()
