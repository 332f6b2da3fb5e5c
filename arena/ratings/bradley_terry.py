"""Ratings from game records: one joint Bradley-Terry fit, bootstrap intervals, openskill.

Every pair of seats at a table is one comparison: the lower total wins, equal totals tie (half
a win each way). The Elo of a bot is its log-strength in the maximum-likelihood Bradley-Terry
model fitted jointly to every comparison (Bradley & Terry 1952; Hunter 2004, Ann. Statist.
32(1)), on the scale 400 / ln 10 per unit, mean 1500 (or a named bot fixed by an anchor). A
virtual opponent of log-strength 0, met once with a tie by every bot, keeps unbeaten or
winless bots finite. Intervals come from resampling whole games, or whole duplicate sets
when the records carry them, and refitting. Everything depends on the set of records only,
never on the order they finished; the formulas are in ``docs/statistics.md``.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray
from openskill.models import PlackettLuce, PlackettLuceRating
from threadpoolctl import threadpool_limits

from arena.records import GameRecord

ELO_SCALE = 400 / math.log(10)
ELO_MEAN = 1500.0
RESAMPLES = 400  # bootstrap refits: 0.5 to 1.5 s for 100,000 games (bench/ratings.py)
SEED = 20240229  # the bootstrap's fixed seed: same records, same intervals
LEVEL = 0.95
MIN_UNITS = 5  # fewer duplicate sets (or games) than this: no interval, no LOS. Coverage of
# the 95% interval by sets (bench/coverage.py): 86% at 2, 93% at 3, 95% at 5 and 10
_CHUNK_CELLS = 4_000_000  # resample counts held at once (resamples x units)

Floats = NDArray[np.float64]
Ints = NDArray[np.int64]
Teams = Sequence[int] | None  # a team label per seat (R51 2 v 2: (0, 1, 0, 1)); None: alone


# ----------------------------------------------------------------------- the comparisons


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
    seat_game = np.repeat(np.arange(len(records)), sizes)
    groups = []
    for k in np.unique(sizes).tolist():
        games = np.flatnonzero(sizes == k)
        chosen = np.isin(seat_game, games)  # their seats, game by game
        groups.append(_compare(seat_bot[chosen].reshape(-1, k),
                               seat_points[chosen].reshape(-1, k), game_unit[games],
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


# ----------------------------------------------------------------------- the fit


def _sigmoid(x: Floats) -> Floats:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def fit_strengths(wins: Floats, meets: Floats, *, tol: float = 1e-10,
                  max_iter: int = 200) -> Floats:
    """Log-strengths maximising the Bradley-Terry likelihood, for a batch of data sets.

    ``wins[..., i]`` is bot i's total score, ``meets[..., i, j]`` how often i and j met
    (symmetric). Newton's method on the concave log-likelihood, whose virtual tie per bot
    makes it strictly concave; steps are capped at 1 (174 Elo) so no start overshoots.
    """
    wins = np.atleast_2d(wins)
    meets = meets.reshape(wins.shape + wins.shape[-1:])
    theta = np.zeros_like(wins)
    for _ in range(max_iter):
        p = _sigmoid(theta[..., :, None] - theta[..., None, :])
        q = _sigmoid(theta)
        grad = wins + 0.5 - (meets * p).sum(axis=-1) - q
        weight = meets * p * (1.0 - p)
        info = -weight
        diag = np.einsum("...ii->...i", info)
        diag += weight.sum(axis=-1) + q * (1.0 - q)
        step = np.linalg.solve(info, grad[..., None])[..., 0]
        size = np.abs(step).max(axis=-1, keepdims=True)
        theta += step / np.maximum(1.0, size)
        if size.max() < tol:
            break
    return theta


def to_elo(theta: Floats, *, anchor: int | None = None, at: float = ELO_MEAN) -> Floats:
    """Elo from log-strengths: mean ``at``, or bot ``anchor`` fixed at ``at``."""
    ref = theta.mean(axis=-1, keepdims=True) if anchor is None else theta[..., anchor:anchor + 1]
    return at + ELO_SCALE * (theta - ref)


def bradley_terry_elo(names: Sequence[str], wins: Mapping[tuple[str, str], float],
                      meets: Mapping[tuple[str, str], int], *,
                      anchor: tuple[str, float] | None = None) -> dict[str, float]:
    """Elo ratings (mean 1500, or the anchor's) of the joint Bradley-Terry fit."""
    index = {b: i for i, b in enumerate(names)}
    n = len(names)
    w = np.zeros(n)
    m = np.zeros((n, n))
    for (a, _), x in wins.items():
        w[index[a]] += x
    for (a, b), x in meets.items():
        m[index[a], index[b]] = x
    fixed = None if anchor is None else index[anchor[0]]
    elo = to_elo(fit_strengths(w, m)[0], anchor=fixed,
                 at=ELO_MEAN if anchor is None else anchor[1])
    return {b: float(e) for b, e in zip(names, elo, strict=True)}


# ----------------------------------------------------------------------- the bootstrap


@dataclass(frozen=True, slots=True, eq=False)
class Estimate:
    """A statistic per bot with its bootstrap interval (NaN where a bot has no data)."""

    value: Floats
    low: Floats
    high: Floats


@dataclass(frozen=True, slots=True, eq=False)
class Ratings:
    """Everything the leaderboard reports about the bots, by index into ``names``."""

    names: tuple[str, ...]
    elo: Estimate
    points: Estimate  # mean points per game
    vs_field: Estimate  # mean over units of (own mean points - the unit's mean per seat)
    elo_samples: Floats  # resamples x bots
    score: Floats  # head to head: score[a, b] = a's wins over b, ties half
    meets: Floats

    @property
    def has_intervals(self) -> bool:
        """Whether there were enough units to resample (MIN_UNITS)."""
        return len(self.elo_samples) > 0

    def los(self, a: int, b: int) -> float:
        """Likelihood that bot a is stronger than bot b: Phi(d / sd(d)), sd by bootstrap."""
        diff = float(self.elo.value[a] - self.elo.value[b])
        draws = self.elo_samples[:, a] - self.elo_samples[:, b]
        sd = float(np.nanstd(draws)) if np.isfinite(draws).sum() > 1 else 0.0
        if sd == 0.0:
            return 0.5 if diff == 0 else float(diff > 0)
        return 0.5 * (1.0 + math.erf(diff / (sd * math.sqrt(2.0))))


def rate(records: Iterable[GameRecord], *, anchor: tuple[str, float] | None = None,
         teams: Teams = None, resamples: int = RESAMPLES, seed: int = SEED) -> Ratings:
    """Fit, then refit on ``resamples`` bootstrap draws of whole units (seeded); with fewer
    than MIN_UNITS units there is no interval: a bootstrap of so few understates the spread."""
    seats = seats_of(list(records), teams=teams)
    if seats.units < MIN_UNITS:
        resamples = 0
    n = len(seats.names)
    fixed = None
    if anchor is not None:
        if anchor[0] not in seats.names:
            raise KeyError(anchor[0])
        fixed = seats.names.index(anchor[0])
    at = ELO_MEAN if anchor is None else anchor[1]
    features = _unit_features(seats)
    full = np.ones((1, seats.units))
    # One BLAS thread: these products are long and thin, and OpenBLAS's threads spin-wait
    # when another process holds a core (a tournament still running): 100,000 games took
    # 24 s instead of 1.5 s beside one busy process.
    with threadpool_limits(limits=1, user_api="blas"):
        point = _statistics(seats, features, full, fixed, at)
        draws = [_statistics(seats, features, counts, fixed, at)
                 for counts in _resample_counts(seats.units, resamples, seed)]
    samples = [np.concatenate([d[i] for d in draws]) if draws else np.full((0, n), np.nan)
               for i in range(3)]
    return Ratings(names=seats.names,
                   elo=_estimate(point[0][0], samples[0], seats.units),
                   points=_estimate(point[1][0], samples[1], seats.units, bounded=True),
                   vs_field=_estimate(point[2][0], samples[2], seats.units),
                   elo_samples=samples[0], score=_score_matrix(seats),
                   meets=_meetings(seats, full)[0])


def _estimate(value: Floats, samples: Floats, units: int, *, bounded: bool = False
              ) -> Estimate:
    """The estimate plus or minus Student's t (units - 1 degrees of freedom) times its
    bootstrap standard deviation: on few duplicate sets the percentile interval falls well
    short of its level, this one does not (bench/coverage.py, docs/statistics.md). A
    ``bounded`` statistic (mean points: never below the smallest a resample gives) is kept
    within the range of its resamples."""
    if len(samples) == 0:
        return Estimate(value, np.full_like(value, np.nan), np.full_like(value, np.nan))
    with warnings.catch_warnings():  # a bot absent from every draw: NaN, not a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        sd = np.nanstd(samples, axis=0, ddof=1)
        half = t_quantile(0.5 + LEVEL / 2, units - 1) * sd
        low, high = value - half, value + half
        if bounded:
            low = np.fmax(low, np.nanmin(samples, axis=0))
            high = np.fmin(high, np.nanmax(samples, axis=0))
    return Estimate(value, low, high)


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile by the Cornish-Fisher expansion of Abramowitz & Stegun 26.7.5
    (within 0.002 of the exact value at p = 0.975 for df >= 5, exact as df grows)."""
    z = NormalDist().inv_cdf(p)
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return float(z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4)


def _resample_counts(units: int, resamples: int, seed: int) -> Iterable[Floats]:
    """How often each unit is drawn, for each bootstrap sample, a chunk at a time."""
    rng = np.random.default_rng(seed)
    chunk = max(1, min(resamples, _CHUNK_CELLS // max(1, units)))
    done = 0
    while done < resamples and units:
        b = min(chunk, resamples - done)
        draws = rng.integers(0, units, size=(b, units)) + units * np.arange(b)[:, None]
        yield np.bincount(draws.ravel(), minlength=b * units).reshape(b, units).astype(
            np.float64)
        done += b


def _unit_features(seats: Seats) -> Floats:
    """Per unit and bot: score, points, seats, (own mean - unit mean), present."""
    n, u = len(seats.names), seats.units
    flat = seats.seat_unit * n + seats.seat_bot

    def per_bot(index: Ints, weights: Floats) -> Floats:
        return _weighted_count(index, weights, u * n).reshape(u, n)

    score = per_bot(seats.cmp_unit * n + seats.first, seats.score) + \
        per_bot(seats.cmp_unit * n + seats.second, 1.0 - seats.score)
    points = per_bot(flat, seats.seat_points)
    count = per_bot(flat, np.ones(len(flat)))
    unit_mean = np.bincount(seats.seat_unit, weights=seats.seat_points, minlength=u) / \
        np.maximum(1, np.bincount(seats.seat_unit, minlength=u))
    present = (count > 0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = np.where(present > 0, points / count - unit_mean[:, None], 0.0)
    return np.hstack([score, points, count, diff, present])


def _statistics(seats: Seats, features: Floats, counts: Floats, anchor: int | None,
                at: float) -> tuple[Floats, Floats, Floats]:
    """Elo, mean points and vs-field of each weighting of the units (one row per draw)."""
    n = len(seats.names)
    sums = counts @ features
    score, points, count, diff, present = (sums[:, i * n:(i + 1) * n] for i in range(5))
    elo = to_elo(fit_strengths(score, _meetings(seats, counts)), anchor=anchor, at=at)
    with np.errstate(invalid="ignore", divide="ignore"):
        absent = count == 0
        elo[absent] = np.nan
        return elo, points / count, diff / present


def _meetings(seats: Seats, counts: Floats) -> Floats:
    """Meetings of every pair of bots under each weighting of the units (one per row)."""
    n, b = len(seats.names), len(counts)
    if not len(seats.entry_unit):
        return np.zeros((b, n, n))
    games = counts[:, seats.entry_unit] * seats.entry_games
    per_pattern = np.add.reduceat(games, seats.pattern_starts, axis=1)
    upper = (per_pattern @ seats.patterns).reshape(b, n, n)
    return upper + upper.transpose(0, 2, 1)


def _score_matrix(seats: Seats) -> Floats:
    n = len(seats.names)
    flat = _weighted_count(seats.first * n + seats.second, seats.score, n * n)
    flat += _weighted_count(seats.second * n + seats.first, 1.0 - seats.score, n * n)
    return flat.reshape(n, n)


def _weighted_count(index: Ints, weights: Floats, size: int) -> Floats:
    return np.asarray(np.bincount(index, weights=weights, minlength=size), dtype=np.float64)


# ----------------------------------------------------------------------- openskill


def openskill_ordinals(games: Iterable[tuple[Sequence[str], Sequence[float]]], *,
                       teams: Teams = None) -> dict[str, float]:
    """The ``openskill`` Plackett-Luce model's ordinal (mu - 3 sigma) after the games, rated
    one by one in the order given (callers sort them by game id); lower totals rank first."""
    model = PlackettLuce()
    ratings: dict[str, PlackettLuceRating] = {}
    update = _rate_in_place if _fast_path_works() else _rate_public
    for bots, totals in games:
        for b in bots:
            if b not in ratings:
                ratings[b] = model.rating(name=b)
        alone = len(set(bots)) == len(bots)
        # a bot in several seats: each seat rates a copy, then the bot takes their mean
        players = [ratings[b] for b in bots] if alone else \
            [model.rating(mu=ratings[b].mu, sigma=ratings[b].sigma) for b in bots]
        update(model, *_ranked(players, totals, teams))
        if not alone:
            for b in set(bots):
                mine = [p for p, x in zip(players, bots, strict=True) if x == b]
                ratings[b].mu = sum(p.mu for p in mine) / len(mine)
                ratings[b].sigma = sum(p.sigma for p in mine) / len(mine)
    return {b: float(r.ordinal()) for b, r in ratings.items()}


def _ranked(players: list[PlackettLuceRating], totals: Sequence[float], teams: Teams
            ) -> tuple[list[list[PlackettLuceRating]], list[float]]:
    """Teams best first (a seat alone without a team map) with their competition ranks."""
    if teams is None:
        groups = [[p] for p in players]
        result = list(totals)
    else:
        labels = list(dict.fromkeys(teams))
        groups = [[p for p, t in zip(players, teams, strict=True) if t == label]
                  for label in labels]
        result = [_mean([x for x, t in zip(totals, teams, strict=True) if t == label])
                  for label in labels]
    order = sorted(range(len(groups)), key=result.__getitem__)
    ranks: list[float] = []
    for place, i in enumerate(order):
        tied = place and result[i] == result[order[place - 1]]
        ranks.append(ranks[-1] if tied else float(place + 1))
    return [groups[i] for i in order], ranks


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _rate_public(model: PlackettLuce, teams: list[list[PlackettLuceRating]],
                 ranks: list[float]) -> None:
    """``model.rate``, with the result copied back into the rating objects."""
    new = model.rate(teams, ranks=ranks)
    for old_team, new_team in zip(teams, new, strict=True):
        for old, fresh in zip(old_team, new_team, strict=True):
            old.mu, old.sigma = fresh.mu, fresh.sigma


def _rate_in_place(model: PlackettLuce, teams: list[list[PlackettLuceRating]],
                   ranks: list[float]) -> None:
    """What ``model.rate`` does for teams already in rank order (add tau to sigma, then the
    update) without its deep copy of every rating, which costs most of its time; used only
    while :func:`_fast_path_works`."""
    tau2 = model.tau * model.tau
    for team in teams:
        for player in team:
            player.sigma = math.sqrt(player.sigma * player.sigma + tau2)
    model._compute(teams=teams, ranks=ranks)


@cache
def _fast_path_works() -> bool:
    """Does :func:`_rate_in_place` give exactly what the public ``rate`` gives? Checked once,
    on games with ties and teams, so a change inside ``openskill`` falls back to ``rate``."""
    results = []
    for update in (_rate_public, _rate_in_place):
        try:
            model = PlackettLuce()
            players = [model.rating(name=str(i)) for i in range(4)]
            for totals in ([0, 5, 9, 20], [7, 0, 0, 30], [12, 12, 0, 3], [4, 4, 4, 4]):
                update(model, *_ranked(players, totals, None))
                update(model, *_ranked(players, totals, (0, 1, 0, 1)))
            results.append([(p.mu, p.sigma) for p in players])
        except Exception:  # the private method changed: use the public call
            return False
    return results[0] == results[1]
