"""Every row of the benchmark table in one run, each beside its anchor, as ratios.

    python -m bench all [--quick] [--seed 1] [--repeat 3]
    python -m bench ROW... [--quick]     ROW: gin indian loop isolation roundtrip leaderboard

The machine is shared and noisy, so only ratios taken in one run mean anything: every row
times ours and its anchor in the same run, one right after the other. The anchors are
bench-only extras (``pip install -e '.[bench]'``: RLCard, OpenSpiel); a row whose anchor is
missing says "not installed" or "not exposed" instead of a number. ``--quick`` runs a smaller
sample of every row (the leaderboard on 10,000 games, where the target is for 100,000).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the scripts import each other by name

import _harness
import engine
import isolation
import solver
from _deals import gin_hands, indian_deals
from _harness import ROOT, Stats, percentile, us
from rlcard_compare import rlcard_deadwood, to_rlcard

from arena.cards import Card
from arena.records import GameRecord
from arena.tournament.config import load_config
from arena.tournament.runner import run_tournament
from arena.variants import find_variant

CACHE = Path(tempfile.gettempdir()) / "arena-bench"
LEADERBOARD_GAMES = 100_000  # the size the leaderboard's targets are for
IND_P50_NS, IND_P99_NS = 100_000, 1_000_000
HEADERS = ["measure", "ours", "anchor", "ratio", "target", "met / missed by"]


@dataclass(frozen=True, slots=True)
class Size:
    """How much each row measures: the full run, or ``--quick``."""

    hands: int  # gin hands; Indian hands per wild count and per call
    games: int  # in-process games of random bots (bench/engine.py (a)), as many OpenSpiel's
    isolated_games: int  # games per setting of bench/isolation.py
    pings: int  # round trips of the bare pipe ping-pong
    records: int  # games.jsonl records under arena leaderboard


FULL_RUN = Size(hands=500, games=200, isolated_games=40, pings=5_000,
                records=LEADERBOARD_GAMES)
QUICK_RUN = Size(hands=100, games=40, isolated_games=8, pings=1_000, records=10_000)


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the table."""

    measure: str
    ours: str
    anchor: str = "-"
    ratio: str = "-"
    target: str = "-"
    verdict: str = "-"


