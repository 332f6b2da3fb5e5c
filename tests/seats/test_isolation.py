"""Bots in their own processes (DESIGN "Bots", COM-5, COM-6, COM-8, COM-10).

The same games as in process; hostile bots (tests/bots/adversarial.py) whose faults are
counted against their own seat under the right kind while the game goes on; limits that hold
(memory, processes, no process left behind); a peeker that learns no hidden card; a bot in
JavaScript; the fault policies; and the size of the protocol's messages.

The tests marked slow (a tournament of every hostile bot, and others) run only with
``-m slow``, as in every file (tests/conftest.py). The confinement itself (namespaces, what a
bot may read) is tested in tests/seats/test_confine.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conftest import pids_capped_by_cgroup, writable_by_bots

import arena.seats.process
import arena.seats.sandbox
from arena.cards import Card
from arena.engine.game import Game
from arena.records import GameRecord, parse_logged, read_games, replay
from arena.referee import Clock, FaultEvent, FaultPolicy, Referee, bot_seed, play_game
from arena.seats import confine
from arena.seats.bot import BotSpec, GameInfo
from arena.seats.make import Isolation, confinement, make_seat
from arena.seats.process import ProcessSeat, host_command
from arena.seats.protocol import ViewDecoder, encode_line, encode_view
from arena.seats.seat import InProcessSeat, Limits
from arena.tournament.config import load_config
from arena.tournament.runner import run_tournament
from arena.variants import find_variant
from arena.variants.indian13 import Indian13
from arena.variants.three_thirteen import ThreeThirteen

ROOT = Path(__file__).parents[2]
ADVERSARIAL = Path(__file__).parents[1] / "bots" / "adversarial.py"
JS_BOT = ROOT / "examples" / "js_bot.js"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")
needs_pids_cgroup = pytest.mark.skipif(
    not pids_capped_by_cgroup(),
    reason="no pids cgroup for a seat here: a fork bomb would not be capped")
needs_a_process_cap = pytest.mark.skipif(  # a confined bot's own user namespace: RLIMIT_NPROC
    not pids_capped_by_cgroup() and not confine.available(),
    reason="neither a pids cgroup for a seat nor confinement: a fork bomb would not be capped")

RANDOM = BotSpec("random", "bots.random_bot:RandomBot")
GREEDY = BotSpec("greedy", "bots.greedy:GreedyBot")
CLOCK = Clock(draw_ms=200, play_ms=200)  # for bots that overrun their clock: it is the point
ROOMY_MS = 10_000  # where the clock is not the point: a bot that answers is in time even on a
ROOMY = Clock(draw_ms=ROOMY_MS, play_ms=ROOMY_MS)  # busy machine (and none waits it out)
LIMITS = Limits(memory_mb=512, processes=32, grace_ms=300, cpu_s_per_game=20)
needs_namespaces = pytest.mark.skipif(not confine.available(),
                                      reason="this system does not allow user namespaces")
HOSTILE = 2  # the hostile bot's seat in the four-seat games


def adversary(cls: str, **params: Any) -> BotSpec:
    """A bot of tests/bots/adversarial.py, tagged so its processes can be found later."""
    params.setdefault("tag", f"{cls}-{uuid.uuid4().hex[:8]}")
    return BotSpec(cls.lower(), f"{ADVERSARIAL}:{cls}", params, write=writable(params))


def writable(params: dict[str, Any]) -> tuple[str, ...]:
    """The bot's report file, made now: the one path a confined test bot may write."""
    if "report" not in params:
        return ()
    writable_by_bots(Path(params["report"]))
    return (params["report"],)


def js_bot(name: str = "js") -> BotSpec:
    return BotSpec(name, command=(str(NODE), str(JS_BOT)))


def without_timing(record: GameRecord) -> GameRecord:
    seats = tuple(msgspec.structs.replace(s, time_mean_ms=0.0, time_p95_ms=0.0, time_max_ms=0.0)
                  for s in record.seats)
    return msgspec.structs.replace(record, seats=seats)


def faults(record: GameRecord, seat: int) -> dict[str, int]:
    """The seat's faults that are not zero."""
    return {k: v for k, v in record.seats[seat].faults.items() if v}


def processes_with(tag: str) -> list[int]:
    """Processes whose command line holds ``tag`` (a bot's processes and its children)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if tag.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def notes(path: Path) -> list[dict[str, Any]]:
    """The JSON lines a bot wrote to its report file."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def cgroups(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every cgroup the seats create during the test."""
    made: list[Path] = []
    real = arena.seats.process.new_seat_cgroups

    def recording(processes: int, memory_bytes: int | None = None) -> list[Path]:
        groups = real(processes, memory_bytes)
        made.extend(groups)
        return groups

    monkeypatch.setattr(arena.seats.process, "new_seat_cgroups", recording)
    return made


# --------------------------------------------------------------------------- (a) same games

@pytest.mark.parametrize(("variant", "seed", "options"), [
    (Indian13, 3, {"players": 4}),
    (Indian13, 8, {"players": 2, "match": {"deals": 2}}),
    (Indian13, 12, {"players": 6}),
    (ThreeThirteen, 5, {"players": 3}),
])
def test_same_seed_same_game_in_both_isolations(variant: type[Game], seed: int,
                                                options: dict[str, Any]) -> None:
    """DESIGN: both isolation modes play the same games for the same seeds (bots included:
    each gets its own seed, in its process or not)."""
    seats = ([RANDOM, GREEDY] * 3)[:options["players"]]
    here = play_game(variant, seats, seed=seed, options=options, isolation="inprocess")
    apart = play_game(variant, seats, seed=seed, options=options, isolation="process")
    assert without_timing(here) == without_timing(apart)
    assert all(sum(s.faults.values()) == 0 for s in apart.seats)


# --------------------------------------------------------------------------- (b) hostile bots

def hostile_game(bot: BotSpec, *, seed: int = 11, clock: Clock = CLOCK,
                 limits: Limits = LIMITS, options: dict[str, Any] | None = None,
                 honest: BotSpec = GREEDY) -> GameRecord:
    seats = [honest] * 4
    seats[HOSTILE] = bot
    return play_game(Indian13, seats, seed=seed, options=options, clock=clock, limits=limits,
                     isolation="process")


def assert_contained(record: GameRecord, bot: BotSpec, made: Sequence[Path]) -> None:
    """The game finished and replays; the honest seats have no fault; nothing of the bot
    outlived the game: no process, no cgroup."""
    assert record.rounds and tuple(replay(record).totals) == record.totals
    for seat in range(len(record.seats)):
        if seat != HOSTILE:
            assert faults(record, seat) == {}, (seat, record.seats[seat])
    assert processes_with(bot.params["tag"]) == []
    if pids_capped_by_cgroup():  # a root referee (or delegated cgroups), v1 or unified
        pids = arena.seats.sandbox.CGROUP_ROOT / "pids"  # version 1; a unified group (under
        # the root, or in a subtree delegated to this user) holds every controller it has
        assert any(g.parent.parent == pids for g in made) or \
            (arena.seats.sandbox.unified() and made), "no pids cgroup"
    assert [g for g in made if g.exists()] == []


