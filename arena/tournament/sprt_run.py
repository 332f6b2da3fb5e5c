"""Is the candidate stronger than the baseline? A sequential test over duplicate sets.

The candidate A and the baseline B play duplicate sets: one shuffled deck dealt once per seat
rotation of the table (A, B, then B again or a named filler in the other seats). A set's
score is A's mean pairwise result against the B seats (a lower total wins, equal totals tie
at a half), so card luck largely cancels inside a set, as in the pentanomial game pairs of
fastchess and fishtest. The generalised SPRT of Van den Bergh tests H0: Elo = elo0 against
H1: Elo = elo1 with the normal approximation of the log-likelihood ratio,

    LLR = n (s1 - s0) (2 mean - s0 - s1) / (2 var),   s = 1 / (1 + 10^(-Elo/400)),

mean and var being the sample mean and variance of the n set scores. The derivation, the
references and the checks of its error rates are in ``docs/statistics.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import BadInput
from arena.records import GameRecord
from arena.tournament.config import Config
from arena.tournament.runner import check_config_bots, play_pairings, settle_seed, writing
from arena.tournament.schedule import Pairing, derive_seed, seating_orders

MIN_SETS = 30  # no decision on fewer sets: the variance estimate is too rough before
PRIOR = 1e-3  # pseudo-sets at scores 0 and 1, as fishtest regularises empty outcomes
MAX_ELO = 1000  # a hypothesis beyond it says one bot never wins: no test needed (or +inf)
Z95 = 1.959963984540054
EXIT_CODES = {"H1": 0, "H0": 1, "inconclusive": 3}


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
    """The running sums of the set scores: all the test needs."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, score: float) -> Scores:
        """These scores and one more set."""
        return Scores(self.n + 1, self.total + score, self.squares + score * score)

    def moments(self) -> tuple[float, float, float]:
        """Sets, mean and variance, with :data:`PRIOR` pseudo-sets at 0 and at 1 (so a run
        of identical scores still has a variance)."""
        n = self.n + 2 * PRIOR
        mean = (self.total + PRIOR) / n
        return n, mean, max(0.0, (self.squares + PRIOR) / n - mean * mean)