@dataclass(frozen=True, slots=True)
class Part:
    """What one row of the issue's table measured: its lines and what to say under them."""

    rows: tuple[Row, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Settings:
    """The command line's choices, handed to every row."""

    size: Size
    seed: int
    repeat: int


def at_most(value: float, limit: float) -> str:
    """The verdict on a target that caps the value."""
    return "met" if value <= limit else f"missed by {by_factor(value / limit)}"


def at_least(value: float, limit: float) -> str:
    """The verdict on a target that is a floor."""
    return "met" if value >= limit else f"missed by {by_factor(limit / value)}"


def by_factor(factor: float) -> str:
    """A factor above 1, with a third decimal where two would round it to 1.00."""
    return f"{factor:.3f}x" if factor < 1.005 else f"{factor:.2f}x"


# --------------------------------------------------------------------------- anchors


def rlcard() -> tuple[Any, Any] | str:
    """RLCard's gin melding and utils modules, or why they cannot be used."""
    try:
        from rlcard.games.gin_rummy.utils import melding, utils  # type: ignore[import-untyped]
    except ImportError:
        return "not installed"
    return melding, utils


def pyspiel() -> Any | str:
    """OpenSpiel's Python module, or why it cannot be used."""
    try:
        import pyspiel as module  # type: ignore[import-untyped]
    except ImportError:
        return "not installed"
    return module


def spiel_gin_utils() -> Any | str:
    """OpenSpiel's C++ gin utilities (``GinRummyUtils``) for the default game, if exposed."""
    module = pyspiel()
    if isinstance(module, str):
        return module
    gin = getattr(module, "gin_rummy", None)
    utils = getattr(gin, "GinRummyUtils", None)
    if utils is None or not hasattr(utils, "min_deadwood"):
        return "not exposed"
    return utils(gin.DEFAULT_NUM_RANKS, gin.DEFAULT_NUM_SUITS, gin.DEFAULT_HAND_SIZE)


def to_spiel(hand: Sequence[Card], utils: Any) -> list[int]:
    """OpenSpiel's card ints (its suits run s c d h), through its own card names."""
    names = [str(c)[:-1].replace("10", "T") + str(c)[-1].lower() for c in hand]
    ints = utils.card_strings_to_card_ints(names)
    assert [utils.card_string(i) for i in ints] == names
    return list(ints)


def versions() -> str:
    """The anchors installed, for the banner."""
    found = []
    for name, dist in (("RLCard", "rlcard"), ("OpenSpiel", "open_spiel")):
        try:
            found.append(f"{name} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} not installed")
    hint = " (pip install -e '.[bench]')" if any("not" in f for f in found) else ""
    return ", ".join(found) + hint


# --------------------------------------------------------------------------- gin deadwood


def interleaved(calls: dict[str, tuple[Callable[[Any], Any], Sequence[Any]]],
                repeat: int) -> dict[str, tuple[list[int], list[Any]]]:
    """Time every contender on input i before any on input i + 1: load hits all alike."""
    for fn, inputs in calls.values():
        _harness.warm_up(fn, inputs)
    out: dict[str, tuple[list[int], list[Any]]] = {name: ([], []) for name in calls}
    count = len(next(iter(calls.values()))[1])
    for i in range(count):
        for name, (fn, inputs) in calls.items():
            times, results = _harness.time_calls(fn, inputs[i:i + 1], repeat=repeat)
            out[name][0].extend(times)
            out[name][1].extend(results)
    return out


def gin(settings: Settings) -> Part:
    hands = gin_hands(settings.size.hands, seed=settings.seed)
    calls: dict[str, tuple[Callable[[Any], Any], Sequence[Any]]] = {
        "arrangement": (solver.gin_deadwood, hands), "points only": (solver.gin_points, hands)}
    missing: dict[str, str] = {}
    modules = rlcard()
    if isinstance(modules, str):
        missing["RLCard"] = modules
    else:
        calls["RLCard"] = (rlcard_deadwood(*modules), [to_rlcard(h, modules[1]) for h in hands])
    utils = spiel_gin_utils()
    if isinstance(utils, str):
        missing["OpenSpiel"] = utils
    else:
        calls["OpenSpiel"] = (utils.min_deadwood, [to_spiel(h, utils) for h in hands])
    timed = interleaved(calls, settings.repeat)
    p50 = {name: percentile(sorted(times), 50) for name, (times, _) in timed.items()}
    rows = [_gin_row(ours, anchor, limit, p50, missing)
            for ours in ("arrangement", "points only")
            for anchor, limit in (("RLCard", 0.5), ("OpenSpiel", 3.0))]
    return Part(tuple(rows), (_agreement(timed), _p99s(timed, settings)))


def _gin_row(ours: str, anchor: str, limit: float, p50: dict[str, int],
             missing: dict[str, str]) -> Row:
    measure = f"gin min deadwood, 10 cards, no wild, p50: ours ({ours}) vs {anchor}"
    target = f"<= {limit:g}x {anchor}"
    if anchor in missing:
        return Row(measure, f"{us(p50[ours])} us", f"{anchor} {missing[anchor]}", target=target)
    ratio = p50[ours] / p50[anchor]
    return Row(measure, f"{us(p50[ours])} us", f"{anchor} {us(p50[anchor])} us",
               f"{ratio:.2f}x", target, at_most(ratio, limit))


def _agreement(timed: dict[str, tuple[list[int], list[Any]]]) -> str:
    """Every solver must find the same minimum on every hand, or its time means little."""
    ours = timed["arrangement"][1]
    parts = [f"{name} {sum(a == b for a, b in zip(ours, found, strict=True))}/{len(ours)}"
             for name, (_, found) in timed.items() if name != "arrangement"]
    return "gin: same minimum deadwood as ours (arrangement) on " + ", ".join(parts) + " hands"


def _p99s(timed: dict[str, tuple[list[int], list[Any]]], settings: Settings) -> str:
    p99 = ", ".join(f"{name} {us(percentile(sorted(times), 99))} us"
                    for name, (times, _) in timed.items())
    return (f"gin: {settings.size.hands} seeded hands, each call the fastest of "
            f"{settings.repeat}, contenders interleaved hand by hand; p99: {p99}")


# --------------------------------------------------------------------------- Indian Rummy


def indian(settings: Settings) -> Part:
    rows = []
    for name, fn, cards in (("loser_points", solver.ind_points, 13),
                            ("best_declaration", solver.ind_declaration, 14)):
        for k in solver.WILD_COUNTS:
            deals = indian_deals(settings.size.hands, seed=settings.seed, k=k, size=cards)
            _harness.warm_up(fn, deals)
            stats = Stats.of(_harness.time_calls(fn, deals, repeat=settings.repeat)[0])
            rows.append(Row(f"IND {name}, {cards} cards, {k} wild, p50 / p99",
                            f"{us(stats.p50)} / {us(stats.p99)} us",
                            target="p50 <= 100 us, p99 <= 1 ms", verdict=_ind_verdict(stats)))
    return Part(tuple(rows), (f"IND: {settings.size.hands} seeded hands per row, exactly k "
                              f"wild cards, each call the fastest of {settings.repeat}",))


def _ind_verdict(stats: Stats) -> str:
    misses = [f"{what} by {by_factor(value / limit)}"
              for what, value, limit in (("p50", stats.p50, IND_P50_NS),
                                         ("p99", stats.p99, IND_P99_NS)) if value > limit]
    return "missed: " + ", ".join(misses) if misses else "met"


# --------------------------------------------------------------------------- whole games


class SpielGames:
    """OpenSpiel gin games of its C++ uniform random bots, played by ``evaluate_bots``."""

    def __init__(self, module: Any, seed: int) -> None:
        self.module = module
        self.game = module.load_game("gin_rummy")
        self.bots = [module.make_uniform_random_bot(p, seed + p)
                     for p in range(self.game.num_players())]
        self.games = self.decisions = self.actions = self.play_ns = self.setup_ns = 0
        for warm in range(5):
            module.evaluate_bots(self.game.new_initial_state(), self.bots, 10**6 + warm)

    def play(self, seed: int) -> None:
        """One game: its setup and its loop timed apart, its player actions counted."""
        clock = time.perf_counter_ns
        start = clock()
        state = self.game.new_initial_state()
        dealt = clock()
        self.module.evaluate_bots(state, self.bots, seed)
        self.play_ns += clock() - dealt
        self.setup_ns += dealt - start
        self.games += 1
        self.decisions += sum(step.player >= 0 for step in state.full_history())
        self.actions += len(state.history())


def spiel_games(seed: int) -> SpielGames | str:
    """OpenSpiel's gin loop, or why it cannot be timed."""
    module = pyspiel()
    if isinstance(module, str):
        return module
    if not all(hasattr(module, f) for f in ("evaluate_bots", "make_uniform_random_bot")):
        return "not exposed"
    return SpielGames(module, seed)


def loop(settings: Settings) -> Part:
    variant = find_variant("indian13")
    seats = engine.seats_of(variant)
    engine.warm_up(variant, seats)
    spiel = spiel_games(settings.seed)
    elapsed = decisions = 0
    seeds = range(settings.seed, settings.seed + settings.size.games)
    for seed in seeds:  # game by game, one of ours then one of theirs
        tally = engine.refereed(variant, [engine.RANDOM] * seats, [seed])
        elapsed += sum(tally.game_ns)
        decisions += tally.decisions
        if not isinstance(spiel, str):
            spiel.play(seed)
    ours = elapsed / decisions
    measure = "full loop per decision, random bots, in-process"
    mine = f"{us(ours)} us ({variant.version}, {seats} seats)"
    notes = [f"loop: ours {len(seeds)} games through the referee (bench/engine.py (a)), "
             f"{decisions} decisions, the game's setup and the bots' declaration checks "
             f"included"]
    if isinstance(spiel, str):
        return Part((Row(measure, mine, f"OpenSpiel {spiel}", target="<= 2.5x"),), tuple(notes))
    theirs = spiel.play_ns / spiel.decisions
    ratio = ours / theirs
    with_setup = (spiel.play_ns + spiel.setup_ns) / spiel.decisions
    notes.append(f"loop: OpenSpiel {spiel.games} gin games, one after each of ours, of its C++ "
                 f"uniform random bots in pyspiel.evaluate_bots, {spiel.decisions} player "
                 f"actions; {us(spiel.play_ns / spiel.actions)} us per action counting the "
                 f"chance (deal) actions too; new_initial_state adds "
                 f"{spiel.setup_ns / spiel.games / 1e6:.1f} ms per game, {us(with_setup)} us "
                 f"per decision with it (ratio {ours / with_setup:.2f}x)")
    return Part((Row(measure, mine, f"OpenSpiel {us(theirs)} us (gin, 2 seats, C++)",
                     f"{ratio:.2f}x", "<= 2.5x", at_most(ratio, 2.5)),), tuple(notes))


# --------------------------------------------------------------------------- isolation


def isolated(settings: Settings) -> Part:
    """Isolated games between two in-process halves, so both see about the same load."""
    games = settings.size.isolated_games
    before = isolation.measure(isolation.RANDOM, "inprocess", games // 2)
    proc = isolation.measure(isolation.RANDOM, "process", games)
    after = isolation.measure(isolation.RANDOM, "inprocess", games - games // 2)
    inproc = games / (games // 2 / before.games_per_s + (games - games // 2) / after.games_per_s)
    ratio = proc.games_per_s / inproc
    row = Row("isolated / in-process games per second, random bots",
              f"{proc.games_per_s:.1f} games/s isolated", f"{inproc:.1f} games/s in-process",
              f"{ratio:.2f}", ">= 0.5", at_least(ratio, 0.5))
    return Part((row,), (f"isolation: {games} games per mode, indian13, 4 seats, one worker "
                         f"(bench/isolation.py), the in-process half before and half after; "
                         f"CPU per decision isolated: referee {proc.referee_us:.0f} us, bots "
                         f"{proc.bots_us:.0f} us; in-process {before.referee_us:.0f} and "
                         f"{after.referee_us:.0f} us",))


ECHO = """\
import sys
reply = b'{"id":1,"action":"stock"}\\n'
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    out.write(reply)
    out.flush()
"""


class PingPong:
    """A bare Python child that answers each line at once: the floor of a pipe round trip."""

    def __init__(self, size: int = 600) -> None:
        self.line = ('{"id":1,"type":"draw","view":"' + "x" * (size - 33) + '"}\n').encode()
        self.child = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE)
        self.times: list[int] = []

    def run(self, count: int) -> None:
        """``count`` round trips, each timed on its own."""
        send, read, clock = self.child.stdin, self.child.stdout, time.perf_counter_ns
        assert send is not None and read is not None
        for _ in range(count):
            start = clock()
            send.write(self.line)
            send.flush()
            read.readline()
            self.times.append(clock() - start)

    def __enter__(self) -> PingPong:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.child.stdin is not None
        self.child.stdin.close()
        self.child.wait(timeout=30)


def roundtrip(settings: Settings) -> Part:
    games = settings.size.isolated_games
    with PingPong() as ping:
        ping.run(200)  # warm-up
        ping.times.clear()
        run = isolation.measure(isolation.QUICK, "process", games, clock_asks=True,
                                between=lambda: ping.run(settings.size.pings // games))
    pings, asks = sorted(ping.times), sorted(run.ask_ns)
    ours, anchor = percentile(asks, 50), percentile(pings, 50)
    ratio = ours / anchor
    row = Row("decision round trip to an isolated bot that answers at once, p50",
              f"{us(ours)} us", f"pipe ping-pong {us(anchor)} us", f"{ratio:.2f}x", "<= 3x",
              at_most(ratio, 3.0))
    referee_p50 = run.decision_ms[len(run.decision_ms) // 2] * 1000
    return Part((row,), (
        f"round trip: ours is perf_counter_ns around each seat's ask (view encoding included) "
        f"over {len(asks)} decisions of {games} games, p99 {us(percentile(asks, 99))} us (the "
        f"referee's own clock: p50 {referee_p50:.0f} us); the ping-pong sends a 600-byte line "
        f"to a bare Python child that answers at once, {len(pings)} round trips in a burst "
        f"after each game, p99 {us(percentile(pings, 99))} us",))


# --------------------------------------------------------------------------- leaderboard


PROBE = """\
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                      text=True, check=False)
wall = time.perf_counter() - start
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": done.returncode, "error": done.stderr.strip()[-300:], "wall_s": wall,
                  "peak_kb": use.ru_maxrss, "cpu_s": use.ru_utime + use.ru_stime}))
"""


def leaderboard(settings: Settings) -> Part:
    records = settings.size.records
    folder = leaderboard_folder(records)
    probe = subprocess.run([sys.executable, "-c", PROBE, sys.executable, "-m", "arena.cli",
                            "leaderboard", str(folder)], cwd=ROOT, capture_output=True,
                           text=True, check=True)
    done = json.loads(probe.stdout)
    what = f"`arena leaderboard` on {records:,} real games"
    if done["code"] != 0:
        return Part((Row(f"{what}: wall time", f"failed, exit {done['code']}"),),
                    (f"leaderboard: {done['error']}",))
    wall, peak_mb = done["wall_s"], done["peak_kb"] / 1024
    full = records == LEADERBOARD_GAMES
    rows = (Row(f"{what}: wall time, end to end", f"{wall:.2f} s", target="<= 5 s",
                verdict=at_most(wall, 5.0) if full else "n/a: target is for 100,000 games"),
            Row(f"{what}: peak memory", f"{peak_mb:,.0f} MB", target="<= 500 MB",
                verdict=at_most(peak_mb, 500) if full else "n/a: target is for 100,000 games"))
    size_mb = (folder / "games.jsonl").stat().st_size / 1e6
    return Part(rows, (f"leaderboard: a child process runs `python -m arena.cli leaderboard` "
                       f"on {folder} ({size_mb:,.0f} MB, the shipped quickstart tournament's "
                       f"records repeated with new ids); its CPU {done['cpu_s']:.2f} s, peak "
                       f"RSS from getrusage(RUSAGE_CHILDREN) of a probe process",))


def leaderboard_folder(records: int) -> Path:
    """A results folder of ``records`` games, made once and kept under the temp folder."""
    folder = CACHE / f"leaderboard-{records}"
    if not _readable(folder / "games.jsonl"):
        print(f"(making {records:,} records under {folder}, once)", file=sys.stderr)
        _fill(folder, records)
    return folder


def _readable(games: Path) -> bool:
    """The cached file exists and this code still reads its records."""
    try:
        with games.open(encoding="utf-8") as lines:
            GameRecord.from_json(next(lines))
    except (OSError, StopIteration, ValueError):
        return False
    return True


def _fill(folder: Path, records: int) -> None:
    """Play the shipped quickstart tournament, then repeat its records under new ids."""
    with tempfile.TemporaryDirectory(prefix="source-", dir=_made(CACHE)) as tmp:
        config = load_config(ROOT / "configs" / "quickstart.yaml", overrides={"output": tmp})
        run_tournament(config, fresh=True, progress=False)
        real = (config.results_dir / "games.jsonl").read_text(encoding="utf-8").splitlines()
        _made(folder)
        shutil.copy(config.results_dir / "config.yaml", folder / "config.yaml")
    part = folder / "games.jsonl.part"
    with part.open("w", encoding="utf-8") as out:
        for i in range(records):
            copy, k = divmod(i, len(real))
            out.write(_renamed(real[k], f"c{copy:05d}-") + "\n")
    os.replace(part, folder / "games.jsonl")


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _renamed(line: str, prefix: str) -> str:
    """A record as another game: its id and duplicate set prefixed, all else as played."""
    raw = json.loads(line)
    raw["id"] = prefix + raw["id"]
    if raw.get("dup_set"):
        raw["dup_set"] = prefix + raw["dup_set"]
    return json.dumps(raw, separators=(",", ":"))


# --------------------------------------------------------------------------- main


MEASURES: dict[str, Callable[[Settings], Part]] = {
    "gin": gin, "indian": indian, "loop": loop, "isolation": isolated,
    "roundtrip": roundtrip, "leaderboard": leaderboard}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="+", metavar="ROW", choices=["all", *MEASURES],
                        help="all, or any of: " + ", ".join(MEASURES))
    parser.add_argument("--quick", action="store_true", help="a smaller sample of each row")
    parser.add_argument("--seed", type=int, default=1, help="RNG seed (default 1)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="solver calls: time each this many times, keep the fastest "
                             "(default 3)")
    args = parser.parse_args(argv)
    names = list(MEASURES) if "all" in args.rows else list(dict.fromkeys(args.rows))
    settings = Settings(QUICK_RUN if args.quick else FULL_RUN, args.seed, args.repeat)
    _harness.banner("python -m bench " + " ".join(argv if argv is not None else sys.argv[1:]))
    print(f"anchors: {versions()}; load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print()
    parts = [_timed(name, settings) for name in names]
    _harness.show([[r.measure, r.ours, r.anchor, r.ratio, r.target, r.verdict]
                   for part in parts for r in part.rows], HEADERS)
    for part in parts:
        for note in part.notes:
            print(f"- {note}")
    return 0


def _timed(name: str, settings: Settings) -> Part:
    """Run one row, saying on stderr how long it took (the table comes at the end)."""
    start = time.perf_counter()
    part = MEASURES[name](settings)
    print(f"{name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return part


if __name__ == "__main__":
    sys.exit(main())
