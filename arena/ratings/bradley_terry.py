"""Ratings from game records: one joint Bradley-Terry fit and its bootstrap intervals.

The Elo of a bot is its log-strength in the maximum-likelihood Bradley-Terry model fitted
jointly to every comparison (Bradley & Terry 1952; Hunter 2004, Ann. Statist. 32(1)), on the
scale 400 / ln 10 per unit, mean 1500 (or a named bot fixed by an anchor). A virtual
opponent of log-strength 0, met once with a tie by every bot, keeps unbeaten or winless bots
finite; their gaps are open, so the mean is over the bots the results link, whose gaps come
from their own comparisons (the likelihood's limit as the open gaps grow), and they get no
interval. Intervals come from resampling whole games, or whole duplicate sets when the records
carry them, and refitting. Everything depends on the set of records only, never on the order
they finished; the formulas are in ``docs/statistics.md``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from arena.ratings.comparisons import (
    Bools,
    Floats,
    Ints,
    Seats,
    Teams,
    seats_of,
)
from arena.records import GameRecord

ELO_SCALE = 400 / math.log(10)
ELO_MEAN = 1500.0
RESAMPLES = 400  # bootstrap refits: 0.5 to 1.5 s for 100,000 games (bench/ratings.py)
SEED = 20240229  # the bootstrap's fixed seed: same records, same intervals
LEVEL = 0.95
MIN_UNITS = 5  # fewer duplicate sets (or games) than this: no interval, no LOS. Coverage of
# the 95% interval by sets (bench/coverage.py): 86% at 2, 93% at 3, 95% at 5 and 10
NO_SPREAD = 1e-9  # Elo: gaps that differ only by rounding (partners' do, by 1e-13) measured
# no spread, and a LOS of 50% between them would claim an even chance no data gave
_CHUNK_CELLS = 4_000_000  # resample counts held at once (resamples x units)



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


def to_elo(theta: Floats, *, anchor: int | None = None, at: float = ELO_MEAN,
           reference: Bools | None = None) -> Floats:
    """Elo from log-strengths: mean ``at`` (over the ``reference`` bots, a mask; all by
    default), or bot ``anchor`` fixed at ``at``."""
    if anchor is not None:
        ref = theta[..., anchor:anchor + 1]
    elif reference is None:
        ref = theta.mean(axis=-1, keepdims=True)
    else:
        ref = theta[..., reference].mean(axis=-1, keepdims=True)
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
    unbounded: tuple[int, ...] = ()  # bots whose gap to the reference the results leave open

    @property
    def has_intervals(self) -> bool:
        """Whether there were enough units to resample (MIN_UNITS)."""
        return len(self.elo_samples) > 0

    def los(self, a: int, b: int) -> float | None:
        """Likelihood that bot a is stronger than bot b: Phi(d / sd(d)), sd by bootstrap;
        None when every resample gives the same gap (0%, 50% or 100% would claim a
        certainty, or an even chance, that no spread measured: as an interval of no width)."""
        diff = float(self.elo.value[a] - self.elo.value[b])
        draws = self.elo_samples[:, a] - self.elo_samples[:, b]
        sd = float(np.nanstd(draws)) if np.isfinite(draws).sum() > 1 else 0.0
        if sd < NO_SPREAD:
            return None
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
    score = _score_matrix(seats)
    groups = linked_groups(score)
    reference = _reference(groups, fixed)
    features = _unit_features(seats, groups)
    full = np.ones((1, seats.units))
    # One BLAS thread: these products are long and thin, and OpenBLAS's threads spin-wait
    # when another process holds a core (a tournament still running): 100,000 games took
    # 24 s instead of 1.5 s beside one busy process.
    with threadpool_limits(limits=1, user_api="blas"):
        point = _statistics(seats, features, full, fixed, at, reference, groups)
        draws = [_statistics(seats, features, counts, fixed, at, reference, groups)
                 for counts in _resample_counts(seats.units, resamples, seed)]
    samples = [np.concatenate([d[i] for d in draws]) if draws else np.full((0, n), np.nan)
               for i in range(3)]
    unbounded = tuple(int(i) for i in np.flatnonzero(np.logical_not(reference))) \
        if not reference.all() else ()
    elo = _estimate(point[0][0], samples[0], seats.units)
    for i in unbounded:  # a bootstrap of separated results measures no spread of the gap
        elo.low[i] = elo.high[i] = np.nan
    return Ratings(names=seats.names,
                   elo=elo,
                   points=_estimate(point[1][0], samples[1], seats.units, bounded=True),
                   vs_field=_estimate(point[2][0], samples[2], seats.units),
                   elo_samples=samples[0], score=score,
                   meets=_meetings(seats, full)[0], unbounded=unbounded)


def linked_groups(score: Floats) -> Ints:
    """The group of each bot (the lowest index in it): bots linked both ways by chains of
    "scored against" (a win or a tie). Between groups one side won every comparison, or
    they never met, and the likelihood has no maximum for their gap (Ford 1957, Amer. Math.
    Monthly 64(8)): only the virtual tie keeps it finite, and resampling shows no spread."""
    n = len(score)
    reach = (score > 0) | np.eye(n, dtype=bool)
    while True:
        wider = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if (wider == reach).all():
            break
        reach = wider
    return np.asarray((reach & reach.T).argmax(axis=1) if n else [], dtype=np.int64)


def _reference(groups: Ints, anchor: int | None) -> Bools:
    """The bots the Elo is centred on, whose gaps the results bound: the anchor's group, else
    the one largest group; with no single largest, none (the mean is over every bot, and no
    Elo interval is kept)."""
    if not len(groups):
        return np.zeros(0, dtype=bool)
    sizes = np.bincount(groups, minlength=len(groups))
    if anchor is not None:
        return np.asarray(groups == groups[anchor])
    if (sizes == sizes.max()).sum() > 1:
        return np.zeros(len(groups), dtype=bool)
    return np.asarray(groups == sizes.argmax())


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


def _unit_features(seats: Seats, groups: Ints) -> Floats:
    """Per unit and bot: score, points, seats, (own mean - unit mean), present, and the
    score against the bots of its own linked group."""
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
    inside = groups[seats.first] == groups[seats.second] if len(groups) else \
        np.zeros(len(seats.first), dtype=bool)
    score_inside = per_bot(seats.cmp_unit * n + seats.first, seats.score * inside) + \
        per_bot(seats.cmp_unit * n + seats.second, (1.0 - seats.score) * inside)
    return np.hstack([score, points, count, diff, present, score_inside])


def _statistics(seats: Seats, features: Floats, counts: Floats, anchor: int | None,
                at: float, reference: Bools, groups: Ints) -> tuple[Floats, Floats, Floats]:
    """Elo, mean points and vs-field of each weighting of the units (one row per draw).
    With several linked groups, each group's gaps are those of its own comparisons (the
    likelihood's limit as the gaps between groups grow without end), placed at the joint
    fit's mean for it: an anchor, or which group is largest, then moves no gap."""
    n = len(seats.names)
    sums = counts @ features
    score, points, count, diff, present, inside = (sums[:, i * n:(i + 1) * n]
                                                   for i in range(6))
    meets = _meetings(seats, counts)
    theta = fit_strengths(score, meets)
    several = _several(groups)
    if several:
        own = fit_strengths(inside, meets * (groups[:, None] == groups[None, :]))
        for group in several:
            theta[:, group] = own[:, group] - own[:, group].mean(axis=1, keepdims=True) + \
                theta[:, group].mean(axis=1, keepdims=True)
    elo = to_elo(theta, anchor=anchor, at=at, reference=reference if reference.any() else None)
    with np.errstate(invalid="ignore", divide="ignore"):
        absent = count == 0
        elo[absent] = np.nan
        return elo, points / count, diff / present


def _several(groups: Ints) -> list[Bools]:
    """The linked groups of more than one bot, as masks, when there is more than one group
    (with one, the joint fit is the group's own)."""
    labels, sizes = np.unique(groups, return_counts=True)
    return [groups == g for g, size in zip(labels, sizes, strict=True) if size > 1] \
        if len(labels) > 1 else []


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
