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

from arena.seats.syscalls import refuse_key_calls

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
CGROUP_BASE = "rummy-arena"  # the arena's folder in each hierarchy; a seat's group is below
CPU_PERIOD_US = 100_000
CPU_QUOTA_US = 100_000  # per 100 ms period: a bot and all its children share one core at most
CPU_SHARES = 256  # a quarter of the default weight: the referee wins when cores are scarce
CPU_WEIGHT = 25  # the same quarter of the unified hierarchy's default weight (100)
V1_CONTROLLERS = ("pids", "memory", "cpu", "cpuacct")
V2_CONTROLLERS = ("pids", "memory", "cpu")  # the unified hierarchy counts CPU time in any group


def new_seat_cgroups(processes: int, memory_bytes: int | None = None) -> list[Path]:
    """Fresh cgroups for one bot process: pids (caps its processes), memory (caps it and all
    its children together), cpu (caps them at one core, at low weight) and CPU time
    measured for them all. In the version 1 hierarchies, one group in each; where
    /sys/fs/cgroup is the unified hierarchy (version 2), one group with what of these the
    system lets the referee enable. Empty where the cgroup file system is closed. Groups
    left by a referee that died are reaped first."""
    name = f"r{os.getpid()}-{uuid.uuid4().hex[:10]}"  # r<referee pid>-<random>
    if unified():
        base = unified_base()
        if base is None:
            return []
        reap_orphan_cgroups([base])
        group = _new_unified_group(base / name, processes, memory_bytes)
        return [] if group is None else [group]
    reap_orphan_cgroups([CGROUP_ROOT / controller / CGROUP_BASE for controller in V1_CONTROLLERS])
    made = []
    memory = {} if memory_bytes is None else {"memory.limit_in_bytes": str(memory_bytes)}
    for controller, settings in (("pids", {"pids.max": str(processes)}),
                                 ("memory", memory),
                                 ("cpu", {"cpu.cfs_period_us": str(CPU_PERIOD_US),
                                          "cpu.cfs_quota_us": str(CPU_QUOTA_US),
                                          "cpu.shares": str(CPU_SHARES)}),
                                 ("cpuacct", {})):
        hierarchy = CGROUP_ROOT / controller
        if not (hierarchy / "cgroup.procs").is_file():  # not mounted here (a v2-only machine):
            continue  # a folder made there would be a stray cgroup, or no cgroup at all
        group = hierarchy / CGROUP_BASE / name
        try:
            group.mkdir(parents=True)
            for key, value in settings.items():
                (group / key).write_text(value)
        except OSError:
            continue
        made.append(group)
    return made


def unified() -> bool:
    """Whether /sys/fs/cgroup is the unified hierarchy (cgroup v2) alone, as on most
    systems since 2021; a hybrid one (version 1 controllers, the unified hierarchy mounted
    below) uses the version 1 controllers."""
    return (CGROUP_ROOT / "cgroup.controllers").is_file()


def _new_unified_group(group: Path, processes: int, memory_bytes: int | None) -> Path | None:
    """The seat's group in the unified hierarchy (under :func:`unified_base`), with each
    controller that can be enabled there. The group alone already holds every process the
    bot starts and counts their CPU time."""
    try:
        group.mkdir()
    except OSError:
        return None
    settings = {"pids.max": str(processes),
                "cpu.max": f"{CPU_QUOTA_US} {CPU_PERIOD_US}",
                "cpu.weight": str(CPU_WEIGHT)}
    if memory_bytes is not None:
        settings["memory.max"] = str(memory_bytes)
    for key, value in settings.items():
        with contextlib.suppress(OSError):  # its controller is not enabled here
            (group / key).write_text(value)
    return group


REFEREE_LEAF = "rummy-arena-referee"  # a delegated subtree's own processes, moved aside


def unified_base() -> Path | None:
    """Where the seats' groups go in the unified hierarchy, controllers enabled on the way
    down: /sys/fs/cgroup/rummy-arena for a root referee; for another user, rummy-arena in
    the subtree delegated to it (``systemd-run --user --scope -p Delegate=yes``), once the
    subtree's processes are moved into a leaf of their own (a group that hands controllers
    to its children may hold no process). None where neither may be made."""
    top = CGROUP_ROOT / CGROUP_BASE
    try:
        top.mkdir(exist_ok=True)
    except OSError:
        return _delegated_base()
    if not os.access(top, os.W_OK):  # made by a root referee before: not this user's
        return _delegated_base()
    _enable(CGROUP_ROOT, V2_CONTROLLERS)
    _enable(top, V2_CONTROLLERS)
    return top


