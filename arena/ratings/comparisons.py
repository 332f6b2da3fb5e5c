"""The comparisons behind every rating: each pair of seats at a table is one, the lower
total wins and equal totals tie (half a win each way), a seat that forfeited loses to every
seat that did not (COM-6: it ranks last, whatever its total), grouped by duplicate set (or
game) so the bootstrap can resample whole sets."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from arena.records import GameRecord

Floats = NDArray[np.float64]
Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]
Teams = Sequence[int] | None  # a team label per seat (R51 2 v 2: (0, 1, 0, 1)); None: alone
FORFEIT_BEHIND = 1e12  # added to a forfeited seat's total when compared: past any total


@dataclass(frozen=True, slots=True, eq=False)
class Seats:
    """Records flattened to arrays: one entry per seat, per comparison and per meeting
    pattern. Every sum over them is exact (integers and halves) and units are numbered by
    their sorted keys, so the order of the records cannot change a result."""

    names: tuple[str, ...]
    units: int  # resampling units: duplicate sets, or games without one
    seat_unit: Ints
    seat_bot: Ints
    seat_points: Floats
    first: Ints  # per comparison: the two bots, first's score (1, 0.5, 0) and its unit
    second: Ints
    score: Floats
    cmp_unit: Ints
    patterns: Floats  # pattern x (n * n): how often a met b (a < b) in one game
    entry_unit: Ints  # (pattern, unit) entries with their number of games, by pattern
    entry_games: Floats
    pattern_starts: Ints  # where each pattern's entries start


def unit_key(record: GameRecord) -> str:
    """The resampling unit of a record: its duplicate set, or the game itself."""
    return f"d:{record.dup_set}" if record.dup_set else f"g:{record.id}"


def ranked_totals(record: GameRecord) -> list[float]:
    """The totals as a game ranks them, compared, never shown as points: a forfeited seat
    behind every other (COM-6)."""
    return [t + FORFEIT_BEHIND * s.forfeit for s, t in zip(record.seats, record.totals,
                                                           strict=True)]


def compared_results(record: GameRecord, teams: Teams = None) -> list[float]:
    """Each seat's result as every statistic compares it: its ranked total, or with
    ``teams`` its team's (the mean of the partners' ranked totals), so a team whose seat
    forfeited is behind every team whose seats did not (COM-6, R51-12)."""
    ranked = ranked_totals(record)
    if teams is None:
        return ranked
    team = {label: _mean([x for x, t in zip(ranked, teams, strict=True) if t == label])
            for label in set(teams)}
    return [team[label] for label in teams]


def seats_of(records: Sequence[GameRecord], *, teams: Teams = None) -> Seats:
    """Flatten records into the arrays every statistic is computed from."""
    names = tuple(sorted({s.bot for r in records for s in r.seats}))
    index = {b: i for i, b in enumerate(names)}
    keys = [unit_key(r) for r in records]
    unit_of = {k: i for i, k in enumerate(sorted(set(keys)))}
    sizes = np.array([len(r.seats) for r in records], dtype=np.int64)
    game_unit = np.array([unit_of[k] for k in keys], dtype=np.int64)
    seat_bot = np.array([index[s.bot] for r in records for s in r.seats], dtype=np.int64)
    seat_points = np.array([t for r in records for t in r.totals], dtype=np.float64)
    standing = np.array([x for r in records for x in ranked_totals(r)], dtype=np.float64)
    seat_game = np.repeat(np.arange(len(records)), sizes)
    groups = []
    for k in np.unique(sizes).tolist():
        games = np.flatnonzero(sizes == k)
        chosen = np.isin(seat_game, games)  # their seats, game by game
        groups.append(_compare(seat_bot[chosen].reshape(-1, k),
                               standing[chosen].reshape(-1, k), game_unit[games],
                               len(names), teams))
    comparisons = [np.concatenate([g[i] for g in groups]) if groups else np.zeros(0)
                   for i in range(4)]
    patterns, entries = _meeting_patterns(groups, len(names), len(unit_of))
    return Seats(names=names, units=len(unit_of), seat_unit=game_unit[seat_game],
                 seat_bot=seat_bot, seat_points=seat_points,
                 first=comparisons[0].astype(np.int64),
                 second=comparisons[1].astype(np.int64), score=comparisons[2],
                 cmp_unit=comparisons[3].astype(np.int64), patterns=patterns,
                 entry_unit=entries[0], entry_games=entries[1].astype(np.float64),
                 pattern_starts=entries[2])


_Group = tuple[Ints, Ints, Floats, Ints, Ints, Ints]


def _compare(bots: Ints, totals: Floats, units: Ints, n: int, teams: Teams) -> _Group:
    """Every comparison in games of one table size: (first, second, first's score, unit),
    then the games' units and meeting patterns. Partners are not compared, and each
    carries its team's result (the mean of the partners' totals)."""
    k = bots.shape[1]
    if teams is not None:
        if len(teams) != k:
            raise ValueError(f"a team map of {len(teams)} seats for {k}-seat games")
        labels = np.asarray(teams)
        same = (labels[:, None] == labels[None, :]).astype(np.float64)
        totals = totals @ (same / same.sum(axis=0))
    pairs = [(s, t) for s in range(k) for t in range(s + 1, k)
             if teams is None or teams[s] != teams[t]]
    s_idx = np.array([s for s, _ in pairs], dtype=np.int64)
    t_idx = np.array([t for _, t in pairs], dtype=np.int64)
    a, b = bots[:, s_idx], bots[:, t_idx]
    ta, tb = totals[:, s_idx], totals[:, t_idx]
    score = (ta < tb) + 0.5 * (ta == tb)
    met = a != b
    pattern = np.where(met, np.minimum(a, b) * n + np.maximum(a, b), -1)
    pattern.sort(axis=1)
    cmp_unit = np.broadcast_to(units[:, None], a.shape)
    return a[met], b[met], score[met].astype(np.float64), cmp_unit[met], units, pattern


def _meeting_patterns(groups: list[_Group], n: int, units: int
                      ) -> tuple[Floats, tuple[Ints, Ints, Ints]]:
    """Who met whom in a game, as few distinct patterns (usually one per table), and how
    many games of each pattern every unit holds: meetings under any weighting of the units
    then cost one product, not a pass over every game."""
    matrices: list[Floats] = []
    game_pattern: list[Ints] = []
    for group in groups:
        unique, inverse = _distinct_rows(group[5])
        matrix = np.zeros((len(unique), n * n))
        for i, row in enumerate(unique):
            matrix[i] = np.bincount(row[row >= 0], minlength=n * n)
        game_pattern.append(inverse + sum(len(m) for m in matrices))
        matrices.append(matrix)
    if not groups:
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros((0, n * n)), (empty, empty, empty)
    key = np.concatenate(game_pattern) * units + np.concatenate([g[4] for g in groups])
    entries, games = np.unique(key, return_counts=True)
    pattern, unit = np.divmod(entries, units)
    starts = np.searchsorted(pattern, np.arange(sum(len(m) for m in matrices)))
    return np.concatenate(matrices), (unit, games, starts)


def _distinct_rows(rows: Ints) -> tuple[Ints, Ints]:
    """The distinct rows of a small-integer matrix, and each row's index among them."""
    width = rows.shape[1]
    base = int(rows.max()) + 2 if rows.size else 1
    if base ** width < 2 ** 62:  # one exact integer code per row: a fast 1-D unique
        codes = (rows + 1) @ (base ** np.arange(width, dtype=np.int64))
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        return rows[first], inverse.ravel()
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)
    return unique, inverse.ravel()


def pairwise(games: Iterable[tuple[Sequence[str], Sequence[int]]], *, teams: Teams = None
             ) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], int]]:
    """Wins (ties as halves) and meetings for every ordered pair of bots, from (bots, totals).

    With ``teams`` (a team label per seat), partners are not compared and both carry their
    team's result against each opponent.
    """
    wins: dict[tuple[str, str], float] = defaultdict(float)
    meets: dict[tuple[str, str], int] = defaultdict(int)
    for bots, totals in games:
        labels = teams if teams is not None else range(len(bots))
        team_total = {t: _mean([x for x, u in zip(totals, labels, strict=True) if u == t])
                      for t in labels}
        for i, a in enumerate(bots):
            for j in range(i + 1, len(bots)):
                b = bots[j]
                if a == b or labels[i] == labels[j]:
                    continue
                ta, tb = team_total[labels[i]], team_total[labels[j]]
                score = 1.0 if ta < tb else 0.5 if ta == tb else 0.0
                wins[(a, b)] += score
                wins[(b, a)] += 1.0 - score
                meets[(a, b)] += 1
                meets[(b, a)] += 1
    return wins, meets


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)