@pytest.mark.parametrize(("cls", "params", "clock", "allowed", "required"), [
    ("Sleeper", {}, CLOCK, {"timeout", "crash"}, "timeout"),  # silent past its grace:
    # restarted
    ("Sleeper", {"seconds": 0.35}, CLOCK, {"timeout", "crash"}, "timeout"),  # late replies
    # dropped by id; a backlog of late answers amounts to silence past the grace: restarted
    ("InfiniteLoop", {}, CLOCK, {"timeout", "crash"}, "timeout"),
    ("Crasher", {}, ROOMY, {"crash"}, "crash"),
    ("Crasher", {"code": 0}, ROOMY, {"crash"}, "crash"),  # a clean-looking exit mid-game
    pytest.param("Crasher", {"at": 1}, ROOMY, {"crash"}, "crash", marks=pytest.mark.slow),
    ("GarbageWriter", {}, ROOMY, {"unreadable"}, "unreadable"),
    ("Flooder", {}, ROOMY, {"unreadable", "timeout"}, None),
    ("MemoryHog", {}, ROOMY, {"crash"}, "crash"),  # the allocation fails: it raises
])
def test_hostile_bot_faults_count_against_its_seat(cls: str, params: dict[str, Any],
                                                   clock: Clock, allowed: set[str],
                                                   required: str | None,
                                                   cgroups: list[Path]) -> None:
    """COM-6: every fault of a hostile bot is counted against its seat, of the kinds its
    attack can cause; the safe action keeps the game going; the other seats never notice.
    Only the bots that overrun the clock play on the short one."""
    bot = adversary(cls, **params)
    record = hostile_game(bot, clock=clock)
    got = faults(record, HOSTILE)
    assert got and set(got) <= allowed, got
    if required is not None:
        assert got.get(required, 0) > 0, got
    assert_contained(record, bot, cgroups)


def test_memory_hog_is_stopped_by_the_address_space_limit(tmp_path: Path,
                                                          cgroups: list[Path]) -> None:
    """The allocation fails under RLIMIT_AS: the bot notes what it got, raises (a crash)
    and plays on. Its clock is roomy, so that the limit, not the clock, stops it, however
    slowly a busy machine lets it fill its 512 MB."""
    report = tmp_path / "hog.jsonl"
    bot = adversary("MemoryHog", report=str(report))
    record = hostile_game(bot, clock=ROOMY)
    hoarded = [n["hoarded_mb"] for n in notes(report) if "hoarded_mb" in n]
    assert hoarded and max(hoarded) < LIMITS.memory_mb
    assert faults(record, HOSTILE).get("crash", 0) > 0
    assert set(faults(record, HOSTILE)) == {"crash"}  # raised, never stopped by the clock
    assert_contained(record, bot, cgroups)


@needs_a_process_cap
def test_fork_bomb_is_capped_and_leaves_nothing(tmp_path: Path,
                                                cgroups: list[Path]) -> None:
    """The pids cgroup caps the bomb, and so does RLIMIT_NPROC in the confined bot's own
    user namespace where the referee may make no cgroup (a user not root); its children
    left the process group (setsid), yet none survives the game, and the cgroups are
    removed. (Its clock is roomy: forking takes a
    while on a busy machine, and its answer, not a timeout, shows the forking stopped.)"""
    report = tmp_path / "bomb.jsonl"
    bot = adversary("ForkBomb", spin=False, report=str(report))
    record = hostile_game(bot, clock=ROOMY)
    children = [n["children"] for n in notes(report) if "children" in n]
    assert children and 0 < max(children) < LIMITS.processes
    assert faults(record, HOSTILE) == {}
    assert_contained(record, bot, cgroups)


@needs_a_process_cap
@pytest.mark.slow
def test_spinning_fork_bomb_does_not_starve_the_honest_seats(
        tmp_path: Path, cgroups: list[Path]) -> None:
    """31 busy children on two cores: the honest seats should still answer in time."""
    bot = adversary("ForkBomb", spin=True, report=str(tmp_path / "bomb.jsonl"))
    record = hostile_game(bot)
    assert_contained(record, bot, cgroups)


@needs_pids_cgroup
def test_fork_bomb_children_are_reaped_after_a_killed_referee(tmp_path: Path) -> None:
    """README: a run may be stopped by kill -9. The bot processes die with their referee
    (PDEATHSIG); children that left the process group live on in the seat's cgroups, which
    the next referee to start a seat reaps (arena.seats.sandbox.reap_orphan_cgroups)."""
    tag = f"bomb-{uuid.uuid4().hex[:8]}"
    report = tmp_path / "bomb.jsonl"
    writable_by_bots(report)
    referee = _referee_process(f"""
        bomb = BotSpec("bomb", {str(ADVERSARIAL) + ":ForkBomb"!r},
                       {{"spin": False, "tag": {tag!r}, "report": {str(report)!r}}},
                       write=({str(report)!r},))
        play_game(Indian13, [RANDOM, bomb, RANDOM, RANDOM], seed=3, isolation="process",
                  options={{"match": {{"deals": 50}}}}, limits=Limits(processes=16))
        """)
    try:
        _wait_for(lambda: any("children" in n for n in notes(report)), referee)
        assert len(processes_with(tag)) > 1
    finally:
        os.killpg(referee.pid, signal.SIGKILL)
        referee.wait()
    time.sleep(0.5)
    survivors = len(processes_with(tag))
    print(f"{survivors} processes of the bomb outlived its referee by 0.5 s")
    seat = ProcessSeat(host_command(RANDOM), limits=LIMITS)  # as a new referee would
    seat.launch()
    seat.close()
    with contextlib.suppress(TimeoutError):
        _wait_for(lambda: not processes_with(tag), None, seconds=30)
    left = processes_with(tag)
    _kill_leftovers(left)
    assert left == [], f"{len(left)} processes of the fork bomb are still running"


STARVED = """
import os


class Starved:
    \"\"\"Runs at the idle priority on one CPU, where a busy process will starve it: once
    killed, it is long in dying.\"\"\"

    def __init__(self, tag: str = "", cpu: int = 0) -> None:
        os.sched_setaffinity(0, {{cpu}})
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))

    def draw(self, view):
        return "stock"

    def play(self, view):
        return {{"discard": view.hand[0]}}
"""