def _delegated_base() -> Path | None:
    own = _own_group()
    if own is None:
        return None
    delegated = own.parent if own.name == REFEREE_LEAF else own
    if not all(os.access(delegated / f, os.W_OK)
               for f in ("cgroup.procs", "cgroup.subtree_control")):
        return None  # not delegated to this user (a login session's scope is root's)
    base = delegated / CGROUP_BASE
    try:
        (delegated / REFEREE_LEAF).mkdir(exist_ok=True)
        _move_all(delegated, delegated / REFEREE_LEAF)
        base.mkdir(exist_ok=True)
    except OSError:
        return None
    _enable(delegated, V2_CONTROLLERS)
    _enable(base, V2_CONTROLLERS)
    return base


def _own_group() -> Path | None:
    """This process's group in the unified hierarchy, from /proc/self/cgroup."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::/"):
            return CGROUP_ROOT / line[4:]
    return None


def _move_all(source: Path, leaf: Path) -> None:
    """Move every process of ``source`` into ``leaf`` (a few passes: one may fork meanwhile)."""
    for _ in range(10):
        pids = (source / "cgroup.procs").read_text().split()
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):  # ended meanwhile
                (leaf / "cgroup.procs").write_text(pid)


def _enable(group: Path, controllers: tuple[str, ...]) -> None:
    """Enable each of the controllers for the group's children, one at a time: one that the
    system refuses (not available, or held by a version 1 hierarchy) leaves the others on."""
    try:
        enabled = set((group / "cgroup.subtree_control").read_text().split())
    except OSError:
        return
    for controller in controllers:
        if controller not in enabled:
            with contextlib.suppress(OSError):
                (group / "cgroup.subtree_control").write_text(f"+{controller}")


def cgroup_cpu_seconds(groups: list[Path]) -> float | None:
    """CPU time used by every process that ever ran in the seat's group: its cpuacct group
    (version 1), or its one group wherever it was made, under the root or in a delegated
    subtree (the unified hierarchy counts CPU time in every group)."""
    try:
        if groups and unified():
            return _usage_usec(groups[0] / "cpu.stat") / 1e6
        for group in groups:
            if group.parent.parent.name == "cpuacct":
                return int((group / "cpuacct.usage").read_text()) / 1e9
    except (OSError, ValueError):
        return None
    return None


def cgroup_processes(groups: list[Path]) -> set[int] | None:
    """Every process in the seat's group and the groups below it (None without a group):
    unlike the process tree, it holds the orphans a bot left outside its namespace."""
    if not groups:
        return None
    found: set[int] = set()
    try:
        for folder, _, _ in os.walk(groups[0]):
            text = (Path(folder) / "cgroup.procs").read_text()
            found.update(int(pid) for pid in text.split())
    except (OSError, ValueError):
        return None
    return found


def _usage_usec(stat: Path) -> int:
    """The ``usage_usec`` line of a unified group's ``cpu.stat``."""
    for line in stat.read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == "usage_usec":
            return int(value)
    raise ValueError(f"no usage_usec in {stat}")


CAP_FILES = {"processes": ("pids.max",), "memory": ("memory.max", "memory.limit_in_bytes"),
             "cpu": ("cpu.max", "cpu.cfs_quota_us")}  # what a seat's cgroups cap, by file


def seat_caps() -> frozenset[str]:
    """What a seat's cgroups would cap for all of a bot's processes together on this
    machine (``processes``, ``memory``, ``cpu``), from a seat's groups made and removed at
    once: none where the referee may make no cgroup, and each process is capped alone."""
    groups = new_seat_cgroups(8, 1 << 30)
    try:
        files = {f.name for group in groups for f in group.iterdir()}
    finally:
        kill_cgroups(groups)
    return frozenset(cap for cap, names in CAP_FILES.items() if files & set(names))


def kill_cgroups(groups: list[Path]) -> None:
    """Kill every process left in the seat's groups (a fork bomb escapes its process group),
    then remove the groups."""
    for group in groups:
        with contextlib.suppress(OSError):  # unified, Linux 5.14 and later: all at once
            (group / "cgroup.kill").write_text("1")
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


def reap_orphan_cgroups(bases: list[Path]) -> None:
    """Remove the groups, in the arena's folders ``bases``, of referees that are gone (killed
    before they could clean up)."""
    for base in bases:
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
    die_with_parent()  # never outlive the referee that started it
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
        die_with_parent()  # again: the change of user cleared it; PID 1 of the bot's
        # namespaces, it takes every process of the bot with it
    else:
        drop_capabilities()
    refuse_key_calls()  # keys outlive processes and namespaces (arena.seats.syscalls)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        hidden = args.confine and exc.errno == errno.ENOENT  # there outside, maybe not inside
        where = " inside the bot's confinement" if args.confine else ""
        sys.exit(f"arena.seats.sandbox: error: cannot run {command[0]!r}{where} "
                 f"({exc.strerror})" + (CONFINED_HINT if hidden else ""))


def die_with_parent() -> None:
    """Be killed when the parent dies (prctl's parent-death signal; a fork and a change of
    user clear it, so each process that must not outlive its parent sets it)."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


CONFINED_HINT = ("; it sees the system's programs, its own folder and its read: paths, and "
                 "a /tmp of its own")


if __name__ == "__main__":
    main()