def llr(scores: Scores, test: Sprt) -> float:
    """The normal approximation of the generalised log-likelihood ratio of H1 over H0."""
    n, mean, var = scores.moments()
    if scores.n == 0 or var <= 0:
        return 0.0
    s0, s1 = expected_score(test.elo0), expected_score(test.elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def decision(scores: Scores, test: Sprt) -> str | None:
    """"H1", "H0", or None to play on; never before :data:`MIN_SETS` sets."""
    if scores.n < MIN_SETS:
        return None
    value = llr(scores, test)
    lower, upper = test.bounds
    return "H1" if value >= upper else "H0" if value <= lower else None


def elo_estimate(scores: Scores) -> tuple[float, float, float]:
    """A's Elo over B from the mean set score, with a 95% interval (normal, by the delta
    of the sample mean, mapped through :func:`elo_of`)."""
    n, mean, var = scores.moments()
    half = Z95 * math.sqrt(var / n) if n else 0.0
    return elo_of(mean), elo_of(mean - half), elo_of(mean + half)


def set_score(games: Sequence[GameRecord], candidate: str, baseline: str) -> float:
    """A's mean pairwise score against B's seats over the games of one duplicate set: 1 for
    a lower total, 1/2 for an equal one, 0 for a higher one; other seats are not compared."""
    points = 0.0
    meetings = 0
    for r in games:
        a_seats = [i for i, s in enumerate(r.seats) if s.bot == candidate]
        b_seats = [i for i, s in enumerate(r.seats) if s.bot == baseline]
        for i in a_seats:
            for j in b_seats:
                diff = r.totals[j] - r.totals[i]
                points += 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
                meetings += 1
    if not meetings:
        raise ValueError(f"no game of the set seats both {candidate} and {baseline}")
    return points / meetings


def sprt_pairings(candidate: str, baseline: str, *, players: int, seed: int,
                  sets: range, filler: str | None = None) -> list[Pairing]:
    """The games of duplicate sets ``sets``: one deck per set, dealt once per seat rotation
    of the table; set s seats the table in cyclic order s mod (number of orders)."""
    table = (candidate, baseline, *[filler or baseline] * (players - 2))
    orders = list(dict.fromkeys(seating_orders(table)))
    out = []
    for s in sets:
        order = orders[s % len(orders)]
        deck = derive_seed(seed, "sprt", s)
        out += [Pairing(id=f"s{s:06d}-g{g}", table=0, seats=order[g:] + order[:g], seed=deck,
                        dup_set=f"s{s:06d}") for g in range(players)]
    return out


# ----------------------------------------------------------------------- playing it


@dataclass(frozen=True, slots=True)
class Verdict:
    """How a test ended: "H1" (A is stronger), "H0" (it is not) or "inconclusive"."""

    result: str
    scores: Scores
    games: int

    @property
    def exit_code(self) -> int:
        """0: H1, 1: H0, 3: inconclusive at the game limit."""
        return EXIT_CODES[self.result]


def run_sprt(config: Config, test: Sprt, *, candidate: str, baseline: str,
             filler: str | None = None, max_games: int | None = None,
             report: Callable[[str], None] = print) -> Verdict:
    """Play duplicate sets in parallel batches until the LLR leaves its bounds (or the game
    limit is reached); the games go to ``<output>/<name>-sprt/games.jsonl``."""
    k = _check(config, candidate, baseline, filler, max_games)
    check_config_bots(config, {candidate, baseline, filler or baseline})
    if config.seed is None:  # random, as in a tournament: bots must not guess the deals
        config = settle_seed(config, None)
    folder = config.output / f"{config.name}-sprt"
    with writing(folder):
        return _run_sprt(config, test, folder=folder, candidate=candidate, baseline=baseline,
                         filler=filler, max_games=max_games, report=report, seats=k)


def _run_sprt(config: Config, test: Sprt, *, folder: Path, candidate: str, baseline: str,
              filler: str | None, max_games: int | None, report: Callable[[str], None],
              seats: int) -> Verdict:
    """The SPRT proper, with the folder's lock held."""
    k = seats
    lower, upper = test.bounds
    report(f"sprt {candidate} vs {baseline} at {k}-seat tables"
           f"{f' (other seats: {filler or baseline})' if k > 2 else ''}: elo0 {test.elo0:g}, "
           f"elo1 {test.elo1:g}, alpha {test.alpha:g}, beta {test.beta:g}, "
           f"LLR bounds [{lower:.2f}, {upper:.2f}], seed {config.seed}")
    scores = Scores()
    result = None
    with (folder / "games.jsonl").open("w", encoding="utf-8") as out:
        for games in _batches(config, candidate, baseline, filler, max_games, folder):
            for group in (games[i:i + k] for i in range(0, len(games), k)):
                out.writelines(r.to_json() + "\n" for r in group)
                scores = scores.add(set_score(group, candidate, baseline))
                result = decision(scores, test)
                if result:
                    break
            out.flush()
            report(_progress(scores, test, k))
            if result:
                break
    verdict = Verdict(result or "inconclusive", scores, scores.n * k)
    report(_conclusion(verdict, test, candidate, baseline))
    return verdict


def _check(config: Config, candidate: str, baseline: str, filler: str | None,
           max_games: int | None) -> int:
    names = [b.name for b in config.bots]
    for option, name in (("candidate", candidate), ("baseline", baseline), ("filler", filler)):
        if name is not None and name not in names:
            raise BadInput(f"--{option} {name!r}: expected one of the config's bots: "
                           f"{', '.join(names)}")
    if candidate == baseline:
        raise BadInput(f"--candidate and --baseline are both {candidate!r}: expected two bots")
    k = config.players
    if max_games is not None and max_games < k:
        raise BadInput(f"--max-games {max_games}: expected at least one duplicate set "
                       f"({k} games at {k}-seat tables)")
    return k


def _batches(config: Config, candidate: str, baseline: str, filler: str | None,
             max_games: int | None, folder: Path) -> Iterator[list[GameRecord]]:
    """Batches of whole sets, enough to keep every worker busy; records in set order."""
    k = config.players
    per_batch = max(4, 4 * config.workers)
    limit = None if max_games is None else max_games // k
    start = 0
    while limit is None or start < limit:
        count = per_batch if limit is None else min(per_batch, limit - start)
        assert config.seed is not None  # settled by run_sprt
        pairings = sprt_pairings(candidate, baseline, players=k, seed=config.seed,
                                 sets=range(start, start + count), filler=filler)
        yield play_pairings(config, pairings, logs=folder / "logs")
        start += count


def _progress(scores: Scores, test: Sprt, k: int) -> str:
    lower, upper = test.bounds
    elo, low, high = elo_estimate(scores)
    return (f"games {scores.n * k:>6}  sets {scores.n:>5}  LLR {llr(scores, test):+6.2f} "
            f"[{lower:+.2f}, {upper:+.2f}]  Elo {elo:+6.1f} [{low:+.1f}, {high:+.1f}]")


def _conclusion(verdict: Verdict, test: Sprt, candidate: str, baseline: str) -> str:
    elo, low, high = elo_estimate(verdict.scores)
    estimate = f"Elo {elo:+.1f} [{low:+.1f}, {high:+.1f}] after {verdict.games} games"
    if verdict.result == "H1":
        return f"H1 accepted: {candidate} is stronger than {baseline} ({estimate})"
    if verdict.result == "H0":
        return (f"H0 accepted: {candidate} is not stronger than {baseline}: Elo {test.elo0:g} "
                f"is likelier than {test.elo1:g} ({estimate})")
    return f"inconclusive at the game limit ({estimate})"
