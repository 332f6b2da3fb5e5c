"""The leaderboard: a pure function of ``games.jsonl``, printed in any tabulate format."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from tabulate import tabulate

from arena.errors import BadInput
from arena.ratings import bradley_terry_elo, pairwise
from arena.records import GameRecord

FORMATS = ("plain", "github", "markdown", "csv", "json", "html")
_TABULATE = {"plain": "simple", "github": "github", "markdown": "pipe", "html": "html"}


@dataclass(frozen=True, slots=True)
class Standing:
    """One bot's line of the leaderboard."""

    rank: int
    bot: str
    games: int
    wins: float
    win_pct: float
    mean_points: float
    mean_rank: float
    elo: float
    faults: int


def standings(records: Sequence[GameRecord]) -> list[Standing]:
    """Totals per bot; a first place shared by n seats counts 1/n of a win for each."""
    games: dict[str, int] = defaultdict(int)
    wins: dict[str, float] = defaultdict(float)
    points: dict[str, int] = defaultdict(int)
    rank_sum: dict[str, int] = defaultdict(int)
    faults: dict[str, int] = defaultdict(int)
    for r in records:
        firsts = sum(1 for x in r.ranks if x == 1)
        for seat, s in enumerate(r.seats):
            games[s.bot] += 1
            wins[s.bot] += 1 / firsts if r.ranks[seat] == 1 else 0
            points[s.bot] += r.totals[seat]
            rank_sum[s.bot] += r.ranks[seat]
            faults[s.bot] += sum(s.faults.values())
    names = sorted(games)
    elo = bradley_terry_elo(names, *pairwise(
        ([s.bot for s in r.seats], r.totals) for r in records)) if names else {}
    order = sorted(names, key=lambda b: (-elo[b], b))
    return [Standing(rank=i + 1, bot=b, games=games[b], wins=round(wins[b], 2),
                     win_pct=round(100 * wins[b] / games[b], 1),
                     mean_points=round(points[b] / games[b], 2),
                     mean_rank=round(rank_sum[b] / games[b], 2), elo=round(elo[b], 1),
                     faults=faults[b]) for i, b in enumerate(order)]


HEADERS = ["rank", "bot", "games", "wins", "win %", "mean points", "mean rank", "Elo", "faults"]


def render(rows: Sequence[Standing], fmt: str = "plain") -> str:
    """The leaderboard as text in one of :data:`FORMATS`."""
    if fmt not in FORMATS:
        raise BadInput(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=2)
    table = [[r.rank, r.bot, r.games, r.wins, r.win_pct, r.mean_points, r.mean_rank, r.elo,
              r.faults] for r in rows]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(HEADERS)
        writer.writerows(table)
        return out.getvalue().rstrip("\n")
    return tabulate(table, HEADERS, tablefmt=_TABULATE[fmt])
