"""Confinement of a bot process in Linux namespaces: it sees only its own processes and a
read-only file system made of what it needs to run.

A bot runs as the referee's user, so without this it could read the tournament's files
(the seed, hence every deal), read or signal the other seats and the referee. Here the
sandbox wrapper, before it executes the bot, makes new user, mount, PID, IPC, network and
UTS namespaces (no privilege needed where unprivileged user namespaces are enabled, as on
most Linux systems):

- the bot is PID 1 of a PID namespace of its own: no other process can be named, so none
  can be signalled, traced or read through ``/proc``;
- its root is a fresh tmpfs holding read-only binds of the system folders, the Python
  installation, the ``arena`` package and the bot's own files (plus any ``read`` path its
  config names), a new ``/proc``, a minimal ``/dev``, and a small writable ``/tmp`` that is
  its working directory; ``write`` paths are bound writable;
- it has no network (a network namespace with only a loopback that is down) and runs as a
  user without capabilities inside the namespace, so it cannot undo the mounts.

The same design as bubblewrap's (https://github.com/containers/bubblewrap), in a few
system calls made through ctypes so nothing needs installing.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import platform
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACES = (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET
              | CLONE_NEWUTS)

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MNT_DETACH = 2
# statvfs flags (Linux values: os.ST_* exist only there) that a remount inside a user
# namespace must keep, since they are locked, with the mount flag of each
LOCKED_FLAGS = ((2, MS_NOSUID), (4, MS_NODEV), (8, MS_NOEXEC), (1024, MS_NOATIME),
                (2048, MS_NODIRATIME), (4096, MS_RELATIME))
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}

INNER_UID = 1000  # the bot's user inside its namespace: not 0, so exec leaves no capability
OUTSIDE_UID = 65534  # who a bot is outside under a root referee ("nobody"), never root
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
       "passwd", "group", "nsswitch.conf", "hosts", "host.conf", "resolv.conf", "gai.conf",
       "protocols", "services", "ssl", "ca-certificates", "ca-certificates.conf",
       "mime.types", "os-release")  # what programs read of /etc: never shadow, ssh, sudoers
DEVICES = ("null", "zero", "full", "random", "urandom")
TMP_BYTES = 64 << 20  # the bot's writable /tmp (its working directory)
TMP_FILES = 8192  # files and folders in it at most (tmpfs inodes cost kernel memory)


class ConfineError(OSError):
    """The namespaces could not be made (the kernel or its settings forbid them)."""


@functools.cache
def _c() -> ctypes.CDLL:
    """The C library, opened on first use (so importing this module works everywhere)."""
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise ConfineError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    _check(_c().mount(_b(source), _b(target), _b(fstype), ctypes.c_ulong(flags), _b(data)),
           f"mount {target}")


def _b(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def python_paths() -> list[str]:
    """What the Python host needs to read: the interpreter, its libraries, this package and
    its built-in bots (a bot may build on them)."""
    import sysconfig

    paths = {sys.base_prefix, sys.prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    paths.update(v for k, v in sysconfig.get_paths().items() if k != "scripts")
    paths.update(p for p in sys.path if p and os.path.isdir(p) and "site-packages" in p)
    paths.add(str(Path(__file__).resolve().parents[1]))  # arena itself (an editable install)
    paths.update(_package_files("bots"))  # the built-in bots, to build on
    return sorted(p for p in paths if os.path.exists(p))


def module_paths(target: str) -> list[str]:
    """The files of a bot given as ``package.module:Class`` or ``path/to/bot.py:Class``:
    the whole top-level package (a bot may import its siblings), or the single file."""
    where = target.rpartition(":")[0]
    if where.endswith(".py"):
        return [_own(Path(where))]
    return _package_files(where.split(".")[0])


def _own(file: Path) -> str:
    """A bot file's folder (its helpers and data beside it), or the file alone where that
    folder is too wide to hand over (see :func:`arena.seats.bot.own_folder`) or one the
    bot's user could not read anyway (under a root referee)."""
    from arena.seats.bot import own_folder

    folder = own_folder(file)
    if folder is None or unusable_by_bots(str(folder), writable=False):
        return str(file.resolve())
    return str(folder)


