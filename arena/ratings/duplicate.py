"""What the duplicate deals bought: the variance of the bots' point differences per duplicate
set, against what the same games would give had every one been dealt a fresh deck.

For a pair of bots and a set, D is the first bot's points minus the second's in one game
and the set's mean of D is what the deals of the set say about the pair. With independent
deals that mean would vary as the per-game variance over the set's games; the ratio of the
two, pooled over pairs, is the figure. The formula and its checks are in
``docs/statistics.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from arena.ratings.comparisons import Floats, Ints, Teams
from arena.records import GameRecord


@dataclass(frozen=True, slots=True)
class DuplicateGain:
    """The pooled variance ratio, and the pairs and sets it rests on."""

    ratio: float  # 0: the deals cancel exactly; 1: no better than independent deals
    pairs: int
    sets: int


@dataclass(frozen=True, slots=True, eq=False)
class _Differences:
    """One entry per (game, pair of bots who met in it): the pair, the set, the seats the
    two held, and the first bot's mean points minus the second's."""

    pair: Ints
    unit: Ints
    seating: Ints
    diff: Floats


def duplicate_gain(records: Iterable[GameRecord], *, teams: Teams = None
                   ) -> DuplicateGain | None:
    """The variance ratio of per-set mean point differences, duplicate against independent
    deals; None without two sets of a pair, or with no spread to compare."""
    records = list(records)
    seeds: dict[str, set[int]] = {}
    for r in records:
        seeds.setdefault(r.dup_set, set()).add(r.seed)
    chosen = sorted((r for r in records if r.dup_set and len(seeds[r.dup_set]) == 1),
                    key=lambda r: (r.dup_set, r.id, r.seed, r.totals))
    found = _differences(chosen, teams)
    if found is None:
        return None
    between, sets, inverse = _between_sets(found)
    within, spread = _within_seatings(found)
    used = (sets >= 2) & (spread > 0)
    per_game = within[used] / spread[used]
    num = float(between[used].sum())
    den = float(((sets[used] - 1) * per_game * inverse[used]).sum())
    if den <= 0:
        return None
    return DuplicateGain(num / den, int(used.sum()), len({r.dup_set for r in chosen}))


def _sums(index: Ints, size: int, weights: Floats | None = None) -> Floats:
    """Per value of ``index``: how often it occurs, or the sum of its weights."""
    return np.asarray(np.bincount(index, weights=weights, minlength=size), dtype=np.float64)


def _between_sets(found: _Differences) -> tuple[Floats, Floats, Floats]:
    """Per pair: the sum of squares of its set means about their mean, its sets, and the
    mean over them of 1 / games in the set (independent deals would give a set mean the
    per-game variance times that)."""
    pairs = int(found.pair.max()) + 1
    base = int(found.unit.max()) + 1
    cells, cell = np.unique(found.pair * base + found.unit, return_inverse=True)
    cell_pair = cells // base
    games = _sums(cell, len(cells))
    means = _sums(cell, len(cells), found.diff) / games
    sets = _sums(cell_pair, pairs)
    centre = _sums(cell_pair, pairs, means) / np.maximum(sets, 1)
    between = _sums(cell_pair, pairs, (means - centre[cell_pair]) ** 2)
    inverse = _sums(cell_pair, pairs, 1.0 / games) / np.maximum(sets, 1)
    return between, sets, inverse


def _within_seatings(found: _Differences) -> tuple[Floats, Floats]:
    """Per pair: the sum of squares of its games' differences about the mean of games with
    the same seats, and its degrees of freedom (games less seatings). Within a seating, a
    seat's advantage is no part of the spread: the rotations of a set cancel it whether the
    deals are duplicate or not, so it must not count as the deck's doing."""
    pairs = int(found.pair.max()) + 1
    base = int(found.seating.max()) + 1
    groups, group = np.unique(found.pair * base + found.seating, return_inverse=True)
    mean = _sums(group, len(groups), found.diff) / _sums(group, len(groups))
    within = _sums(found.pair, pairs, (found.diff - mean[group]) ** 2)
    spread = _sums(found.pair, pairs) - _sums(groups // base, pairs)
    return within, spread


def _differences(records: list[GameRecord], teams: Teams) -> _Differences | None:
    """Every (game, pair) of bots who met, partners of a team apart; a bot in several seats
    of a game counts with the mean of its seats."""
    if not records:
        return None
    names = sorted({s.bot for r in records for s in r.seats})
    index = {b: i for i, b in enumerate(names)}
    n = len(names)
    sizes = np.array([len(r.seats) for r in records], dtype=np.int64)
    width = int(sizes.max())
    seat_bot = np.array([index[s.bot] for r in records for s in r.seats], dtype=np.int64)
    seat_points = np.array([t for r in records for t in r.totals], dtype=np.float64)
    seat_game = np.repeat(np.arange(len(records)), sizes)
    units = np.unique([r.dup_set for r in records], return_inverse=True)[1].ravel()
    parts: list[tuple[Ints, Ints, Ints, Ints, Floats]] = []
    for k in np.unique(sizes).tolist():
        game = np.flatnonzero(sizes == k)
        chosen = np.isin(seat_game, game)
        bots = seat_bot[chosen].reshape(-1, k)
        totals = _team_totals(seat_points[chosen].reshape(-1, k), teams)
        parts += [_seat_pair(bots, totals, game, units[game], s=s, t=t, k=k, n=n, width=width)
                  for s in range(k) for t in range(s + 1, k)
                  if teams is None or teams[s] != teams[t]]
    if not parts:
        return None
    game, unit, pair, seating, diff = (np.concatenate([p[i] for p in parts]) for i in range(5))
    return _per_game(game * n * n + pair, unit, pair, seating, diff)


def _team_totals(totals: Floats, teams: Teams) -> Floats:
    """Each seat's result: its own total, or its team's mean as the comparisons take it."""
    if teams is None:
        return totals
    if len(teams) != totals.shape[1]:
        raise ValueError(f"a team map of {len(teams)} seats for {totals.shape[1]}-seat games")
    labels = np.asarray(teams)
    same = (labels[:, None] == labels[None, :]).astype(np.float64)
    result: Floats = totals @ (same / same.sum(axis=0))
    return result


def _seat_pair(bots: Ints, totals: Floats, game: Ints, unit: Ints, *, s: int, t: int,
               k: int, n: int, width: int) -> tuple[Ints, Ints, Ints, Ints, Floats]:
    """Seats s and t of every game: the lower-numbered bot first, its seat as a bit of the
    seating code (table size, first bot's seats, second bot's seats)."""
    a, b = bots[:, s], bots[:, t]
    met = a != b
    first = a < b
    n_pair = np.where(first, a * n + b, b * n + a)
    diff = np.where(first, totals[:, s] - totals[:, t], totals[:, t] - totals[:, s])
    low_bit = np.where(first, 1 << s, 1 << t)
    high_bit = np.where(first, 1 << t, 1 << s)
    seating = (k << (2 * width)) | (low_bit << width) | high_bit
    return game[met], unit[met], n_pair[met], seating[met], diff[met]


def _per_game(key: Ints, unit: Ints, pair: Ints, seating: Ints, diff: Floats
              ) -> _Differences:
    """One entry per (game, pair): the mean of its seat pairs' differences (a bot in several
    seats meets each of the other's seats), the seats of each bot or'ed together."""
    order = np.argsort(key, kind="stable")
    key, unit, pair, seating, diff = key[order], unit[order], pair[order], seating[order], \
        diff[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    counts = np.diff(np.r_[starts, len(key)])
    mean = np.add.reduceat(diff, starts) / counts
    seats = np.bitwise_or.reduceat(seating, starts)
    return _Differences(pair=pair[starts], unit=unit[starts], seating=seats, diff=mean)
