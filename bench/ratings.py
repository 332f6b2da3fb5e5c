"""The leaderboard of a big tournament: ``standings`` + ``render`` on synthetic records.

    python bench/ratings.py [--n 100000] [--bots 8] [--seats 4] [--seed 1] [--no-duplicate]
                            [--file]

Synthesises ``--n`` game records (duplicate sets of ``--seats`` rotations at random tables of
``--bots`` bots of known Elo; totals are 2000 - Elo plus Gumbel noise, rounded, at least 0),
then times each part of the leaderboard: the Bradley-Terry fit with its bootstrap (``rate``),
openskill, the whole of ``standings`` and ``render``. With ``--file`` it also times what ``arena
leaderboard`` adds: reading the records back from a ``games.jsonl``. Target: standings +
render of 100,000 games in under 5 s.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import _harness
import numpy as np

from arena.engine.results import GameEnd, RoundEnd
from arena.ratings.bradley_terry import ELO_SCALE, RESAMPLES, rate
from arena.ratings.leaderboard import standings
from arena.ratings.openskill import openskill_ordinals
from arena.ratings.render import render
from arena.records import FAULT_KINDS, GameRecord, RoundRecord, SeatRecord, read_games

T = TypeVar("T")
TARGET_S = 5.0


def synthesise(n: int, *, bots: int, seats: int, seed: int,
               duplicate: bool) -> list[GameRecord]:
    """``n`` records of bots 0, 50, 100, ... Elo; whole duplicate sets where asked."""
    rng = np.random.default_rng(seed)
    elo = 50.0 * np.arange(bots)
    names = [f"bot{i}" for i in range(bots)]
    faults = dict.fromkeys(FAULT_KINDS, 0)
    records: list[GameRecord] = []
    for s in range(-(-n // seats)):
        table = [int(x) for x in rng.choice(bots, size=seats, replace=False)]
        noise = ELO_SCALE * rng.gumbel(size=(seats, seats))
        for g in range(seats):
            if len(records) == n:
                break
            order = table[g:] + table[:g]
            totals = tuple(max(0, int(x)) for x in np.rint(2000 - elo[order] + noise[g]))
            ranks = tuple(1 + sum(o < t for o in totals) for t in totals)
            records.append(GameRecord(
                schema=1, id=f"t{s:06d}-g{g:03d}", variant="indian13/v1",
                options={"players": seats}, seed=s,
                seats=tuple(SeatRecord(bot=names[i], faults=faults, decisions=30,
                                       time_mean_ms=1.0, time_p95_ms=2.0, time_max_ms=3.0)
                            for i in order),
                actions=(), rounds=(RoundRecord(round=1, dealer=0, reason=RoundEnd.DECLARATION,
                                                penalties=totals),),
                totals=totals, ranks=ranks, termination=GameEnd.NORMAL,
                dup_set=f"t{s:06d}-d000" if duplicate else ""))
    return records


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = _harness.arguments(__doc__ or "", n=100_000, repeat=False, profile=False)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--no-duplicate", action="store_true",
                        help="games without duplicate sets: every game resampled alone")
    parser.add_argument("--file", action="store_true",
                        help="also time reading the records from a games.jsonl")
    args = parser.parse_args()
    _harness.banner("bench/ratings.py")
    records = synthesise(args.n, bots=args.bots, seats=args.seats, seed=args.seed,
                         duplicate=not args.no_duplicate)
    standings(records[:400])  # warm-up: imports, openskill's self-check
    in_order = sorted(records, key=lambda r: r.id)
    t_rate, _ = timed(lambda: rate(records))
    t_open, _ = timed(lambda: openskill_ordinals(
        ([s.bot for s in r.seats], r.totals) for r in in_order))
    t_standings, rows = timed(lambda: standings(records))
    t_render, _ = timed(lambda: (render(rows, "plain"), render(rows, "json")))
    total = t_standings + t_render
    table = [["rate: Bradley-Terry fit + bootstrap", f"{t_rate:.2f}"],
             ["openskill Plackett-Luce, game by game", f"{t_open:.2f}"],
             ["standings (all of the above + counts)", f"{t_standings:.2f}"],
             ["render (plain + json)", f"{t_render:.3f}"],
             [f"**standings + render** (target < {TARGET_S:g} s)", f"**{total:.2f}**"]]
    if args.file:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "games.jsonl"
            path.write_text("".join(r.to_json() + "\n" for r in records), encoding="utf-8")
            t_read, _ = timed(lambda: read_games(path))
        table.append(["read_games (games.jsonl, for arena leaderboard)", f"{t_read:.2f}"])
    units = "duplicate sets" if not args.no_duplicate else "games"
    print(f"{len(records):,} games, {args.bots} bots, {args.seats}-seat tables, bootstrap "
          f"over {units}, {RESAMPLES} resamples\n")
    _harness.show(table, ["step", "seconds"])
    print(render(rows, "github"))


if __name__ == "__main__":
    main()