def _package_files(top: str) -> list[str]:
    """Where a top-level package (its folders) or module (its file) is found, looking in
    the folder the bots are run from first, as the host's import path does."""
    from arena.seats.bot import find_module

    spec = find_module(top)
    if spec is not None and spec.submodule_search_locations:
        return [str(Path(p).resolve()) for p in spec.submodule_search_locations]
    if spec is not None and spec.origin and os.path.exists(spec.origin):
        return [str(Path(spec.origin).resolve())]
    return []


def command_paths(command: list[str]) -> list[str]:
    """The executable of a command bot and every argument that names an existing file."""
    import shutil

    found = []
    exe = shutil.which(command[0]) if command else None
    if exe:  # a program named by its path is the bot's own file, a program on PATH is not
        found.append(_own(Path(exe)) if "/" in command[0] else str(Path(exe).resolve()))
    found += [_own(Path(arg)) if os.path.isfile(arg) else str(Path(arg).resolve())
              for arg in command[1:] if os.path.isabs(arg) and os.path.exists(arg)]
    return found


def confine(read: Iterable[str], write: Iterable[str], *, network: bool = False,
            hide: Iterable[str] = ()) -> None:
    """Move this process into new namespaces and a new root; after it returns, the calling
    process is PID 1 of its namespace (the original waits outside and passes its exit on).

    With ``network`` the bot keeps the machine's network (a bot that calls a service).
    ``hide``: folders shown empty even inside a folder it may read (the results folder).
    Raises ConfineError (before anything is changed) if the namespaces cannot be made.
    """
    namespaces = NAMESPACES & ~CLONE_NEWNET if network else NAMESPACES
    if os.geteuid() == 0:
        _unshare_mapped_from_outside(namespaces)
    else:
        uid, gid = os.getuid(), os.getgid()
        _check(_c().unshare(namespaces), "unshare")
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{INNER_UID} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{INNER_UID} {gid} 1")
    _no_ipc_objects()
    child = os.fork()  # the first child is PID 1 of the new PID namespace
    if child:
        _wait_and_exit(child)
    _check(_c().prctl(1, signal.SIGKILL, 0, 0, 0), "prctl")  # dies with the waiting parent
    _build_root(sorted(set(read)), sorted(set(write)), sorted(set(hide)))


def _unshare_mapped_from_outside(namespaces: int) -> None:
    """Under a root referee: a child makes the namespaces and this process, still root
    outside, writes the child's maps (only a process outside may map two users): inner root
    is root while the bot's root is built, INNER_UID is OUTSIDE_UID for the bot itself.
    Returns in the child; the original waits outside and passes its exit on."""
    made_r, made_w = os.pipe()
    mapped_r, mapped_w = os.pipe()
    child = os.fork()
    if child:
        os.close(made_w)
        os.close(mapped_r)
        if os.read(made_r, 1) == b"u":
            users = f"0 0 1\n{INNER_UID} {OUTSIDE_UID} 1\n"
            for name in ("uid_map", "gid_map"):
                Path(f"/proc/{child}/{name}").write_text(users)
            os.write(mapped_w, b"m")
        os.close(mapped_w)
        _wait_and_exit(child)
    os.close(made_r)
    os.close(mapped_w)
    _check(_c().prctl(1, signal.SIGKILL, 0, 0, 0), "prctl")  # dies with the waiting parent
    made = _c().unshare(namespaces)
    err = ctypes.get_errno()
    os.write(made_w, b"u" if made == 0 else b"x")
    os.close(made_w)
    if made != 0:
        raise ConfineError(err, f"unshare: {os.strerror(err)}")
    if os.read(mapped_r, 1) != b"m":
        raise ConfineError(1, "the user maps could not be written")
    os.close(mapped_r)


