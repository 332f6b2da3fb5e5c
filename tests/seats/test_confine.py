"""The confinement of bot processes (arena/seats/confine.py): what a confined bot can see and do.

Each test runs a small Python script through the sandbox wrapper exactly as the referee
starts a bot (``python -m arena.seats.sandbox ... --confine --read ... -- CMD``) and checks what
the script could reach. Skipped where the system forbids user namespaces.
"""

from __future__ import annotations

import errno
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import memory_capped_by_cgroup, writable_by_bots

from arena.errors import BadInput
from arena.referee import play_game
from arena.seats import confine, make
from arena.seats.bot import BotSpec, GameInfo
from arena.seats.make import confinement
from arena.seats.seat import Confinement, Limits
from arena.tournament.config import load_config
from arena.variants.indian13 import Indian13

needs_namespaces = pytest.mark.skipif(not confine.available(),
                                      reason="this system does not allow user namespaces")


def run_confined(script: str, tmp_path: Path, *, read: tuple[str, ...] = (),
                 write: tuple[str, ...] = (), network: bool = False) -> Any:
    """Run ``script`` (which prints one JSON object) as a confined Python bot would run."""
    base = confinement(BotSpec("probe", "probe.py:Probe"))
    assert base is not None
    rules = Confinement(read=(*base.read, *read), write=write, network=network)
    workdir = Path(tempfile.mkdtemp(dir=tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "arena.seats.sandbox", "--memory", str(1 << 30), "--files",
         str(1 << 20), *rules.arguments(), "--", sys.executable, "-c",
         textwrap.dedent(script)],
        cwd=workdir, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


PROBE = """
    import json, os, socket
    def can_read(path):
        try:
            with open(path, "rb") as f:
                f.read(1)
            return True
        except OSError:
            return False
    def can_write(path):
        try:
            with open(path, "a") as f:
                f.write("x")
            return True
        except OSError:
            return False
    def can_connect():
        try:
            socket.create_connection(("127.0.0.1", 22), timeout=0.5)
            return True
        except OSError as exc:
            return exc.errno != 101  # ENETUNREACH: no network at all
    print(json.dumps({
        "pid": os.getpid(), "ppid": os.getppid(), "uid": os.getuid(), "cwd": os.getcwd(),
        "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "secret": can_read(SECRET), "allowed": can_read(ALLOWED),
        "write_allowed": can_write(WRITABLE), "write_secret": can_write(SECRET),
        "write_tmp": can_write("/tmp/scratch"), "home": can_read("/root/.bashrc"),
        "connect": can_connect(),
    }))
"""


def probe(tmp_path: Path) -> dict[str, Any]:
    secret = tmp_path / "results" / "config.yaml"
    secret.parent.mkdir()
    secret.write_text("seed: 1\n")
    allowed = tmp_path / "book.txt"
    allowed.write_text("an opening book\n")
    writable = writable_by_bots(tmp_path / "learnt.txt")
    script = PROBE.replace("SECRET", repr(str(secret))).replace(
        "ALLOWED", repr(str(allowed))).replace("WRITABLE", repr(str(writable)))
    return run_confined(script, tmp_path, read=(str(allowed),), write=(str(writable),))


@needs_namespaces
def test_confined_bot_is_alone_in_its_pid_namespace(tmp_path: Path) -> None:
    found = probe(tmp_path)
    assert found["pid"] == 1 and found["ppid"] == 0
    assert found["processes"] == [1]  # the referee and the other seats cannot be named
    assert found["uid"] == confine.INNER_UID  # not root inside: exec left no capability


@needs_namespaces
def test_confined_bot_reads_only_what_it_is_given(tmp_path: Path) -> None:
    found = probe(tmp_path)
    assert found["secret"] is False  # results/ (the seed, the records) is not there
    assert found["allowed"] is True  # a read: path from its config
    assert found["home"] is False


@needs_namespaces
def test_confined_bot_writes_only_its_tmp_and_write_paths(tmp_path: Path) -> None:
    found = probe(tmp_path)
    assert found["cwd"] == "/tmp" and found["write_tmp"] is True
    assert found["write_allowed"] is True
    assert (tmp_path / "learnt.txt").read_text() == "x"
    assert found["write_secret"] is False
    assert (tmp_path / "results" / "config.yaml").read_text() == "seed: 1\n"


@needs_namespaces
def test_confined_bot_has_no_network(tmp_path: Path) -> None:
    assert probe(tmp_path)["connect"] is False


@needs_namespaces
def test_python_bot_confinement_names_its_own_files() -> None:
    rules = confinement(BotSpec("greedy", "bots.greedy:GreedyBot"))
    assert rules is not None
    assert str(Path("bots").resolve()) in rules.read  # its package
    assert str(Path("arena").resolve()) in rules.read  # the host
    assert not any(p == os.getcwd() for p in rules.read)  # not the project (results/)


@needs_namespaces
def test_command_bot_confinement_names_its_program_and_script(tmp_path: Path) -> None:
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\n")
    rules = confinement(BotSpec("sh", command=("sh", str(script))))
    assert rules is not None
    # its folder where the bot's user may read it (always, under a referee not root)
    assert str(script) in rules.read or str(tmp_path) in rules.read, rules.read
    assert not any(str(tmp_path.parent) == path for path in rules.read), rules.read


def test_without_namespaces_bots_run_unconfined_with_one_warning(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Where the system forbids the namespaces, bots still play (with the other limits)
    and the run says once, in the log, that they are not confined."""
    monkeypatch.setattr(confine, "problem", lambda: "unshare: Operation not permitted")
    make._warn_unconfined.cache_clear()  # once per run: this test's run starts here
    random_bot = BotSpec("random", "bots.random_bot:RandomBot")
    assert confinement(random_bot) is None
    record = play_game(Indian13, [random_bot] * 2, seed=3, isolation="process",
                       options={"players": 2, "draw_cap": 6})
    assert all(not any(seat.faults.values()) for seat in record.seats)
    warnings = [r.getMessage() for r in caplog.records if "unconfined" in r.getMessage()]
    assert len(warnings) == 1 and "Operation not permitted" in warnings[0]


@needs_namespaces
def test_a_path_given_through_a_symlink_is_there_under_both_names(tmp_path: Path) -> None:
    """A venv or a home folder reached through a link: the bot may open either name."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "book.txt").write_text("e4\n")
    link = tmp_path / "link"
    link.symlink_to(real)
    script = f"""
        import json
        print(json.dumps([open(p).read() for p in
                          ({str(real / "book.txt")!r}, {str(link / "book.txt")!r})]))
    """
    assert run_confined(script, tmp_path, read=(str(link),)) == ["e4\n", "e4\n"]


UNDUMPABLE_CHECK = """
from arena.seats import confine
from arena.seats.sandbox import harden_self
harden_self()
print(confine.problem())
"""


@needs_namespaces
def test_the_check_confines_as_the_sandbox_does_in_a_referee_that_hid_its_memory() -> None:
    """``arena play`` hides the referee's memory (undumpable) before it asks whether bots can
    be confined. The check used to confine a fork of it, and an undumpable process that is
    not root may not write its own user maps: every bot of a user not root then ran
    unconfined, though the sandbox (a fresh process) could confine it. (Under root both
    ways work; CI also runs this suite as a user who is not.)"""
    done = subprocess.run([sys.executable, "-c", UNDUMPABLE_CHECK], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"


def stand_in_sysctl(folder: Path, **settings: str) -> Path:
    """A /proc/sys of its own: each setting (``kernel__name``) a file holding its value."""
    for key, value in settings.items():
        path = folder / key.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")
    return folder


@pytest.mark.parametrize(("settings", "named"), [
    ({"kernel__apparmor_restrict_unprivileged_userns": "1"},  # Ubuntu 24.04's default
     "AppArmor restricts user namespaces, as Ubuntu does by default since 24.04 "
     "(kernel.apparmor_restrict_unprivileged_userns = 1;"),
    ({"kernel__unprivileged_userns_clone": "0"},  # Debian's switch, off
     "user namespaces are off for users (kernel.unprivileged_userns_clone = 0;"),
    ({"user__max_user_namespaces": "0", "kernel__unprivileged_userns_clone": "1"},
     "user namespaces are off (user.max_user_namespaces = 0;"),
    ({"kernel__apparmor_restrict_unprivileged_userns": "0",
      "kernel__unprivileged_userns_clone": "1", "user__max_user_namespaces": "15000"}, None),
    ({}, None),  # a kernel with none of these settings
], ids=["ubuntu-apparmor", "debian-switch-off", "no-namespaces-allowed", "all-allow", "none"])
def test_a_failed_check_names_the_system_setting_that_forbids_namespaces(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, settings: dict[str, str],
        named: str | None) -> None:
    """On Ubuntu 24.04 the check fails with 'Operation not permitted', which does not say
    that a setting of the system is why, nor which; the warning now says both, and where
    the remedy is. A setting that allows them adds nothing."""
    monkeypatch.setattr(confine, "SYSCTL", stand_in_sysctl(tmp_path, **settings))
    monkeypatch.setattr(confine, "CHECK", "print('mount /: Operation not permitted')\n"
                                          "raise SystemExit(1)\n")
    why = confine.problem.__wrapped__()  # type: ignore[attr-defined]
    assert why is not None and why.startswith("mount /: Operation not permitted")
    if named is None:
        assert why == "mount /: Operation not permitted"
    else:
        assert why == f"mount /: Operation not permitted; {named} " \
                      "docs/security.md says how to allow them)"


def test_a_check_that_confines_names_no_setting(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    """The settings are read only when confinement fails: where it works, the check is all."""
    monkeypatch.setattr(confine, "SYSCTL", stand_in_sysctl(
        tmp_path, kernel__apparmor_restrict_unprivileged_userns="1"))
    monkeypatch.setattr(confine, "CHECK", "pass\n")
    assert confine.problem.__wrapped__() is None  # type: ignore[attr-defined]


def test_elsewhere_than_linux_the_reason_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module imports everywhere; off Linux the check names why, without a system call."""
    monkeypatch.setattr(sys, "platform", "darwin")
    assert confine.problem.__wrapped__() == "namespaces are a Linux feature (this is darwin)"


def test_arena_run_warns_on_the_console_when_bots_are_unconfined(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A security fact belongs on the console, not only in the log file."""
    from typer.testing import CliRunner

    from arena.cli.app import app

    config = tmp_path / "t.yaml"
    config.write_text(f"name: t\nvariant: indian13\noptions: {{players: 2, draw_cap: 6}}\n"
                      f"bots:\n  - name: a\n    module: bots.random_bot:RandomBot\n"
                      f"  - name: b\n    module: bots.random_bot:RandomBot\n"
                      f"seed: 1\nworkers: 1\noutput: {tmp_path / 'out'}\n")
    monkeypatch.setattr(confine, "problem", lambda: "unshare: Operation not permitted")
    result = CliRunner().invoke(app, ["run", str(config)])
    assert result.exit_code == 0, result.output
    assert "arena: warning: bots run unconfined (unshare: Operation not permitted)" in \
        result.stderr


@needs_namespaces
def test_network_only_for_a_bot_given_it(tmp_path: Path) -> None:
    """``network: true`` in a bot's config keeps the machine's network (a bot that calls a
    service); every other bot has none."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        script = f"""
            import json, socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
                print(json.dumps("connected"))
            except OSError as exc:
                print(json.dumps(type(exc).__name__))
        """
        assert run_confined(script, tmp_path) != "connected"
        assert run_confined(script, tmp_path, network=True) == "connected"


@needs_namespaces
def test_a_confined_bot_sees_only_the_parts_of_etc_programs_need(tmp_path: Path) -> None:
    """Only named entries of /etc are bound: the shadow file and other secrets are absent
    (a referee run as root would otherwise let the bot read them)."""
    seen = run_confined("""
        import json, os
        print(json.dumps({"etc": sorted(os.listdir("/etc")),
                          "shadow": os.path.exists("/etc/shadow"),
                          "passwd": os.path.exists("/etc/passwd") == os.path.exists(
                              "/proc/1/root/etc/passwd")}))
    """, tmp_path)
    assert seen["shadow"] is False
    assert set(seen["etc"]) <= set(confine.ETC)
    assert "ld.so.cache" in seen["etc"] or not os.path.exists("/etc/ld.so.cache")


@pytest.mark.parametrize("confined", [True, False])
def test_a_bot_gets_none_of_the_organisers_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, confined: bool) -> None:
    """A bot inherits PATH, the locale and a HOME of its own, plus its config's env:, never
    the organiser's other variables (tokens, keys)."""
    if confined and not confine.available():
        pytest.skip("this system does not allow user namespaces")
    if not confined:
        monkeypatch.setattr(confine, "problem", lambda: "unconfined on purpose")
    monkeypatch.setenv("ARENA_TEST_TOKEN", "s3cret")
    script = 'read start; env >&2; echo \'{"type": "ready"}\'; read quit'
    spec = BotSpec("envy", command=("/bin/sh", "-c", script), variables={"MY_SETTING": "7"})
    seat = make.make_seat(spec, isolation="process", stderr_dir=tmp_path)
    info = GameInfo(0, 2, "indian13/v1", {}, 0)
    try:
        assert seat.begin(info) is None and seat.ready() is None
    finally:
        seat.close()
    log = (tmp_path / "envy.stderr.log").read_text("utf-8")
    env = dict(line.split("=", 1) for line in log.splitlines() if "=" in line)
    assert "ARENA_TEST_TOKEN" not in env and "s3cret" not in json.dumps(env)
    assert env["MY_SETTING"] == "7" and env["PATH"] == os.environ["PATH"]
    assert env["HOME"] != os.environ.get("HOME")
    assert set(env) <= {"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM", "PYTHONPATH",
                        "MY_SETTING", "PWD", "TMPDIR", "SHLVL", "_", "OPENBLAS_CORETYPE",
                        "OPENBLAS_L2_SIZE", "LC_CTYPE"} | {k for k in env if k.startswith("LC_")}


@needs_namespaces
def test_scratch_space_has_a_file_count_limit_and_dev_is_read_only(tmp_path: Path) -> None:
    """Every tmpfs a bot can write has an inode limit (empty files cost kernel memory), and
    /dev takes no file (it would outlive the game: only /tmp and /dev/shm are emptied)."""
    seen = run_confined("""
        import json, os
        def fill(folder):
            made = 0
            try:
                while made < 100_000:
                    open(f"{folder}/f{made}", "w").close()
                    made += 1
            except OSError:
                pass
            return made
        dev = True
        try:
            open("/dev/note", "w").close()
        except OSError:
            dev = False
        null = open("/dev/null", "w").write("x") == 1
        print(json.dumps({"tmp": fill("/tmp"), "shm": fill("/dev/shm"), "dev": dev,
                          "null": null}))
    """, tmp_path)
    assert 1000 < seen["tmp"] <= confine.TMP_FILES
    assert 100 < seen["shm"] <= 1024
    assert seen["dev"] is False and seen["null"] is True


ADD_KEY = {"x86_64": 248, "aarch64": 217}.get(platform.machine())
KEY_SCRIPT = """
    import ctypes, json, sys
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    key = libc.syscall(ADD_KEY, b"user", b"arena-probe", b"memo", 4, ctypes.c_long(-4))
    made, err = key > 0, ctypes.get_errno()
    if made:  # the control, outside any sandbox: leave nothing in the keyring
        libc.syscall(KEYCTL, 21, ctypes.c_long(key))  # KEYCTL_INVALIDATE
    print(json.dumps({"made": made, "errno": err}))
"""


def run_key_script(tmp_path: Path, sandbox: list[str]) -> Any:
    """Try to add a key to the user keyring, under ``sandbox`` (empty: as the tests run)."""
    script = textwrap.dedent(KEY_SCRIPT).replace("ADD_KEY", str(ADD_KEY)) \
        .replace("KEYCTL", str(ADD_KEY + 2 if ADD_KEY else 0))
    done = subprocess.run([*sandbox, sys.executable, "-c", script], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(ADD_KEY is None, reason="key calls are refused on x86_64 and aarch64")
@pytest.mark.parametrize("confined", [False, pytest.param(True, marks=needs_namespaces)])
def test_a_bot_can_keep_no_kernel_key(tmp_path: Path, confined: bool) -> None:
    """A kernel key outlives every process and namespace, and its owner may make it readable
    by any process: a bot could leave one for its next game or for another seat (both seen:
    the other seat's hand, read through /proc/keys). Key calls now fail as on a kernel
    without keys (ENOSYS), confined or not; the control makes a key as the tests run."""
    if not run_key_script(tmp_path, [])["made"]:
        pytest.skip("this kernel (or container) refuses keys to every process already")
    rules = confinement(BotSpec("probe", "probe.py:Probe")) if confined else None
    sandbox = [sys.executable, "-m", "arena.seats.sandbox", "--memory", str(1 << 30),
               "--files", str(1 << 20), *(rules.arguments() if rules else []), "--"]
    assert run_key_script(tmp_path, sandbox) == {"made": False, "errno": errno.ENOSYS}


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the referee is not root here")


@needs_root
@needs_namespaces
def test_under_a_root_referee_a_bot_is_nobody_outside(tmp_path: Path) -> None:
    """A root referee's bot acts as uid 65534 on every file it can see: a root-only file
    bound in for it stays unreadable, a root-owned file without o+w unwritable, and what it
    writes belongs to 65534."""
    private = tmp_path / "private.txt"
    private.write_text("root only\n")
    private.chmod(0o600)
    kept = tmp_path / "kept.txt"
    kept.write_text("")  # 0644: root's
    (tmp_path / "shared").mkdir()
    shared = writable_by_bots(tmp_path / "shared")
    found = run_confined(f"""
        import json, os
        def can(path, mode):
            try:
                with open(path, mode) as f:
                    f.read(1) if mode == "rb" else f.write("x")
                return True
            except OSError:
                return False
        with open({str(shared / "made.txt")!r}, "w") as f:
            f.write("x")
        print(json.dumps({{"read_private": can({str(private)!r}, "rb"),
                          "write_kept": can({str(kept)!r}, "a"), "uid": os.getuid(),
                          "groups": os.getgroups()}}))
        """, tmp_path, read=(str(private),), write=(str(kept), str(shared)))
    assert found == {"read_private": False, "write_kept": False, "uid": confine.INNER_UID,
                     "groups": []}
    assert (shared / "made.txt").stat().st_uid == confine.OUTSIDE_UID


@needs_root
def test_a_path_a_root_referees_bot_cannot_use_is_refused_at_config(tmp_path: Path) -> None:
    """A write: path only root may write is a one-line config error, not a bot's failure
    mid-tournament (under a root referee)."""
    (tmp_path / "notes").mkdir(mode=0o755)
    config = tmp_path / "c.yaml"
    config.write_text("name: c\nvariant: indian13\noptions: {players: 2}\nbots:\n  - name: a\n"
                      "    module: bots.random_bot:RandomBot\n    write: [notes]\n"
                      "  - name: b\n    module: bots.random_bot:RandomBot\n", "utf-8")
    with pytest.raises(BadInput, match=r"c.yaml:7: bots\[0\].write\[0\]: 'notes' is not "
                                       r"writable by uid 65534.*chmod o\+rwx"):
        load_config(config)
    writable_by_bots(tmp_path / "notes")
    assert load_config(config).bots[0].write == (str((tmp_path / "notes").resolve()),)


@needs_root
@needs_namespaces
def test_a_bot_file_a_root_referees_bot_cannot_read_is_named_before_any_game(
        tmp_path: Path) -> None:
    """Under a root referee the bot runs as uid 65534; its own file written under umask 077
    is a one-line refusal that says what to do, where it used to be the bot's start error,
    'PermissionError: [Errno 13] Permission denied: ...'."""
    bot = tmp_path / "mine.py"
    bot.write_text("from bots.random_bot import RandomBot as Mine\n", "utf-8")
    bot.chmod(0o600)
    spec = BotSpec("mine", f"{bot}:Mine")
    with pytest.raises(BadInput, match=r"bot 'mine': .*mine.py is not readable by uid 65534"
                                       r".*chmod o\+r it"):
        make.make_seat(spec, isolation="process")


def test_memory_mb_caps_a_bot_and_its_children_together(tmp_path: Path) -> None:
    """limits.memory_mb holds for the bot and every process it starts, together (a memory
    cgroup): of five children that take 150 MB each and keep it 6 s, at most three keep
    it together under 512 MB (the kernel kills the others)."""
    report = writable_by_bots(tmp_path / "held.txt")
    spec = BotSpec("hungry", f"{Path(__file__).parents[1] / 'bots' / 'memory_children.py'}"
                             ":MemoryChildren", {"report": str(report), "mb": 150, "hold_s": 6},
                   write=(str(report),))
    if not memory_capped_by_cgroup():
        pytest.skip("no memory cgroup here: the per-process limit is the fallback")
    seat = make.make_seat(spec, isolation="process", limits=Limits(memory_mb=512))
    try:
        assert seat.begin(GameInfo(0, 2, "indian13/v1", {}, 0)) is None
        assert seat.ready() is None
        deadline = time.monotonic() + 120  # room for a busy machine to touch 750 MB
        while time.monotonic() < deadline and "still" not in report.read_text():
            time.sleep(0.5)
        time.sleep(3)  # the other survivors say so within moments
    finally:
        seat.close()
    words = report.read_text().split()
    assert words.count("held") >= 1
    assert 1 <= words.count("still") <= 3, words  # 5 x 150 MB never at once under 512 MiB