def test_a_closed_seat_leaves_no_process_alive_without_cgroups(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """COM-6: close() returns once every process of the seat is dead, not only its host:
    without cgroups (a user not root) nothing else waits for them. A game child starved of
    CPU takes a while to die once killed; it used to be found alive just after. (Starved:
    at the idle priority beside a busy process of the test's own nice level.)"""
    monkeypatch.setattr(arena.seats.process, "new_seat_cgroups", lambda *_: [])
    monkeypatch.setattr(arena.seats.process, "KILL_WAIT_S", 120.0)  # a busy machine's room
    cpu = min(os.sched_getaffinity(0))
    tag = f"starved-{uuid.uuid4().hex[:8]}"
    bot = tmp_path / "starved.py"
    bot.write_text(STARVED.format())
    bot.chmod(0o644)
    spec = BotSpec("starved", f"{bot}:Starved", {"tag": tag, "cpu": cpu})
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(busy.pid, {cpu})
        for _ in range(3):
            seat = ProcessSeat(host_command(spec), limits=Limits(startup_ms=60_000))
            try:
                assert seat.start(GameInfo(0, 2, "indian13/v1", {}, 0)) is None
            finally:
                seat.close()
            left = processes_with(tag)
            _kill_leftovers(left)
            assert left == [], "a process of the seat outlived close()"
    finally:
        busy.kill()
        busy.wait()


def _process_at(pid: int, tries: int = 50) -> subprocess.Popen[bytes] | None:
    """A harmless process given ``pid`` (root: /proc/sys/kernel/ns_last_pid), or None."""
    last = Path("/proc/sys/kernel/ns_last_pid")
    for _ in range(tries):
        try:
            last.write_text(str(pid - 1))
        except OSError:
            return None
        proc = subprocess.Popen(["sleep", "60"])
        if proc.pid == pid:
            return proc
        proc.kill()
        proc.wait()
    return None


def test_a_seat_whose_process_was_reaped_kills_nothing_that_took_its_pid() -> None:
    """COM-6: once the seat's process is reaped, its pid is free; close() must not kill the
    process now holding it (nor what is below that one), as it did for a day."""
    seat = ProcessSeat(host_command(RANDOM), limits=LIMITS)
    seat.launch()
    assert seat.proc is not None
    old = seat.proc.pid
    os.killpg(old, signal.SIGKILL)
    seat.proc.wait()
    victim = _process_at(old)
    if victim is None:
        seat.close()
        pytest.skip("no process could be given the freed pid (ns_last_pid needs root)")
    try:
        seat.close()
        assert victim.poll() is None, "close() killed the process that took the seat's pid"
    finally:
        victim.kill()
        victim.wait()


def test_no_cgroup_folder_is_made_where_no_controller_is_mounted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seats' cgroups are made in the version 1 hierarchies (/sys/fs/cgroup/pids, ...).
    Where one is not mounted, as on a machine with only the unified hierarchy, its folder
    would be a stray cgroup of the wrong kind (or a plain folder), so none is made; it used
    to be, parents and all."""
    monkeypatch.setattr(arena.seats.sandbox, "CGROUP_ROOT", tmp_path)
    assert arena.seats.sandbox.new_seat_cgroups(8, 1 << 30) == []
    assert list(tmp_path.iterdir()) == []


def test_a_seat_gets_one_group_in_the_unified_hierarchy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where /sys/fs/cgroup is the unified hierarchy alone (cgroup v2, most systems since
    2021), a seat gets one group under rummy-arena with its caps (processes, memory, one core
    at a quarter of the default weight), each controller enabled on the way down, one at a
    time; its CPU time is read from the group's cpu.stat. It used to get no cgroup at all.
    (A stand-in folder: this checks what is written; the containment tests above exercise a
    real hierarchy on such a machine.)"""
    monkeypatch.setattr(arena.seats.sandbox, "CGROUP_ROOT", tmp_path)
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("memory\n")
    [group] = arena.seats.sandbox.new_seat_cgroups(16, 512 << 20)
    assert group.parent == tmp_path / "rummy-arena"
    assert {f.name: f.read_text() for f in group.iterdir()} == {
        "pids.max": "16", "memory.max": str(512 << 20), "cpu.max": "100000 100000",
        "cpu.weight": "25"}
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+cpu"  # after +pids; memory
    # was on
    (group / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\n")
    assert arena.seats.sandbox.cgroup_cpu_seconds([group]) == 1.5


def test_a_delegated_seat_group_counts_its_cpu_time(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """In a subtree systemd delegated (``systemd-run --user --scope -p Delegate=yes``) the
    seat's group is not a grandchild of /sys/fs/cgroup; its CPU time used to be read as
    unknown there, and cpu_s_per_game counted from /proc instead. (A stand-in folder.)"""
    monkeypatch.setattr(arena.seats.sandbox, "CGROUP_ROOT", tmp_path)
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
    group = tmp_path / "user.slice" / "app.slice" / "run-1.scope" / "rummy-arena" / "r1-a"
    group.mkdir(parents=True)
    (group / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    assert arena.seats.sandbox.cgroup_cpu_seconds([group]) == 2.5


# The seat's groups as an ordinary user sees them in a subtree delegated to it: printed as
# JSON, the group's path, its caps and the user's own group
DELEGATED_SEAT = textwrap.dedent("""\
    import json, pathlib
    from arena.seats import sandbox
    [group] = sandbox.new_seat_cgroups(16, 256 << 20)
    caps = {f: (group / f).read_text().strip() for f in ("pids.max", "memory.max", "cpu.max")}
    own = pathlib.Path("/proc/self/cgroup").read_text().strip()
    sandbox.kill_cgroups([group])
    print(json.dumps([str(group), caps, own, group.exists()]))
    """)


@pytest.mark.skipif(os.geteuid() != 0 or not arena.seats.sandbox.unified(),
                    reason="needs root, to delegate a subtree of a unified-only hierarchy")
def test_an_ordinary_user_gets_seat_groups_in_a_subtree_delegated_to_it() -> None:
    """As systemd's Delegate=yes does, a subtree is given to uid 65534 (its folder, and its
    cgroup.procs, cgroup.subtree_control and cgroup.threads): a referee running there as that
    user moves its processes into a leaf of their own and makes each seat's group, with its
    caps, beside it. It used to get no cgroup at all."""
    root = arena.seats.sandbox.CGROUP_ROOT
    delegated = root / f"delegated-{uuid.uuid4().hex[:8]}"
    delegated.mkdir()
    try:
        for controller in ("pids", "memory", "cpu"):  # systemd enables them at the root
            with contextlib.suppress(OSError):
                (root / "cgroup.subtree_control").write_text(f"+{controller}")
        for path in (delegated, *(delegated / f for f in ("cgroup.procs",
                     "cgroup.subtree_control", "cgroup.threads"))):
            os.chown(path, 65534, 65534)
        script = (f"echo $$ > {delegated}/cgroup.procs && exec setpriv --reuid 65534 "
                  f"--regid 65534 --clear-groups {sys.executable} -c '{DELEGATED_SEAT}'")
        done = subprocess.run(["sh", "-c", script], capture_output=True, text=True,
                              timeout=120, cwd="/", env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr
        group, caps, own, left = json.loads(done.stdout)
        assert Path(group).parent == delegated / "rummy-arena"
        assert caps == {"pids.max": "16", "memory.max": str(256 << 20),
                        "cpu.max": "100000 100000"}
        assert own == f"0::/{delegated.name}/rummy-arena-referee"
        assert left is False
    finally:
        for folder in sorted(delegated.rglob("*"), reverse=True):
            if folder.is_dir():
                with contextlib.suppress(OSError):
                    folder.rmdir()
        delegated.rmdir()


def test_working_folders_of_a_killed_referee_are_removed_by_the_next(tmp_path: Path) -> None:
    """README: a run may be stopped by kill -9. Each bot process works in a folder of its own
    under the temporary folder, which its referee removes; one killed first cannot, so the
    next referee to start a seat removes the folders of referees that are gone."""
    referee = _referee_process("""
        play_game(Indian13, [RANDOM] * 4, seed=3, isolation="process",
                  options={"match": {"deals": 100}})
        """)
    mine = f"{arena.seats.sandbox.WORKDIR_PREFIX}{referee.pid}-"

    def folders() -> list[str]:
        return [n for n in os.listdir(tempfile.gettempdir()) if n.startswith(mine)]
    try:
        _wait_for(lambda: len(folders()) == 4, referee)
    finally:
        os.killpg(referee.pid, signal.SIGKILL)
        referee.wait()
    assert len(folders()) == 4  # left behind: a killed referee cleans nothing
    seat = ProcessSeat(host_command(RANDOM), limits=LIMITS)  # as a new referee would
    seat.launch()
    seat.close()
    assert folders() == []


def test_the_folder_reaper_spares_live_referees_and_follows_no_link(tmp_path: Path) -> None:
    """A folder of a referee still running is kept, and a link named like a dead referee's
    folder (a bot may leave one in /tmp) is not followed into what it points at."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead, prefix = int(gone.stdout), arena.seats.sandbox.WORKDIR_PREFIX
    (tmp_path / f"{prefix}{dead}-old" / "sub").mkdir(parents=True)
    (tmp_path / f"{prefix}{dead}-old" / "sub" / "file").write_text("left")
    (tmp_path / f"{prefix}{os.getpid()}-live").mkdir()
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "file").write_text("keep")
    (tmp_path / f"{prefix}{dead}-lure").symlink_to(precious)
    arena.seats.sandbox.reap_orphan_workdirs(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"{prefix}{os.getpid()}-live", f"{prefix}{dead}-lure", "precious"])
    assert (precious / "file").read_text() == "keep"


def _referee_process(body: str) -> subprocess.Popen[bytes]:
    """A referee in a process of its own (to kill it, or to survive its hanging)."""
    code = textwrap.dedent("""
        from arena.seats.bot import BotSpec, GameInfo
        from arena.referee import Clock, play_game
        from arena.seats.seat import Limits
        from arena.variants.indian13 import Indian13
        RANDOM = BotSpec("random", "bots.random_bot:RandomBot")
        """) + textwrap.dedent(body)
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_for(done: Any, proc: subprocess.Popen[bytes] | None, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while not done():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the referee ended early: {proc.stderr.read()!r}")  # type: ignore[union-attr]
        if time.monotonic() > end:
            raise TimeoutError
        time.sleep(0.05)


def _kill_leftovers(pids: list[int]) -> None:
    """Clean up after a failed containment: kill the processes and remove their cgroups."""
    from arena.seats.sandbox import CGROUP_ROOT, kill_cgroups, unified

    groups = set()
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
                _, controllers, path = line.split(":", 2)  # v1 "8:pids:/...", unified "0::/..."
                if controllers == "pids" or (controllers == "" and unified()):
                    groups.add(CGROUP_ROOT / controllers / path.lstrip("/"))
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
    kill_cgroups([g for g in groups if "rummy-arena" in g.parts])


def _game_finishes(body: str, seconds: float) -> tuple[bool, str]:
    """Run a game in a referee process; False if it is still running after ``seconds``."""
    referee = _referee_process(body)
    try:
        out, err = referee.communicate(timeout=seconds)
        ok = referee.returncode == 0 and b"finished" in out
        return ok, f"exit {referee.returncode}: {err.decode(errors='replace')[-2000:]}"
    except subprocess.TimeoutExpired:
        os.killpg(referee.pid, signal.SIGKILL)
        referee.wait()
        return False, f"still running after {seconds} s"


LONG_GAME = """
    bot = BotSpec("hostile", {target!r}, {{}})
    play_game(Indian13, [RANDOM, RANDOM, bot, RANDOM], seed=4, isolation="process",
              options={{"match": {{"deals": 6}}}}, clock=Clock(draw_ms=20, play_ms=20),
              limits=Limits(grace_ms=300, cpu_s_per_game=5))
    print("finished")
    """


def test_silent_bot_in_a_long_game_does_not_block_the_referee() -> None:
    """A bot that never answers again (asleep) must not stop the game: the referee stops
    waiting at each deadline and restarts the bot after its grace period. About 110
    requests fill the 64 KiB pipe to a bot that no longer reads."""
    ok, detail = _game_finishes(LONG_GAME.format(target=f"{ADVERSARIAL}:Sleeper"), 120)
    assert ok, detail


@pytest.mark.slow
@pytest.mark.parametrize("cls", ["InfiniteLoop", "Flooder"])
def test_stuck_bot_in_a_long_game_does_not_block_the_referee(cls: str) -> None:
    ok, detail = _game_finishes(LONG_GAME.format(target=f"{ADVERSARIAL}:{cls}"), 300)
    assert ok, detail


def test_a_bot_burning_cpu_between_its_answers_is_stopped_by_its_cpu_cap() -> None:
    """limits.cpu_s_per_game counts every process of a bot: its cpuacct cgroup, and without
    one (a referee not root) the processes below the one the referee started, where a
    confined bot and a Python bot's game child run. There it used to count that process
    alone, which only waits for the bot, and the cap never held."""
    bot = adversary("Burner")
    record = play_game(Indian13, [GREEDY, bot], seed=5, isolation="process",
                       options={"players": 2, "match": {"deals": 8}}, clock=ROOMY,
                       limits=dataclasses.replace(LIMITS, cpu_s_per_game=1.0))
    assert faults(record, 1).get("crash", 0) > 0, faults(record, 1)
    assert faults(record, 0) == {}


def test_bot_silent_past_its_grace_is_restarted(tmp_path: Path) -> None:
    """DESIGN: the referee kills and restarts a seat that stays silent. The loop never
    answers its first play again, so past the grace period (300 ms) it must be replaced
    by a new process, and the silence is counted as a crash."""
    report = tmp_path / "loop.jsonl"
    record = hostile_game(adversary("InfiniteLoop", report=str(report)),
                          limits=dataclasses.replace(LIMITS, cpu_s_per_game=300.0))
    processes = {n["start"] for n in notes(report) if "start" in n}
    assert faults(record, HOSTILE).get("timeout", 0) > 0
    assert len(processes) > 1, f"never restarted: {faults(record, HOSTILE)}"
    assert faults(record, HOSTILE).get("crash", 0) > 0


def test_restart_for_silence_counts_as_a_crash(tmp_path: Path) -> None:
    """With a slower partner the grace period does pass between two requests, and the loop
    is restarted; the restart should be counted as a crash (docs/protocol.md). The partner
    sleeps 150 ms in each draw, past the 100 ms grace whatever the machine's speed, on a
    roomy draw clock; the loop overruns the short play clock."""
    report = tmp_path / "loop.jsonl"
    loop = adversary("InfiniteLoop", report=str(report))
    partner = adversary("Sleeper", seconds=0.15, plays=False)
    events: list[FaultEvent] = []
    record = play_game(Indian13, [partner, loop], seed=2,
                       options={"players": 2, "draw_cap": 16},
                       clock=Clock(draw_ms=ROOMY_MS, play_ms=CLOCK.play_ms),
                       isolation="process", on_fault=events.append, stderr_dir=tmp_path / "logs",
                       limits=dataclasses.replace(LIMITS, grace_ms=100, cpu_s_per_game=300.0))
    crashes = [e.detail for e in events if e.kind == "crash"]
    said = (tmp_path / "logs" / "infiniteloop.stderr.log").read_text("utf-8")  # where its author
    assert said.count("arena: the bot was stopped: still silent") == len(crashes)  # looks
    assert crashes and all("the bot was stopped: still silent 100 ms past its clock "
                           "(grace_ms), stuck in a decision; started again" in d
                           for d in crashes), crashes  # it said "had died": no such thing
    processes = {n["start"] for n in notes(report) if "start" in n}
    assert faults(record, 0) == {}
    assert len(processes) > 1
    assert faults(record, 1).get("crash", 0) >= len(processes) - 1, (faults(record, 1),
                                                                      len(processes))


def test_a_bot_started_again_after_a_crash_plays_on() -> None:
    """A crashed bot is started again at once and its ready read at its next decision, once:
    it answers the decisions after it (it crashes again at its second, each process)."""
    spec = BotSpec("crasher", f"{ADVERSARIAL}:Crasher", {"at": 2})
    seat = make_seat(spec, isolation="process", limits=Limits(startup_ms=60_000))
    game = Indian13(seed=3, options={"players": 2})
    try:
        assert seat.begin(GameInfo(0, 2, game.version, dict(game.options), 1)) is None
        assert seat.ready() is None
        while game.to_act != 0:
            game.apply(game.safe_action())
        faults = [seat.ask(game.view(0), 60_000).fault for _ in range(6)]
    finally:
        seat.close()
    assert faults == [None, "crash"] * 3


def _seat_on_decision(spec: BotSpec, limits: Limits) -> tuple[ProcessSeat, Game]:
    """A started process seat of a two-seat game, and the game at that seat's first turn."""
    seat = make_seat(spec, isolation="process", limits=limits)
    assert isinstance(seat, ProcessSeat)
    game = Indian13(seed=3, options={"players": 2})
    assert seat.start(GameInfo(0, 2, game.version, dict(game.options), 1)) is None
    while game.to_act != 0:
        game.apply(game.safe_action())
    return seat, game


@pytest.mark.parametrize("times", [1, 2])
def test_a_late_answer_within_grace_is_a_timeout_not_a_restart(tmp_path: Path,
                                                               times: int) -> None:
    """COM-6, docs/protocol.md: only a bot still silent ``grace_ms`` after its deadline is
    killed. This one answers late (0.3 s against 0.1 s) on its first decisions and at once
    after. Its late answers are waiting in the pipe when the grace has passed: they used to
    go unread (the look came after the deadline), and a bot that had answered was killed as
    silent, a crash, its memory lost. Late twice in a row, its grace ran from the first
    miss and never from the second."""
    report = tmp_path / "late.jsonl"
    spec = adversary("LateOnce", seconds=0.3, times=times, report=str(report))
    seat, game = _seat_on_decision(spec, dataclasses.replace(LIMITS, grace_ms=500))
    try:
        kinds = []
        for limit_ms in [100] * times + [ROOMY_MS]:
            kinds.append(seat.ask(game.view(0), limit_ms).fault)
            time.sleep(1.5)  # past the grace, and the late answer is in the pipe
    finally:
        seat.close()
    assert kinds == ["timeout"] * times + [None]
    assert len([n for n in notes(report) if "start" in n]) == 1, notes(report)


def test_a_seat_slow_to_start_does_not_fault_the_seats_read_after_it() -> None:
    """A hostile seat may only fault itself. The referee starts every seat, then reads each
    one's ready in turn, each against its own start-up limit: an honest seat whose ready
    came in time, read only after waiting out a slow seat before it, used to count as not
    started (a crash, then a forfeit), so a losing bot could make a game level."""
    slow = adversary("SlowStarter", seconds=20.0)  # the honest seat gets room to start
    record = play_game(Indian13, [slow, RANDOM], seed=5, isolation="process",
                       options={"players": 2, "draw_cap": 6}, clock=ROOMY,
                       limits=dataclasses.replace(LIMITS, startup_ms=8000))
    assert faults(record, 1) == {}, faults(record, 1)
    assert faults(record, 0).get("crash", 0) > 0, faults(record, 0)


def test_late_reply_is_not_taken_for_the_next_games_ready() -> None:
    """Tournament workers keep a seat's process across games. A reply that comes after its
    deadline at the end of one game is dropped by id; it must not be read as the answer to
    the next game's start_game (a fault at the start of a game that has not begun)."""
    late = adversary("Sleeper", seconds=0.3)
    specs = [GREEDY, late]
    seats = [make_seat(s, isolation="process", limits=LIMITS) for s in specs]
    try:
        records = [Referee(Indian13, seats, [s.name for s in specs], seed=seed,
                           options={"players": 2, "draw_cap": 20},
                           clock=Clock(draw_ms=100, play_ms=100)).play()
                   for seed in (1, 2)]
    finally:
        for seat in seats:
            seat.close()
    for record in records:  # late, and restarted when silent past its grace; never unreadable
        assert "timeout" in faults(record, 1) and "unreadable" not in faults(record, 1), \
            faults(record, 1)


def test_a_game_child_that_forges_the_hosts_word_does_not_play_the_next_game(
        tmp_path: Path) -> None:
    """docs/protocol.md: a bot's memory lasts one game. The game's child shares the host's
    pipe, so it could write the host's word that it is gone and stay, reading the next
    game's start (with duplicate deals, the other seats' cards). The word now counts only
    once the host has nothing below it; the seat that stays is killed after the wait for the
    word, one timeout, and started afresh."""
    report = tmp_path / "forger.jsonl"
    records = two_games([GREEDY, adversary("Forger", report=str(report))], "process")
    starts = [n["played_here"] for n in notes(report) if "played_here" in n]
    assert starts == [0, 0], starts
    assert faults(records[0], 1) == {"timeout": 1}, faults(records[0], 1)
    assert faults(records[0], 0) == {} and faults(records[1], 0) == {}


def two_games(specs: Sequence[BotSpec], isolation: Isolation) -> list[GameRecord]:
    """Two games on the same seats, as a tournament worker plays them (seats reused)."""
    seats = [make_seat(s, isolation=isolation, limits=LIMITS) for s in specs]
    try:
        return [Referee(Indian13, seats, [s.name for s in specs], seed=seed,
                        options={"players": 2, "draw_cap": 6}).play() for seed in (1, 2)]
    finally:
        for seat in seats:
            seat.close()


def test_bot_memory_ends_with_its_game(tmp_path: Path) -> None:
    """With duplicate deals a bot that remembered one game would know the other seats'
    hands in the next. The Python host plays each game in a fresh child, and (confined)
    clears its scratch folders and kills what the game left running. A folder the bot made
    read-only (chmod 500) kept its notes: the host, the same user, could not delete them."""
    report = tmp_path / "memo.jsonl"
    two_games([GREEDY, adversary("Rememberer", report=str(report))], "process")
    found = [n["remembered"] for n in notes(report) if "remembered" in n]
    assert len(found) == 2
    left = [n["left"] for n in notes(report) if "left" in n]
    assert left[:1] == [["global", "tmp", "shm", "daemon", "locked", "locked_shm"]]  # the
    # first game hid them all, two in folders it made read-only
    assert found[1] == [], found
    here = tmp_path / "here.jsonl"  # the control: in process, the module global survives
    two_games([GREEDY, adversary("Rememberer", report=str(here))], "inprocess")
    assert "global" in [n for n in notes(here) if "remembered" in n][1]["remembered"]


@needs_node
def test_command_bot_gets_a_new_process_for_each_game() -> None:
    """A command bot has no host to fork it: it is started afresh for every game."""
    seat = make_seat(js_bot(), isolation="process",
                     limits=dataclasses.replace(LIMITS, memory_mb=1024))  # Node needs 800
    assert isinstance(seat, ProcessSeat)
    pids = []
    try:
        for seed in (1, 2):
            record = Referee(Indian13, [make_seat(RANDOM, isolation="inprocess"), seat],
                             ["r", "js"], seed=seed, options={"players": 2, "draw_cap": 6}).play()
            assert faults(record, 1) == {}
            assert seat.proc is not None
            pids.append(seat.proc.pid)
    finally:
        seat.close()
    assert pids[0] != pids[1]


def test_python_bot_may_print_to_stdout() -> None:
    """A Python bot's print() is for its author, not for the referee: it must not make the
    bot fault in its own process when it does not in process (both modes, same games)."""
    seats = [GREEDY, adversary("Chatty"), GREEDY, GREEDY]
    here = play_game(Indian13, seats, seed=11, isolation="inprocess")
    apart = play_game(Indian13, seats, seed=11, isolation="process")
    assert faults(apart, 1) == faults(here, 1) == {}


def test_shipped_config_bot_files_load_in_their_own_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """configs/indian13.yaml names ``../examples/first_bot.py:FirstBot`` relative to the
    config. In a bot process (working directory: a fresh temporary folder) the path must
    still lead to the file, or every decision of that bot is a crash."""
    monkeypatch.chdir(ROOT)
    config = load_config("configs/indian13.yaml")  # as in `arena run configs/indian13.yaml`
    first = next(b for b in config.bots if b.name == "first-bot")
    record = play_game(config.game, [first, GREEDY, GREEDY, GREEDY], seed=1,
                       options=config.options, isolation="process")
    assert faults(record, 0) == {}, first.target


@needs_namespaces
def test_bot_cannot_kill_the_other_seats(tmp_path: Path) -> None:
    """Every bot runs as the same user as the others, so kill(2) would be allowed between
    them; confined, each is alone in its PID namespace: it cannot make the other seats crash
    (faults counted against them)."""
    report = tmp_path / "killer.jsonl"
    record = hostile_game(adversary("Killer", report=str(report)), clock=ROOMY)
    killed = [n["killed"] for n in notes(report) if "killed" in n]
    honest = {seat: faults(record, seat) for seat in range(4) if seat != HOSTILE}
    assert killed == [] and all(f == {} for f in honest.values()), (killed, honest)


@needs_namespaces
def test_bot_cannot_kill_the_referee() -> None:
    """The referee is outside the bot's PID namespace: its parent pid reads 0."""
    ok, detail = _game_finishes(f"""
        bot = BotSpec("killer", {str(ADVERSARIAL) + ":Killer"!r}, {{"target": "parent"}})
        play_game(Indian13, [RANDOM, bot, RANDOM, RANDOM], seed=4, isolation="process")
        print("finished")
        """, 120)
    assert ok, detail


THIEF = """
import os, sys, time
for _ in range(2000):
    try:
        fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
        break
    except OSError:
        time.sleep(0.0005)
else:
    sys.exit("could not open")
print("opened", flush=True)
for _ in range(4000):
    try:
        if os.read(fd, 1 << 16):
            sys.exit("read the bot's input")
    except BlockingIOError:
        time.sleep(0.0005)
"""


@needs_namespaces
def test_starting_bot_input_cannot_be_opened_by_another_bot(tmp_path: Path) -> None:
    """The Python host makes itself undumpable only once the interpreter has started. In
    that window another bot of the same uid could open the new bot's stdin through
    /proc/<pid>/fd/0 and read (or tee) what the referee sends it, unless each bot is
    confined to a PID namespace of its own, where no other seat's pid exists."""
    seat = make_seat(RANDOM, isolation="process",
                     limits=dataclasses.replace(LIMITS, startup_ms=30_000))
    assert isinstance(seat, ProcessSeat)
    seat.launch()
    assert seat.proc is not None
    confined = confinement(BotSpec("thief", "x.py:X"))
    assert confined is not None
    thief = subprocess.Popen(
        [sys.executable, "-m", "arena.seats.sandbox", "--memory", str(1 << 30), "--files",
         str(1 << 20), *confined.arguments(), "--", sys.executable, "-c",
         THIEF.replace("{pid}", str(seat.proc.pid))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        time.sleep(0.3)
        fault = seat.start(GameInfo(0, 4, "indian13/v1", {"players": 4}, 12345))
        out, err = thief.communicate(timeout=60)
    finally:
        seat.close()
        if thief.poll() is None:
            thief.kill()
    assert fault is None
    assert out == b"", "another bot opened the new bot's stdin through /proc"
    assert b"could not open" in err, err


# --------------------------------------------------------------------------- the peeker

def hidden_hands(record: GameRecord, seat: int) -> dict[tuple[int, int, str], list[Counter[Card]]]:
    """For each moment ``seat`` was to act (round, draws, decision): the cards each seat
    held that nobody else could know (its hand less the cards it took from the pile)."""
    game = find_variant(record.variant)(seed=record.seed, options=record.options)
    out: dict[tuple[int, int, str], list[Counter[Card]]] = {}

    def note() -> None:
        if game.finished or game.to_act != seat:
            return
        taken: list[Counter[Card]] = [Counter() for _ in game.hands]
        for event in game.history:
            if event.kind == "take":
                taken[event.seat].update(event.cards)
        out[(game.round, game.draws, game.decision)] = [Counter(h) - taken[s]
                                                        for s, h in enumerate(game.hands)]

    note()
    for line in record.actions:
        game.apply(parse_logged(line)[1])
        note()
    return out


def leaks(record: GameRecord, seat: int, report: list[dict[str, Any]]) -> list[str]:
    """The peeker's claims (made at ``seat`` in this game) that were right about hidden
    cards: at least 3 hidden cards of one other seat, and at least half of the claim.
    A guess of 13 cards among 106 shares about 1.6 with a 13-card hand."""
    moments = hidden_hands(record, seat)
    mine = bot_seed(record.seed, seat)
    found = []
    for claim in (c for c in report if "claim" in c and c["bot_seed"] == mine):
        hidden = moments.get((claim["round"], claim["draws"], claim["decision"]))
        assert hidden is not None, f"no moment for {claim}"
        if claim["seat"] is not None and claim["seat"] >= len(hidden):
            continue  # a view of another table (found in a file or in memory): no seat here
        cards = Counter(Card.parse(c) for c in claim["cards"])
        others = [claim["seat"]] if claim["seat"] is not None else \
            [s for s in range(len(hidden)) if s != seat]
        for other in others:
            hits = sum((cards & hidden[other]).values())
            if hits >= 3 and 2 * hits >= sum(cards.values()):
                found.append(f"{claim['claim']}: seat {other} holds {hits} of "
                             f"{' '.join(claim['cards'])} ({claim['source']})")
    return found


PEEK_CLOCK = ROOMY  # the peeker's budget is CPU time: a busy machine makes it slow, not short
PEEK_SEED = 7_777_777  # beyond the peeker's guesses of raw seeds (0..1999): see below


def peeker(report: Path, **params: Any) -> BotSpec:
    params.setdefault("budget_s", 0.1)
    return adversary("Peeker", report=str(report), **params)


def peek_game(report: Path, seats: list[BotSpec], *, isolation: Isolation = "process",
              draw_cap: int = 100) -> GameRecord:
    return play_game(Indian13, seats, seed=PEEK_SEED, clock=PEEK_CLOCK, isolation=isolation,
                     options={"draw_cap": draw_cap},
                     limits=dataclasses.replace(LIMITS, memory_mb=1024, startup_ms=60_000))


def test_peeker_learns_nothing_among_python_bots(tmp_path: Path) -> None:
    """COM-5: another seat's hand is never shown. The peeker walks its view, its stack and
    gc, reads /proc of the referee and of every bot, and files under results/ and /tmp;
    none of it tells a hidden card. Confined, it sees no process but its own host; else the
    other processes are undumpable. (A game seed it can guess is another matter: see the
    tournament test.)"""
    report = tmp_path / "peek.jsonl"
    record = peek_game(report, [RANDOM, peeker(report), GREEDY, RANDOM])
    lines = notes(report)
    assert leaks(record, 1, lines) == []
    tried = {line["probe"] for line in lines if "probe" in line}
    assert {"parent mem", "processes"} <= tried, tried
    if confine.available():
        visible = {line["detail"] for line in lines if line.get("probe") == "processes"}
        assert visible == {"2 visible"}, visible  # its game child and its host (pid 1)
    else:
        assert {"sibling mem", "sibling fd list"} <= tried, tried
    assert [line for line in lines if line.get("probe") in ("parent mem", "sibling mem")
            and line["ok"]] == []
    assert all(faults(record, seat) == {} for seat in range(4))


def test_peeker_sees_everything_in_the_trusted_mode(tmp_path: Path) -> None:
    """The control: in process, the same peeker finds every hand (through the referee's
    frames), so the isolated tests above do measure something."""
    report = tmp_path / "peek.jsonl"
    record = peek_game(report, [RANDOM, peeker(report, budget_s=0.15), GREEDY, RANDOM],
                       isolation="inprocess", draw_cap=6)
    assert len(leaks(record, 1, notes(report))) >= 3


@needs_node
@needs_namespaces
def test_peeker_cannot_read_a_command_bot(tmp_path: Path) -> None:
    """A bot given as a command (here Node.js) runs without the Python host, so nothing
    makes it undumpable: unconfined, a peeker of the same uid could read /proc/<pid>/mem
    and open /proc/<pid>/fd/0 of it, and with them its hand."""
    report = tmp_path / "peek.jsonl"
    record = peek_game(report, [RANDOM, peeker(report), GREEDY, js_bot()])
    found = leaks(record, 1, notes(report))
    assert found == [], f"{len(found)} leaks, e.g. {found[:2]}"


def tournament_config(tmp_path: Path, bots: str, *, name: str = "iso", players: int = 4,
                      time_ms: int = 200, memory_mb: int = 512, draw_cap: int = 100,
                      seed: int | None = 1, faults: str = "") -> Path:
    """A round robin config in ``tmp_path``, isolated seats on two workers (``faults``: the
    config's fault policy, as YAML flow text)."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent("""\
        name: {name}
        variant: indian13
        options: {{players: {players}, draw_cap: {draw_cap}}}
        bots:
        {bots}
        time: {{draw_ms: {time_ms}, play_ms: {time_ms}}}
        limits: {{memory_mb: {memory_mb}, processes: 32, grace_ms: 300, cpu_s_per_game: 20,
                  startup_ms: 60000}}
        workers: 2
        {seed}
        {faults}
        output: {out}
        """).format(name=name, players=players, draw_cap=draw_cap, time_ms=time_ms,
                    seed="" if seed is None else f"seed: {seed}",
                    faults=f"faults: {faults}" if faults else "",
                    memory_mb=memory_mb, bots=textwrap.indent(textwrap.dedent(bots), "  "),
                    out=tmp_path / "results"))
    return path


def peeker_tournament(tmp_path: Path, *, seed: int | None
                      ) -> tuple[list[GameRecord], list[dict[str, Any]]]:
    """A 4-game tournament of the peeker, greedy and two random bots on two workers: the
    records and the peeker's notes."""
    report = tmp_path / "peek.jsonl"
    writable_by_bots(report)
    config = load_config(tournament_config(tmp_path, f"""\
        - name: peeker
          module: {ADVERSARIAL}:Peeker
          params: {{report: {report}, budget_s: 0.15}}
          write: [{report}]
        - name: greedy
          module: bots.greedy:GreedyBot
        - name: random
          module: bots.random_bot:RandomBot
        - name: random-2
          module: bots.random_bot:RandomBot
        """, time_ms=ROOMY_MS, memory_mb=1024, draw_cap=40, seed=seed))
    run_tournament(config, progress=False)
    return read_games(config.results_dir / "games.jsonl"), notes(report)


def tournament_leaks(records: list[GameRecord], lines: list[dict[str, Any]]) -> list[str]:
    """The peeker's right claims in every game it played, whatever its seat."""
    return [leak for r in records for seat, s in enumerate(r.seats) if s.bot == "peeker"
            for leak in leaks(r, seat, lines)]


@pytest.mark.slow
@needs_namespaces
def test_peeker_in_a_tournament_learns_nothing(tmp_path: Path) -> None:
    """Unconfined, the bot processes could read results/<name>/config.yaml (same uid),
    which holds the tournament seed and the bots: every game seed follows (schedule), and
    with it every deal; games.jsonl gives the seeds of finished games too. Confined, they
    see none of the results folder. The config names no seed, as docs/protocol.md advises
    for contests: a random one is drawn (the peeker tries small seeds too)."""
    records, lines = peeker_tournament(tmp_path, seed=None)
    found = tournament_leaks(records, lines)
    assert len(records) == 4
    assert found == [], f"{len(found)} leaks, e.g. {found[:2]}"


@pytest.mark.slow
@needs_namespaces
def test_a_small_seed_is_guessed_even_by_a_confined_peeker(tmp_path: Path) -> None:
    """The control of the test above, and the reason a contest config names no seed: with
    ``seed: 1`` the confined peeker reads none of the tournament's files, yet rebuilds the
    deals by trying small tournament seeds (it knows the engine and the schedule)."""
    records, lines = peeker_tournament(tmp_path, seed=1)
    found = tournament_leaks(records, lines)
    assert found and all(leak.startswith("seed:") for leak in found), found[:3]
    read = [line["detail"] for line in lines if line.get("probe") == "file" and line["ok"]]
    assert not [path for path in read if path.startswith(str(tmp_path))], read


# --------------------------------------------------------------------------- (c) tournaments

def seat_faults(records: list[GameRecord]) -> dict[str, Counter[str]]:
    """Faults by bot over every game."""
    out: dict[str, Counter[str]] = {}
    for record in records:
        for seat in record.seats:
            out.setdefault(seat.bot, Counter()).update(
                {k: v for k, v in seat.faults.items() if v})
    return out


def test_small_tournament_with_hostile_bots(tmp_path: Path) -> None:
    config = load_config(tournament_config(tmp_path, f"""\
        - name: greedy
          module: bots.greedy:GreedyBot
        - name: random
          module: bots.random_bot:RandomBot
        - name: crasher
          module: {ADVERSARIAL}:Crasher
          params: {{at: 20}}
        - name: garbage
          module: {ADVERSARIAL}:GarbageWriter
        """, time_ms=ROOMY_MS))  # no bot here overruns a clock: the honest ones never do
    assert config.isolation == "process" and config.workers == 2
    assert run_tournament(config, progress=False) == 4
    records = read_games(config.results_dir / "games.jsonl")
    by_bot = seat_faults(records)
    assert set(by_bot["crasher"]) == {"crash"}
    assert set(by_bot["garbage"]) == {"unreadable"}
    assert by_bot["greedy"] == by_bot["random"] == Counter()
    for record in records:
        assert tuple(replay(record).totals) == record.totals


ALL_HOSTILE = ("Sleeper", "InfiniteLoop", "Crasher", "GarbageWriter", "Flooder",
               "MemoryHog", "ForkBomb", "Killer", "Rememberer", "Peeker")


@pytest.mark.slow
def test_big_tournament_with_every_hostile_bot(tmp_path: Path) -> None:
    """Two seats a table, every pair of twelve bots, on two workers, with no seed given (as
    for a contest): the run finishes, every game is on file, the faults are the hostile
    bots' only, and the peeker learns no hidden card. The clock is roomy for the honest
    bots on a busy machine; a dead seat forfeits after 2 faults in a row, to keep it short."""
    report = tmp_path / "peek.jsonl"
    writable_by_bots(report)
    bots = ["- name: greedy\n  module: bots.greedy:GreedyBot\n",
            "- name: random\n  module: bots.random_bot:RandomBot\n",
            *(f"- name: {cls.lower()}\n  module: {ADVERSARIAL}:{cls}\n" for cls in ALL_HOSTILE),
            f"  params: {{budget_s: 0.05, report: {report}}}\n  write: [{report}]\n"]
    config = load_config(tournament_config(tmp_path, "".join(bots), name="all", players=2,
                                           draw_cap=24, time_ms=1000, seed=None,
                                           faults="{forfeit_after_consecutive: 2}"))
    assert run_tournament(config, progress=False) == 132
    records = read_games(config.results_dir / "games.jsonl")
    by_bot = seat_faults(records)
    print({bot: dict(kinds) for bot, kinds in sorted(by_bot.items())})
    assert by_bot["greedy"] == by_bot["random"] == Counter()
    assert by_bot["sleeper"]["timeout"] > 0 and by_bot["crasher"]["crash"] > 0
    assert by_bot["garbagewriter"]["unreadable"] > 0
    assert by_bot["memoryhog"]["crash"] > 0
    lines = notes(report)
    found = tournament_leaks(records, lines)
    assert any("claim" in line or "probe" in line for line in lines)  # it did try
    assert found == [], f"{len(found)} leaks, e.g. {found[:2]}"
    honest = {"greedy": GREEDY, "random": RANDOM}
    alone = [r for r in records if all(s.bot in honest for s in r.seats)]
    assert len(alone) == 2  # greedy v random, both seatings
    for record in alone:  # the hostile bots around them changed nothing of their games
        again = play_game(Indian13, [honest[s.bot] for s in record.seats], seed=record.seed,
                          options=record.options, clock=Clock(draw_ms=300, play_ms=300),
                          isolation="inprocess", game_id=record.id)
        assert without_timing(again) == without_timing(msgspec.structs.replace(record,
                                                                          dup_set=""))


# --------------------------------------------------------------------------- (d) JavaScript

@needs_node
def test_javascript_bot_plays_legal_games() -> None:
    seats = [js_bot("js"), GREEDY, js_bot("js-2"), RANDOM]
    for seed in (1, 2):
        record = play_game(Indian13, seats, seed=seed, isolation="process")
        assert all(faults(record, seat) == {} for seat in range(4))
        assert tuple(replay(record).totals) == record.totals
        again = play_game(Indian13, seats, seed=seed, isolation="process")
        assert without_timing(again) == without_timing(record)  # seeded by start_game


@needs_node
def test_javascript_bot_from_a_config(tmp_path: Path) -> None:
    script = tmp_path / "bots" / "js_bot.js"
    script.parent.mkdir()
    shutil.copy(JS_BOT, script)
    config = load_config(tournament_config(tmp_path, """\
        - name: js
          command: [node, bots/js_bot.js]
        - name: random
          module: bots.random_bot:RandomBot
        """, players=2, time_ms=2000, memory_mb=1024))
    assert config.bots[0].command == ("node", str(script))
    assert run_tournament(config, progress=False) == 2
    assert seat_faults(read_games(config.results_dir / "games.jsonl"))["js"] == Counter()


@needs_node
def test_javascript_bot_needs_800_mb_of_address_space() -> None:
    """Node reserves its code range up front: under 800 MB of RLIMIT_AS it cannot start, and
    every decision is a fault (docs/protocol.md says so)."""
    record = play_game(Indian13, [js_bot(), GREEDY], seed=1, options={"players": 2},
                       isolation="process", limits=LIMITS)
    assert set(faults(record, 0)) == {"crash"}
    assert faults(record, 1) == {}


# --------------------------------------------------------------------------- (e) policies

def test_random_legal_policy_plays_random_legal_actions() -> None:
    """COM-6 with policy random_legal: a faulty seat's decisions are random legal actions
    (some draws from the discard pile, which the safe action never takes)."""
    bot = adversary("GarbageWriter")
    records = [play_game(Indian13, [GREEDY, bot, GREEDY, GREEDY], seed=seed,
                         isolation="process", faults=FaultPolicy(policy="random_legal"))
               for seed in range(4)]
    draws = Counter()
    for record in records:
        assert tuple(replay(record).totals) == record.totals
        assert set(faults(record, 1)) == {"unreadable"}
        draws.update(str(a) for s, a in map(parse_logged, record.actions)
                     if s == 1 and str(a) in ("stock", "discard"))
    assert draws["discard"] > 0 and draws["stock"] > 0


@pytest.mark.parametrize("cls", ["GarbageWriter", "Crasher"])
def test_forfeit_after_n_faults(cls: str) -> None:
    """faults.forfeit_after: N faults and the seat forfeits: it is asked no more (so exactly
    N faults), plays safe actions, ranks last whatever its points, and the game says so."""
    bot = adversary(cls, at=1) if cls == "Crasher" else adversary(cls)
    record = play_game(Indian13, [GREEDY, bot, RANDOM, GREEDY], seed=6, isolation="process",
                       faults=FaultPolicy(forfeit_after=3))
    assert record.seats[1].forfeit
    assert sum(record.seats[1].faults.values()) == 3
    assert record.ranks[1] == max(record.ranks) and \
        record.ranks.count(record.ranks[1]) == 1
    assert not any(s.forfeit for i, s in enumerate(record.seats) if i != 1)
    assert record.termination == "forfeit"
    assert tuple(replay(record).totals) == record.totals


# --------------------------------------------------------------------------- (f) the protocol

class _Measuring(InProcessSeat):
    """An in-process seat that also encodes each request both ways, as a process seat
    would send it (delta from its previous request) and in full."""

    def __init__(self, spec: BotSpec, sizes: list[tuple[int, int]]) -> None:
        super().__init__(spec)
        self.sizes = sizes
        self.sent = self.round = self.id = 0
        self.decoder = ViewDecoder()

    def ask(self, view: Any, limit_ms: int) -> Any:
        since = self.sent if view.round == self.round else 0
        self.round, self.id = view.round, self.id + 1
        delta = {"id": self.id, "type": view.decision, "view": encode_view(view, since)}
        full = {"id": self.id, "type": view.decision, "view": encode_view(view, 0)}
        self.sizes.append((len(encode_line(delta)), len(encode_line(full))))
        assert self.decoder.decode(delta["view"]) == view  # the delta rebuilds the view
        self.sent = len(view.history)
        return super().ask(view, limit_ms)


def request_sizes(players: int, seeds: range,
                  bot: BotSpec = RANDOM) -> Iterator[tuple[int, int]]:
    sizes: list[tuple[int, int]] = []
    for seed in seeds:
        seats = [_Measuring(bot, sizes) for _ in range(players)]
        Referee(Indian13, seats, [bot.name] * players, seed=seed,
                options={"players": players}).play()
    return iter(sizes)


def test_delta_views_keep_requests_small() -> None:
    """Indian Rummy, four seats, random bots (long deals, up to the draw cap): the request
    with a delta view against the same request with the whole history."""
    sizes = list(request_sizes(4, range(10)))
    delta = [d for d, _ in sizes]
    full = [f for _, f in sizes]
    summary = {"requests": len(sizes),
               "delta": (round(statistics.mean(delta)), statistics.median(delta), max(delta)),
               "full": (round(statistics.mean(full)), statistics.median(full), max(full))}
    print(f"request bytes (mean, median, max): {summary}")
    assert max(delta) < 1024 < max(full)
    assert statistics.mean(delta) < statistics.mean(full) / 2


LIMITS_SEEN = """
import resource
print(*(resource.getrlimit(k) for k in (resource.RLIMIT_AS, resource.RLIMIT_FSIZE)))
"""


def test_a_lower_hard_limit_of_the_arena_is_kept_not_raised() -> None:
    """On a shared machine the arena may run under ``ulimit -v`` or ``ulimit -f`` below
    the seat's limits; a limit may only be lowered, so the sandbox keeps the lower one.
    It used to try to raise it, and no isolated bot could start at all."""
    low_memory, low_files = 900 << 20, 100 << 10

    def lower() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (low_memory, low_memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (low_files, low_files))

    done = subprocess.run(
        [sys.executable, "-m", "arena.seats.sandbox", "--memory", str(1 << 30), "--files",
         str(1 << 20), "--", sys.executable, "-c", LIMITS_SEEN],
        capture_output=True, text=True, timeout=120, preexec_fn=lower, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [f"({low_memory},", f"{low_memory})",
                                   f"({low_files},", f"{low_files})"]


ENDS_ITSELF = """\
import os, sys


class Weird:
    def __str__(self):
        raise ValueError("no text for you")


class Bot:
    def draw(self, view):
        {how}

    def play(self, view):
        return "discard " + str(view.drawn or view.hand[-1])
"""


@pytest.mark.parametrize(("how", "kind", "said"), [
    ("sys.exit(3)", "crash", "the bot died (exit status 3)"),
    ("os._exit(7)", "crash", "the bot died (exit status 7)"),
    ("return Weird()", "unreadable", "expected a Draw, a Play or their text, got Weird"),
    ("return 51", "unreadable", "expected a Draw, a Play or their text, got int 51"),
])
def test_an_isolated_python_bot_s_end_or_odd_answer_is_told_as_it_is(
        tmp_path: Path, how: str, kind: str, said: str) -> None:
    """Its host said "exit status 0" whatever status the bot's process ended with, and an
    answer of no readable type, whose text raised, ended the game's child (a crash, its
    memory lost), where in process it is one unreadable answer."""
    (tmp_path / "ender.py").write_text(ENDS_ITSELF.format(how=how), "utf-8")
    events: list[FaultEvent] = []
    ends_the_process = how.startswith("os._exit")  # in process, this one (test) process
    for isolation in ("process",) if ends_the_process else ("process", "inprocess"):
        events.clear()
        play_game(Indian13, [BotSpec("ender", f"{tmp_path / 'ender.py'}:Bot"), RANDOM],
                  seed=4, isolation=isolation, options={"players": 2, "draw_cap": 3},
                  clock=ROOMY, stderr_dir=tmp_path / isolation, on_fault=events.append)
        assert {e.kind for e in events} == {kind}, (isolation, events)
        if isolation == "process" or kind == "unreadable":
            assert said in events[0].detail, (isolation, events[0])
            assert '"action":null' not in events[0].detail  # the wire's JSON, not why