def become_bot_user() -> None:
    """Under a root referee, leave inner root for INNER_UID (OUTSIDE_UID outside) for good:
    the bot never acts as root, on the files it can see or anywhere else. After
    confine(), before the bot is executed; a no-op where the bot is INNER_UID already."""
    if os.getuid() != 0:
        return
    os.setgroups([])
    os.setresgid(INNER_UID, INNER_UID, INNER_UID)
    os.setresuid(INNER_UID, INNER_UID, INNER_UID)


def unusable_by_bots(path: str, *, writable: bool) -> str | None:
    """Why a bot could not use a ``read:`` or ``write:`` path under a root referee, where it
    runs as OUTSIDE_UID (None: it can, or the referee is not root): found at config time,
    so the organiser reads it there rather than in a bot's log mid-tournament."""
    if os.geteuid() != 0:
        return None
    info = os.stat(path)
    need = (stat.S_IWOTH | stat.S_IROTH if writable else stat.S_IROTH) | \
        (stat.S_IXOTH if stat.S_ISDIR(info.st_mode) else 0)
    if info.st_mode & need == need:
        return None
    if info.st_uid == OUTSIDE_UID and info.st_mode & (need << 6) == need << 6:
        return None
    what = "writable" if writable else "readable"
    return (f"is not {what} by uid {OUTSIDE_UID}, the user bots run as under a root referee "
            f"(chmod o+{'rw' if writable else 'r'}{'x' if need & stat.S_IXOTH else ''} it, "
            f"chown it to {OUTSIDE_UID}, or run the arena as an ordinary user)")


IPC_LIMITS = {"kernel/shmmni": "0", "kernel/msgmni": "0", "kernel/sem": "0 0 0 0",
              "fs/mqueue/queues_max": "0"}


def _no_ipc_objects() -> None:
    """No System V or POSIX message-queue objects in the new IPC namespace: they would
    outlive a game's processes (kernels before 5.x may refuse; then they stay allowed)."""
    for key, value in IPC_LIMITS.items():
        with contextlib.suppress(OSError):
            Path("/proc/sys", key).write_text(value)


