"""Is the candidate stronger than the baseline? A sequential test over duplicate sets.

The candidate A and the baseline B play duplicate sets: one shuffled deck dealt once per seat
rotation of the table (A, B, then B again or a named filler in the other seats). A set's
score is A's mean pairwise result against the B seats (a lower total wins, equal totals tie
at a half), so card luck largely cancels inside a set, as in the pentanomial game pairs of
fastchess and fishtest. The generalised SPRT of Van den Bergh tests H0: Elo = elo0 against
H1: Elo = elo1 with the log-likelihood ratio of the set scores' distributions that fit them
best with mean s0 and with mean s1 (s = 1 / (1 + 10^(-Elo/400))), computed exactly:

    LLR = sum_j [log(1 + l0 (x_j - s0)) - log(1 + l1 (x_j - s1))],
    l solving  sum_j (x_j - s) / (1 + l (x_j - s)) = 0.

Near the mean this is fishtest's normal approximation n (s1 - s0)(2 mean - s0 - s1) /
(2 var); far from it (wide bounds) the approximation overstates H1 several-fold. The
derivation, the references and the checks of its error rates are in
``docs/statistics.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.errors import BadInput
from arena.ratings.bradley_terry import ELO_SCALE, LEVEL, MIN_UNITS, fit_strengths, t_quantile
from arena.ratings.comparisons import Teams, compared_results
from arena.records import GameRecord

MIN_SETS = 30  # no decision on fewer sets: the variance estimate is too rough before
PRIOR = 1e-3  # pseudo-sets at scores 0 and 1, as fishtest regularises empty outcomes
MAX_ELO = 1000  # a hypothesis beyond it says one bot never wins: no test needed (or +inf)


def expected_score(elo: float) -> float:
    """A pairwise score from an Elo difference (the logistic curve of Bradley-Terry)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of(score: float) -> float:
    """The Elo difference that gives this expected pairwise score."""
    score = min(max(score, 1e-9), 1.0 - 1e-9)
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Sprt:
    """The hypotheses (H0: Elo = elo0, H1: Elo = elo1) and the error rates to hold."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05  # accepting H1 when H0 holds
    beta: float = 0.05  # accepting H0 when H1 holds

    def __post_init__(self) -> None:
        if not -MAX_ELO <= self.elo0 < self.elo1 <= MAX_ELO:
            raise BadInput(f"--elo0 {self.elo0:g} --elo1 {self.elo1:g}: expected elo0 < elo1, "
                           f"both from -{MAX_ELO} to {MAX_ELO}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise BadInput(f"--{name} {value:g}: expected a probability between 0 and 0.5")

    @property
    def bounds(self) -> tuple[float, float]:
        """Accept H0 at or below the first, H1 at or above the second (Wald 1945)."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))