def _wait_and_exit(child: int) -> None:
    """Outside the namespace: hold no pipe end, wait for the bot, exit as it did."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: os.kill(child, signal.SIGKILL))
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def _build_root(read: list[str], write: list[str], hide: list[str]) -> None:
    """A tmpfs root with the allowed paths bound in, the hidden ones emptied, then pivot
    into it."""
    root = os.getcwd()  # the seat's fresh, empty folder
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=4m,nr_inodes=4096")
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            os.symlink(os.readlink(path), root + path)
        elif os.path.isdir(path):
            _bind(path, root, writable=False)
    os.mkdir(root + "/etc")
    for name in ETC:
        path = "/etc/" + name
        if os.path.islink(path):
            os.symlink(os.readlink(path), root + path)
        elif os.path.exists(path):
            _bind(path, root, writable=False)
    os.makedirs(root + "/tmp", exist_ok=True)
    _mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
           f"mode=0777,size={TMP_BYTES},nr_inodes={TMP_FILES}")
    done: list[str] = [p for p in SYSTEM_PATHS if os.path.isdir(p) and not os.path.islink(p)]
    for path, writable in [(p, False) for p in read] + [(p, True) for p in write]:
        real = os.path.realpath(path)
        # a path reached through a symlink (a venv, a linked home) is bound under both names
        for name in dict.fromkeys((real, os.path.abspath(path))):
            if os.path.exists(real) and (writable or not _under(name, done)):
                _bind(real, root, writable=writable, at=name)
                done.append(name)
    for path in hide:  # unless that would hide what the bot was given to read
        for name in dict.fromkeys((os.path.realpath(path), os.path.abspath(path))):
            if os.path.isdir(root + name) and not any(_under(r, [name]) for r in read):
                _mount("tmpfs", root + name, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY,
                       "mode=0555,size=4k,nr_inodes=2")
    _make_dev(root)
    os.mkdir(root + "/proc")
    _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _mount(None, root, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(root)
    _check(_c().syscall(SYS_PIVOT_ROOT[platform.machine()], b".", b"."), "pivot_root")
    _check(_c().umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/tmp")
    os.environ.update(HOME="/tmp", TMPDIR="/tmp", PWD="/tmp")


def _under(path: str, parents: list[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in parents)


def _bind(source: str, root: str, *, writable: bool, at: str | None = None) -> None:
    """Bind ``source`` at its own path (or ``at``) under ``root``; read-only unless
    ``writable``."""
    target = root + (at or source)
    if os.path.lexists(target):
        pass  # inside a folder bound already (a writable file in a read-only folder)
    elif os.path.isdir(source):
        os.makedirs(target)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        Path(target).touch()
    _mount(source, target, None, MS_BIND | MS_REC)
    flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | (0 if writable else MS_RDONLY)
    kept = os.statvfs(source).f_flag
    flags |= sum(ms for st, ms in LOCKED_FLAGS if kept & st)
    _mount(None, target, None, flags)


def _make_dev(root: str) -> None:
    """The few devices a program expects, and a /dev/shm of its own."""
    dev = root + "/dev"
    os.mkdir(dev)
    _mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64")
    for name in DEVICES:
        if os.path.exists("/dev/" + name):
            Path(f"{dev}/{name}").touch()
            _mount("/dev/" + name, f"{dev}/{name}", None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{dev}/{name}")
    os.mkdir(dev + "/shm")
    _mount("tmpfs", dev + "/shm", "tmpfs", MS_NOSUID | MS_NODEV,
           "mode=1777,size=16m,nr_inodes=1024")
    # nothing written in /dev itself survives into a later game: it is made read-only
    _mount(None, dev, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC)


def available() -> bool:
    """Whether this machine lets a bot be confined."""
    return problem() is None


@functools.cache
def problem() -> str | None:
    """Why bots cannot be confined here (None: they can), found once by confining a fresh
    process for real, as the sandbox does: some systems allow the namespaces but not the
    mounts. Not a fork of this one: a referee that has made itself undumpable (its memory
    holds every hand) passes that on, and an undumpable process, not being root, may not
    write its own user maps, so the check would fail where the sandbox succeeds."""
    if sys.platform != "linux":
        return f"namespaces are a Linux feature (this is {sys.platform})"
    if platform.machine() not in SYS_PIVOT_ROOT:
        return f"pivot_root's system call number is not known for {platform.machine()}"
    folder = tempfile.mkdtemp(prefix="arena-confine-check-")
    try:
        done = subprocess.run([sys.executable, "-c", CHECK], cwd=folder, capture_output=True,
                              timeout=60, check=False)
    except subprocess.TimeoutExpired:
        return "the check did not end within 60 s"
    finally:
        os.rmdir(folder)
    if done.returncode == 0:
        return None
    why = done.stdout.decode(errors="replace").strip()[:500]
    why = why or f"the check exited with status {done.returncode}"
    switch = namespaces_switched_off()
    return why if switch is None else f"{why}; {switch}"


SYSCTL = Path("/proc/sys")
USERNS_SWITCHES = (  # (setting, the value that forbids them, what that value means)
    ("kernel/apparmor_restrict_unprivileged_userns", "1",
     "AppArmor restricts user namespaces, as Ubuntu does by default since 24.04"),
    ("kernel/unprivileged_userns_clone", "0", "user namespaces are off for users"),
    ("user/max_user_namespaces", "0", "user namespaces are off"),
)


def namespaces_switched_off() -> str | None:
    """The system setting that forbids a user's namespaces, if one does, said with what
    allows them (docs/security.md): the check's own error (``Operation not permitted``)
    does not say which of several it is."""
    for setting, forbids, what in USERNS_SWITCHES:
        try:
            value = (SYSCTL / setting).read_text().strip()
        except OSError:  # not this kernel's setting
            continue
        if value == forbids:
            name = setting.replace("/", ".")
            return f"{what} ({name} = {value}; docs/security.md says how to allow them)"
    return None


CHECK = """
import sys
from arena.seats.confine import confine, python_paths
try:
    confine(python_paths(), [])
except BaseException as exc:
    print(exc, flush=True)
    sys.exit(1)
"""