@dataclass(frozen=True, slots=True)
class Scores:
    """The running sums of the set scores and of the comparisons behind them: all the test
    and the estimate need."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    wins: float = 0.0  # A's comparisons with B won over every set, ties half
    meetings: int = 0  # A's comparisons with B over every set
    counts: tuple[tuple[float, int], ...] = ()  # how many sets scored each value: the
    # exact LLR needs the scores' distribution; they take few values (k / comparisons)

    def add(self, score: float, *, meetings: int = 1) -> Scores:
        """These scores and one more set, of ``meetings`` comparisons."""
        if not 0.0 <= score <= 1.0:  # NaN too: the LLR of such a set means nothing
            raise ValueError(f"a set score is a share of comparisons won, from 0 to 1, not "
                             f"{score!r}")
        return Scores(self.n + 1, self.total + score, self.squares + score * score,
                      self.wins + score * meetings, self.meetings + meetings,
                      _counted(self.counts, score))

    @property
    def alike(self) -> bool:
        """Every set scored the same (or none was played): there is no spread."""
        return len(self.counts) <= 1

    def moments(self) -> tuple[float, float, float]:
        """Sets, mean and variance, with :data:`PRIOR` pseudo-sets at 0 and at 1 (so a run
        of identical scores still has a variance)."""
        n = self.n + 2 * PRIOR
        mean = (self.total + PRIOR) / n
        return n, mean, max(0.0, (self.squares + PRIOR) / n - mean * mean)


def _counted(counts: tuple[tuple[float, int], ...], score: float
             ) -> tuple[tuple[float, int], ...]:
    """``counts`` with one more set of this score."""
    for i, (value, count) in enumerate(counts):
        if value == score:
            return (*counts[:i], (value, count + 1), *counts[i + 1:])
    return (*counts, (score, 1))


def llr(scores: Scores, test: Sprt) -> float:
    """The generalised log-likelihood ratio of H1 over H0, exact (module docstring), with
    :data:`PRIOR` pseudo-sets at scores 0 and 1."""
    if scores.n == 0:
        return 0.0
    weighted = [*scores.counts, (0.0, PRIOR), (1.0, PRIOR)]
    return _fit(weighted, expected_score(test.elo1)) - \
        _fit(weighted, expected_score(test.elo0))


def llr_normal(scores: Scores, test: Sprt) -> float:
    """Fishtest's normal approximation of :func:`llr` (``LLR_alt2`` times the sets): the
    same near the mean, not for wide bounds; kept to show the difference."""
    n, mean, var = scores.moments()
    if scores.n == 0 or var <= 0:
        return 0.0
    s0, s1 = expected_score(test.elo0), expected_score(test.elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def _fit(weighted: Sequence[tuple[float, float]], s: float) -> float:
    """The log-likelihood of the scores under the distribution on their values with mean
    ``s`` that fits them best, less that of their own frequencies: p_j = w_j / (N (1 +
    l (x_j - s))), l found by Newton's method kept inside the interval where every p_j is
    positive (the score equation falls steadily there)."""
    total = sum(w for _, w in weighted)
    lo = -1.0 / (max(x for x, _ in weighted) - s)
    hi = 1.0 / (s - min(x for x, _ in weighted))
    spread = sum(w * (x - s) ** 2 for x, w in weighted) / total
    lam = min(max((sum(w * x for x, w in weighted) / total - s) / spread, lo / 2), hi / 2)
    for _ in range(100):
        grad = slope = 0.0
        for x, w in weighted:
            share = (x - s) / (1.0 + lam * (x - s))
            grad += w * share
            slope -= w * share * share
        lo, hi = (lam, hi) if grad > 0 else (lo, lam)
        step = lam - grad / slope
        step = step if lo < step < hi else (lo + hi) / 2
        if abs(step - lam) <= 1e-12 * (1.0 + abs(lam)):
            lam = step
            break
        lam = step
    return -sum(w * math.log1p(lam * (x - s)) for x, w in weighted)


def decision(scores: Scores, test: Sprt) -> str | None:
    """"H1", "H0", or None to play on; never before :data:`MIN_SETS` sets."""
    if scores.n < MIN_SETS:
        return None
    value = llr(scores, test)
    lower, upper = test.bounds
    return "H1" if value >= upper else "H0" if value <= lower else None


@dataclass(frozen=True, slots=True)
class EloGap:
    """A's Elo minus B's, as the leaderboard would give it, and the half-width of its 95%
    interval, or why it has none."""

    elo: float
    half: float | None
    why_none: str = ""


def elo_estimate(scores: Scores) -> EloGap:
    """A's Elo over B on the leaderboard's scale: the Bradley-Terry fit of A's comparisons
    with B, with the leaderboard's virtual tie per bot (so a clean sweep stays finite, and
    the leaderboard of these games shows the same gap when B holds the other seats). The
    interval is the leaderboard's kind too: the estimate plus or minus Student's t (sets - 1
    degrees of freedom) times its standard error, here by the delta method from the spread
    of the set scores, with no interval on fewer than MIN_UNITS sets."""
    won, met = scores.wins, float(scores.meetings)
    theta = fit_strengths(np.array([won, met - won]), np.array([[0.0, met], [met, 0.0]]))[0]
    elo = float(ELO_SCALE * (theta[0] - theta[1]))
    if scores.n < MIN_UNITS:
        return EloGap(elo, None, f"fewer than {MIN_UNITS} sets")
    if scores.alike:
        return EloGap(elo, None, f"every set scored {scores.counts[0][0]:.3g}")
    n = scores.n
    var = max(0.0, (scores.squares - scores.total ** 2 / n) / (n - 1))
    s = expected_score(elo)
    half = t_quantile(0.5 + LEVEL / 2, n - 1) * ELO_SCALE * math.sqrt(var / n) / (s * (1 - s))
    return EloGap(elo, half) if half > 0 else EloGap(elo, None, "no spread")


def set_result(games: Sequence[GameRecord], candidate: str, baseline: str, *,
               teams: Teams = None) -> tuple[float, int]:
    """A's points against B's seats over the games of one duplicate set (1 for a lower
    total, 1/2 for an equal one, 0 for a higher one, a forfeited seat behind every other as
    its rank is (COM-6); other seats, and with ``teams`` A's partners, are not compared, as
    on the leaderboard) and the number of those comparisons."""
    points = 0.0
    meetings = 0
    for r in games:
        a_seats = [i for i, s in enumerate(r.seats) if s.bot == candidate]
        b_seats = [i for i, s in enumerate(r.seats) if s.bot == baseline]
        standing = compared_results(r, teams)  # a team whose seat forfeited is behind
        for i in a_seats:
            for j in b_seats:
                if teams is not None and teams[i] == teams[j]:
                    continue
                mine, theirs = standing[i], standing[j]
                points += 1.0 if theirs > mine else 0.5 if theirs == mine else 0.0
                meetings += 1
    if not meetings:
        raise ValueError(f"no game of the set seats both {candidate} and {baseline}")
    return points, meetings


def set_score(games: Sequence[GameRecord], candidate: str, baseline: str, *,
              teams: Teams = None) -> float:
    """A's mean pairwise score against B's seats over the games of one duplicate set."""
    points, meetings = set_result(games, candidate, baseline, teams=teams)
    return points / meetings
