"""The SPRT: its formulas, the set score, the pairings, error rates on simulated sets drawn
from known strengths, and `arena sprt` on real games."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
import numpy as np
import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.engine.results import GameEnd, RoundEnd
from arena.errors import BadInput
from arena.ratings.bradley_terry import ELO_SCALE, rate, t_quantile
from arena.ratings.sprt import (
    MIN_SETS,
    Scores,
    Sprt,
    decision,
    elo_estimate,
    elo_of,
    expected_score,
    llr,
    llr_normal,
    set_result,
    set_score,
)
from arena.records import GameRecord, RoundRecord, SeatRecord
from arena.tournament.sprt_run import _gap, sprt_pairings

runner = CliRunner()


def one_round(totals: Sequence[float]) -> tuple[RoundRecord, ...]:
    """The round whose penalties are the totals: a record's totals are its rounds' sums."""
    return (RoundRecord(round=1, dealer=0, reason=RoundEnd.DECLARATION,
                        penalties=tuple(int(t) for t in totals)),)


def record(bots: list[str], totals: list[int], gid: str = "g", dup_set: str = "") -> GameRecord:
    seats = tuple(SeatRecord(bot=b, faults={}, decisions=1, time_mean_ms=0.0, time_p95_ms=0.0,
                             time_max_ms=0.0) for b in bots)
    ranks = tuple(1 + sum(o < t for o in totals) for t in totals)
    return GameRecord(schema=1, id=gid, variant="indian13/v1", options={}, seed=1, seats=seats,
                      actions=(), rounds=one_round(totals), totals=tuple(totals), ranks=ranks,
                      termination=GameEnd.NORMAL, dup_set=dup_set)


# ---------------------------------------------------------------- formulas


def test_elo_and_expected_score_are_inverse() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    for elo in (-300.0, -10.0, 0.0, 5.0, 250.0):
        assert elo_of(expected_score(elo)) == pytest.approx(elo)
    # the same logistic as the leaderboard's Bradley-Terry scale
    assert expected_score(100) == pytest.approx(1 / (1 + math.exp(-100 / ELO_SCALE)))


def test_bounds_are_walds() -> None:
    lower, upper = Sprt(alpha=0.05, beta=0.05).bounds
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    lower, upper = Sprt(alpha=0.05, beta=0.1).bounds
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))


@pytest.mark.parametrize(("kw", "message"), [({"elo0": 5, "elo1": 5}, "elo0 < elo1"),
                                             ({"elo1": math.inf}, "from -1000 to 1000"),
                                             ({"elo0": -5000}, "from -1000 to 1000"),
                                             ({"alpha": 0}, "--alpha 0"),
                                             ({"beta": 0.7}, "--beta 0.7")])
def test_bad_hypotheses_are_bad_input(kw: dict[str, float], message: str) -> None:
    with pytest.raises(BadInput, match=message):
        Sprt(**kw)


def _scores(counts: dict[float, int]) -> Scores:
    scores = Scores()
    for value, count in counts.items():
        for _ in range(count):
            scores = scores.add(value)
    return scores


def test_llr_near_the_mean_is_the_normal_approximation_of_fishtest() -> None:
    """For 2-seat sets the set score is the pentanomial pair score; at narrow bounds the
    exact GSPRT is close to LLR_alt2 of fishtest's LLRcalc.py, N (s1 - s0) (2 mu - s0 - s1)
    / (2 var) over the pairs."""
    counts = {0.0: 30, 0.25: 120, 0.5: 400, 0.75: 170, 1.0: 40}
    scores = _scores(counts)
    n = sum(counts.values())
    mu = sum(v * c for v, c in counts.items()) / n
    var = sum(c * (v - mu) ** 2 for v, c in counts.items()) / n
    s0, s1 = expected_score(0), expected_score(10)
    fishtest = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert llr_normal(scores, Sprt(elo0=0, elo1=10)) == pytest.approx(fishtest, rel=1e-4)
    assert llr(scores, Sprt(elo0=0, elo1=10)) == pytest.approx(fishtest, rel=0.02)


@pytest.mark.parametrize(("wins", "losses", "elo0", "elo1"),
                         [(40, 20, 0, 100), (70, 30, 50, 450), (12, 48, -200, 200)])
def test_llr_of_wins_and_losses_alone_is_wald_s_binomial_sprt(wins: int, losses: int,
                                                              elo0: float, elo1: float) -> None:
    """With set scores 0 and 1 alone the best distribution of a given mean is the
    Bernoulli one: the LLR is Wald's, W log(s1/s0) + L log((1-s1)/(1-s0)), at any bounds."""
    scores = _scores({1.0: wins, 0.0: losses})
    s0, s1 = expected_score(elo0), expected_score(elo1)
    wald = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr(scores, Sprt(elo0=elo0, elo1=elo1)) == pytest.approx(wald, rel=1e-3, abs=1e-3)


def test_wide_bounds_get_no_verdict_the_scores_do_not_give() -> None:
    """At --elo0 50 --elo1 450 a mean set score of 0.78 (about +223 Elo, nearer 50 than
    450) had the normal approximation accept H1 (+8.6 here; +5.8 in a probe's run at +229);
    the exact GSPRT finds no such evidence."""
    scores = _scores({0.5: 8, 0.75: 10, 1.0: 12})  # mean 0.783
    test = Sprt(elo0=50, elo1=450)
    assert llr_normal(scores, test) > test.bounds[1]  # what the approximation said
    assert test.bounds[0] < llr(scores, test) < test.bounds[1]
    assert decision(scores, test) is None


@pytest.mark.parametrize("score", [2.0, -1.0, math.nan])
def test_a_set_score_outside_0_to_1_is_refused(score: float) -> None:
    with pytest.raises(ValueError, match="from 0 to 1"):
        Scores().add(score)


def test_identical_scores_still_decide() -> None:
    """A candidate that wins every comparison has no sample variance; the small prior keeps
    the LLR finite, and the test decides where Wald's Bernoulli SPRT would: a sweep tells
    0 Elo from 10 only after log(19) / log(s1 / s0) sets, not at once."""
    s0, s1 = expected_score(0), expected_score(10)
    needed = math.ceil(math.log(19) / math.log(s1 / s0))  # 104
    scores = _scores({1.0: needed - 1})
    assert decision(scores, Sprt()) is None
    assert decision(scores.add(1.0), Sprt()) == "H1"
    losing = _scores({0.0: math.ceil(math.log(1 / 19) / math.log((1 - s1) / (1 - s0)))})
    assert decision(losing, Sprt()) == "H0"
    few = _scores({1.0: MIN_SETS - 1})
    assert decision(few, Sprt(elo0=0, elo1=400)) is None  # not before MIN_SETS sets
    assert decision(few.add(1.0), Sprt(elo0=0, elo1=400)) == "H1"


def test_elo_estimate_is_the_bradley_terry_gap_with_a_t_interval() -> None:
    """The gap of the two-bot fit (its virtual ties barely move it on 480 comparisons), and
    the estimate plus or minus t(n - 1) times its delta-method standard error."""
    values = [0.5, 0.75, 0.25, 1.0, 0.5, 0.75] * 20
    scores = Scores()
    for value in values:
        scores = scores.add(value, meetings=4)
    gap = elo_estimate(scores)
    mean = float(np.mean(values))
    assert gap.elo == pytest.approx(elo_of(mean), abs=3.0)
    assert gap.elo == pytest.approx(ELO_SCALE * math.log(
        fit_two(scores.wins, scores.meetings)), abs=1e-6)
    s = expected_score(gap.elo)
    se = ELO_SCALE * float(np.std(values, ddof=1)) / math.sqrt(len(values)) / (s * (1 - s))
    assert gap.half == pytest.approx(t_quantile(0.975, len(values) - 1) * se)


def fit_two(won: float, met: int) -> float:
    """The odds of A over B maximising the likelihood with one virtual tie per bot against
    a fixed opponent of strength 1, by bisection on the score equation of each bot."""
    lo, hi = 1e-6, 1e6
    for _ in range(200):  # A's strength a and B's 1/a by symmetry: solve for a
        a = math.sqrt(lo * hi)
        grad = won + 0.5 - met * a * a / (a * a + 1) - a / (a + 1)
        lo, hi = (a, hi) if grad > 0 else (lo, a)
    return a * a


def test_no_interval_of_zero_width() -> None:
    """Every set alike (a sweep, or identical bots mirroring each other on a duplicate deal)
    gives no interval rather than one of no width; nor do fewer than MIN_UNITS sets."""
    for value in (1.0, 0.5, 0.0):
        scores = Scores()
        for _ in range(40):
            scores = scores.add(value, meetings=2)
        gap = elo_estimate(scores)
        assert gap.half is None and gap.why_none == f"every set scored {value:g}"
        assert math.isfinite(gap.elo) and (gap.elo > 0) == (value > 0.5)
    few = Scores().add(0.25).add(0.75)
    assert elo_estimate(few).half is None and "fewer than" in elo_estimate(few).why_none
    nearly = Scores()
    for _ in range(100_000):
        nearly = nearly.add(0.5, meetings=2)
    nearly = nearly.add(0.75, meetings=2)
    text = _gap(elo_estimate(nearly))
    half = text.split("± ")[1]
    assert float(half) > 0, text  # printed with the digits it needs


def test_the_estimate_agrees_with_the_leaderboard_of_the_same_games() -> None:
    """With B in every other seat, the leaderboard of the SPRT's games rates A and B from the
    same comparisons: the same gap, and an interval of about the same width (bootstrap of
    the sets there, delta method here)."""
    rng = np.random.default_rng(5)
    records = []
    scores = Scores()
    for s in range(200):
        seats = [["A", "B", "B"][g:] + ["A", "B", "B"][:g] for g in range(3)]
        luck = rng.normal(0, 80, size=3)
        games = []
        for g, names in enumerate(seats):
            totals = [round(-(60.0 if b == "A" else 0.0) + luck[i] + ELO_SCALE * rng.gumbel())
                      for i, b in enumerate(names)]
            games.append(record(names, totals, f"s{s}-g{g}", dup_set=f"s{s}"))
        records += games
        points, meetings = set_result(games, "A", "B")
        scores = scores.add(points / meetings, meetings=meetings)
    rated = rate(records)
    a, b = rated.names.index("A"), rated.names.index("B")
    gap = elo_estimate(scores)
    assert gap.elo == pytest.approx(rated.elo.value[a] - rated.elo.value[b], abs=1e-6)
    board_half = rated.elo.high[a] - rated.elo.value[a]  # A's rating is the mean + gap / 2
    assert gap.half is not None
    assert gap.half / 2 == pytest.approx(board_half, rel=0.2)


def test_r51_teams_the_candidate_s_partner_is_not_compared_and_the_gap_is_the_leaderboard_s(
        ) -> None:
    """R51-1 (teams): A's partner shares A's total, so counting it as a tie pulled every set
    score towards 1/2 (+70 Elo where the leaderboard said +108). Partners are not compared,
    as on the leaderboard, which then shows the same gap."""
    teams = (0, 1, 0, 1)
    assert set_score([record(["A", "B", "B", "B"], [0, 10, 0, 10])], "A", "B",
                     teams=teams) == 1.0
    rng = np.random.default_rng(8)
    records = []
    scores = Scores()
    for s in range(120):
        games = []
        for g in range(4):
            names = ["A", "B", "B", "B"][g:] + ["A", "B", "B", "B"][:g]
            side = [-(60.0 if "A" in (names[t], names[t + 2]) else 0.0)
                    + ELO_SCALE * rng.gumbel() for t in (0, 1)]
            totals = [round(side[i % 2]) for i in range(4)]
            games.append(record(names, totals, f"s{s}-g{g}", dup_set=f"s{s}"))
        records += games
        points, meetings = set_result(games, "A", "B", teams=teams)
        assert meetings == 8  # A against the two opponents, in each of 4 games
        scores = scores.add(points / meetings, meetings=meetings)
    rated = rate(records, teams=teams)
    a, b = rated.names.index("A"), rated.names.index("B")
    assert elo_estimate(scores).elo == pytest.approx(rated.elo.value[a] - rated.elo.value[b],
                                                     abs=1e-6)


def test_r51_teams_pairings_seat_the_baseline_against_the_candidate() -> None:
    """R51-1 (teams): with a filler, an order that made A and B partners gave sets with no
    comparison at all; only orders where B sits against A are played."""
    pairings = sprt_pairings("A", "B", players=4, seed=3, sets=range(12), filler="F",
                             teams=(0, 1, 0, 1))
    for p in pairings:
        a, b = p.seats.index("A"), p.seats.index("B")
        assert (a - b) % 2 == 1, p.seats
    assert len({p.seats for p in pairings}) == 8  # two orders, each in its 4 rotations


# ---------------------------------------------------------------- set score and pairings


def test_set_score_counts_a_against_each_b_seat() -> None:
    games = [record(["A", "B", "B"], [0, 10, 10]),  # beats both: 2
             record(["B", "A", "B"], [5, 5, 0]),  # ties one, loses one: 0.5
             record(["B", "B", "A"], [3, 9, 4])]  # loses one, beats one: 1
    assert set_score(games, "A", "B") == pytest.approx(3.5 / 6)
    with_filler = [record(["A", "B", "F"], [10, 20, 0]), record(["F", "A", "B"], [0, 30, 20])]
    assert set_score(with_filler, "A", "B") == 0.5  # the filler is never compared
    with pytest.raises(ValueError, match="no game of the set"):
        set_score([record(["A", "F"], [0, 1])], "A", "B")


def test_pairings_deal_one_deck_per_set_in_every_rotation() -> None:
    pairings = sprt_pairings("A", "B", players=4, seed=3, sets=range(5, 8), filler="F")
    assert len(pairings) == 12
    for s in range(5, 8):
        games = [p for p in pairings if p.dup_set == f"s{s:06d}"]
        assert len({p.seed for p in games}) == 1
        assert [p.id for p in games] == [f"s{s:06d}-g{g}" for g in range(4)]
        assert sorted(p.seats.index("A") for p in games) == [0, 1, 2, 3]  # every seat once
        assert all(sorted(p.seats) == ["A", "B", "F", "F"] for p in games)
    orders = {p.dup_set: p.seats for p in pairings if p.id.endswith("g0")}
    assert len(set(orders.values())) == 3  # the cyclic seating orders take turns
    assert sprt_pairings("A", "B", players=4, seed=3, sets=range(6, 7), filler="F") == \
        pairings[4:8]  # a set's games do not depend on the batch it is in
    defaults = sprt_pairings("A", "B", players=3, seed=3, sets=range(1))
    assert all(sorted(p.seats) == ["A", "B", "B"] for p in defaults)


# ---------------------------------------------------------------- simulation


def simulated_sets(rng: np.random.Generator, elo: float, *, seats: int, sets: int,
                   luck: float = 0.0) -> np.ndarray:
    """Set scores of A (Elo ``elo``) against B (Elo 0) holding every other seat: totals are
    -Elo + Gumbel noise of scale 400 / ln 10 (Plackett-Luce, so each pair is Bradley-Terry
    with exactly that Elo), plus, with ``luck``, a deal effect per seat position shared by
    the set's rotations (which keeps E[score] = 1/2 at elo 0 by symmetry)."""
    strength = np.zeros(seats)
    strength[0] = elo
    deal = rng.normal(0, luck, size=(sets, 1, seats)) if luck else np.zeros((sets, 1, seats))
    position = (np.arange(seats)[None, :] - np.arange(seats)[:, None]) % seats  # [game, bot]
    totals = -strength + ELO_SCALE * rng.gumbel(size=(sets, seats, seats)) + \
        np.take_along_axis(np.broadcast_to(deal, (sets, seats, seats)),
                           np.broadcast_to(position, (sets, seats, seats)), axis=2)
    a, b = totals[:, :, :1], totals[:, :, 1:]
    result: np.ndarray = ((a < b) + 0.5 * (a == b)).mean(axis=(1, 2))
    return result


def test_simulated_scores_follow_the_set_score_definition() -> None:
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    scores = simulated_sets(rng, 30.0, seats=3, sets=1)
    rng.bit_generator.state = state
    totals = -np.array([30.0, 0, 0]) + ELO_SCALE * rng.gumbel(size=(1, 3, 3))
    games = [record(["A", "B", "B"][g:] + ["A", "B", "B"][:g],
                    list(np.roll(totals[0, g], -g)), f"g{g}") for g in range(3)]
    assert scores[0] == pytest.approx(set_score(games, "A", "B"))


def run_tests(make: Callable[[np.random.Generator, int], np.ndarray], test: Sprt, *,
              runs: int, seed: int, limit: int = 20_000) -> dict[str, float]:
    """Share of runs ending in each verdict; each run uses the library's decision."""
    rng = np.random.default_rng(seed)
    ends = {"H0": 0, "H1": 0, "inconclusive": 0}
    sets = []
    for _ in range(runs):
        scores, verdict = Scores(), None
        while verdict is None and scores.n < limit:
            for value in make(rng, 256).tolist():
                scores = scores.add(value)
                verdict = decision(scores, test)
                if verdict:
                    break
        ends[verdict or "inconclusive"] += 1
        sets.append(scores.n)
    return {**{k: v / runs for k, v in ends.items()}, "sets": float(np.mean(sets))}


TOLERANCE = 0.025  # about 3.5 standard errors of a rate near 0.05 over 1000 runs


@pytest.mark.parametrize(("seats", "elo1", "luck"), [(2, 40.0, 0.0), (4, 20.0, 150.0)])
def test_false_acceptance_is_at_most_alpha(seats: int, elo1: float, luck: float) -> None:
    test = Sprt(elo0=0, elo1=elo1, alpha=0.05, beta=0.05)
    rates = run_tests(lambda rng, n: simulated_sets(rng, 0.0, seats=seats, sets=n, luck=luck),
                      test, runs=1000, seed=seats)
    assert rates["H1"] <= test.alpha + TOLERANCE, rates
    assert rates["inconclusive"] == 0


@pytest.mark.parametrize(("seats", "elo1"), [(2, 40.0), (4, 20.0)])
def test_power_at_elo1_is_as_designed(seats: int, elo1: float) -> None:
    test = Sprt(elo0=0, elo1=elo1, alpha=0.05, beta=0.05)
    rates = run_tests(lambda rng, n: simulated_sets(rng, elo1, seats=seats, sets=n),
                      test, runs=1000, seed=10 + seats)
    assert rates["H1"] >= 1 - test.beta - TOLERANCE, rates


@pytest.mark.slow
@pytest.mark.parametrize("seats", [2, 3, 6])
def test_error_rates_at_a_small_elo_gap(seats: int) -> None:
    test = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    h0 = run_tests(lambda rng, n: simulated_sets(rng, 0.0, seats=seats, sets=n, luck=100.0),
                   test, runs=1000, seed=20 + seats)
    h1 = run_tests(lambda rng, n: simulated_sets(rng, 10.0, seats=seats, sets=n),
                   test, runs=1000, seed=30 + seats)
    assert h0["H1"] <= test.alpha + TOLERANCE, h0
    assert h1["H1"] >= 1 - test.beta - TOLERANCE, h1


# ---------------------------------------------------------------- arena sprt


def config(tmp_path: Path, *, workers: int = 1, more_bots: str = "") -> Path:
    path = tmp_path / "sprt.yaml"
    path.write_text(f"""\
name: duel
variant: indian13
isolation: inprocess
options: {{players: 2}}
bots:
  - {{name: greedy, module: "bots.greedy:GreedyBot"}}
  - {{name: random, module: "bots.random_bot:RandomBot"}}
  - {{name: random-2, module: "bots.random_bot:RandomBot"}}
{more_bots}workers: {workers}
seed: 4
output: {tmp_path / "out"}
""", encoding="utf-8")
    return path


def test_cli_accepts_h1_for_a_clearly_stronger_bot(tmp_path: Path) -> None:
    result = runner.invoke(app, ["sprt", str(config(tmp_path)), "--candidate", "greedy",
                                 "--baseline", "random", "--elo1", "50"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("sprt greedy vs random at 2-seat tables")
    assert lines[1].startswith("Elo: greedy's minus random's on the leaderboard's")
    assert "LLR" in lines[2] and "[-2.94, +2.94]" in lines[2]
    # an LLR past a bound decides nothing before MIN_SETS sets, and the line says so
    early = [line for line in lines if line.startswith("games")][:-1]
    assert early and all(line.endswith(f"  (no verdict before {MIN_SETS} sets)")
                         for line in early)
    assert "no verdict" not in lines[-2]
    assert lines[-1].startswith("H1 accepted: greedy is stronger than random; after 60 games, "
                                "Elo greedy - random +")
    assert not any("± 0.0" in line or "[+3600" in line for line in lines)
    games = (tmp_path / "out" / "duel-sprt" / "games.jsonl").read_text("utf-8").splitlines()
    assert len(games) == 2 * MIN_SETS  # decided at the first set allowed
    assert {json.loads(g)["dup_set"] for g in games[:2]} == {"s000000"}


def test_cli_accepts_h0_for_a_weaker_bot(tmp_path: Path) -> None:
    result = runner.invoke(app, ["sprt", str(config(tmp_path)), "--candidate", "random",
                                 "--baseline", "greedy", "--elo1", "50"])
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[-1].startswith("H0 accepted")
    log = (tmp_path / "out" / "duel-sprt" / "arena.log").read_text("utf-8")  # its end, and
    assert log.rstrip().endswith("a fault logged above for a game not in games.jsonl is "
                                 "not counted")  # that a stopped batch's faults are not
    assert "sprt random vs greedy: H0 accepted" in log


def test_cli_is_inconclusive_at_the_game_limit_and_same_at_any_worker_count(
        tmp_path: Path) -> None:
    outputs = []
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        result = runner.invoke(app, ["sprt", str(config(folder, workers=workers)),
                                     "--candidate", "random", "--baseline", "random-2",
                                     "--max-games", "7"])
        assert result.exit_code == 3, result.output
        assert result.stdout.splitlines()[-1].startswith("inconclusive at the game limit")
        assert result.stderr.splitlines() == [  # said at the start, not only at the end
            "arena: warning: --max-games 7 plays 6 games: the test plays whole duplicate "
            "sets of 2",
            "arena: warning: --max-games 7 allows 3 sets, and no verdict is taken before 30 "
            "(60 games): this test can only end inconclusive"]
        games = (folder / "out" / "duel-sprt" / "games.jsonl").read_text("utf-8")
        outputs.append([(r["id"], r["totals"]) for r in map(json.loads, games.splitlines())])
    assert len(outputs[0]) == 6  # whole sets only
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(("args", "message"), [
    (["--candidate", "nobody", "--baseline", "random"], "--candidate 'nobody'"),
    (["--candidate", "greedy", "--baseline", "greedy"], "both 'greedy'"),
    (["--candidate", "greedy", "--baseline", "random", "--filler", "x"], "--filler 'x'"),
    (["--candidate", "greedy", "--baseline", "random", "--max-games", "1"], "--max-games 1"),
    (["--candidate", "greedy", "--baseline", "random", "--elo0", "5", "--elo1", "5"],
     "elo0 < elo1"),
])
def test_cli_bad_input_exits_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["sprt", str(config(tmp_path)), *args])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("arena: error: ") and message in result.output


def test_cli_resumes_a_stopped_test_and_refuses_one_with_other_settings(
        tmp_path: Path) -> None:
    """A stopped test could only start over (--fresh), its games lost to it; now the same
    command plays on from its last whole set, to the games one uninterrupted run plays. A
    test of other settings is refused, naming what changed; --fresh replaces its games, and
    --seed sets the test's seed, as in arena run."""
    args = ["sprt", str(config(tmp_path)), "--candidate", "random", "--baseline", "random-2"]
    first = runner.invoke(app, [*args, "--max-games", "4"])
    assert first.exit_code == 3, first.output
    games = tmp_path / "out" / "duel-sprt" / "games.jsonl"
    more = runner.invoke(app, [*args, "--max-games", "8"])
    assert more.exit_code == 3, more.output
    assert "resumed: 4 games (2 sets) of this test played before" in more.stdout.splitlines()
    less = runner.invoke(app, [*args, "--max-games", "2"])  # the cap is passed already
    assert less.exit_code == 3, less.output
    assert "arena: warning: --max-games 2: the 8 games played before reach it already: no " \
        "game is played now" in less.stderr.splitlines(), less.stderr
    odd = runner.invoke(app, [*args, "--max-games", "9"])  # 8 in whole sets: reached too,
    assert odd.exit_code == 3, odd.output  # not warned of as a test about to start
    assert "arena: warning: --max-games 9: the 8 games played before reach it already: no " \
        "game is played now" in odd.stderr.splitlines(), odd.stderr
    whole = tmp_path / "whole"
    whole.mkdir()
    once = runner.invoke(app, ["sprt", str(config(whole)), "--candidate", "random",
                               "--baseline", "random-2", "--max-games", "8"])
    assert once.exit_code == 3, once.output
    def played(path: Path) -> list[tuple[str, int, str, list[int]]]:
        return [(r["id"], r["seed"], r["actions"], r["totals"])
                for r in map(json.loads, path.read_text("utf-8").splitlines())]
    assert played(games) == played(whole / "out" / "duel-sprt" / "games.jsonl")
    before = games.read_bytes()
    other = runner.invoke(app, [*args, "--max-games", "8", "--elo1", "20"])
    assert other.exit_code == 2, other.output
    assert other.stderr == (f"arena: error: {games} holds 8 games of a test with other "
                            "settings (changed: elo1 10.0 before, 20.0 now): run that test's "
                            "command to resume it, or add --fresh to start a new test in "
                            "their place\n")
    assert games.read_bytes() == before
    (games.parent / "report.html").write_text("the test before", "utf-8")
    with (games.parent / "arena.log").open("a", encoding="utf-8") as log:
        log.write("a line of the test before\n")
    fresh = runner.invoke(app, [*args, "--max-games", "4", "--fresh", "--seed", "77"])
    assert fresh.exit_code == 3, fresh.output
    assert fresh.stdout.splitlines()[0].endswith(", seed 77")
    assert games.read_bytes() != before and games.read_bytes().count(b"\n") == 4
    assert not (games.parent / "report.html").exists()  # it told of the test replaced, as
    assert "the test before" not in (games.parent / "arena.log").read_text("utf-8")  # did
    from arena.report.summary import tournament  # the report names the test, its bots
    shown = tournament(games.parent, [])
    assert shown.format == "SPRT of random against random-2: elo0 0, elo1 10, alpha 0.05, " \
        "beta 0.05"
    assert [(b.name, b.runs) for b in shown.bots] == [
        ("random", "bots.random_bot:RandomBot"), ("random-2", "bots.random_bot:RandomBot")]


def test_cli_refuses_games_of_a_test_whose_settings_were_not_kept(tmp_path: Path) -> None:
    """A folder from before the settings were kept beside the games (or games put there by
    hand) is not resumed on trust."""
    args = ["sprt", str(config(tmp_path)), "--candidate", "random", "--baseline", "random-2",
            "--max-games", "4"]
    assert runner.invoke(app, args).exit_code == 3
    folder = tmp_path / "out" / "duel-sprt"
    (folder / "config.yaml").unlink()
    again = runner.invoke(app, args)
    assert again.exit_code == 2, again.output
    assert again.stderr == (f"arena: error: {folder / 'games.jsonl'} holds 4 games of an "
                            "earlier test whose settings were not kept: add --fresh to start "
                            "a new test in their place, or move them away first\n")


def test_cli_refuses_a_kept_game_the_test_would_not_have_played(tmp_path: Path) -> None:
    """A game of the right id but other bots (copied from another test, or edited) was
    scored on resume as this test's."""
    args = ["sprt", str(config(tmp_path)), "--candidate", "random", "--baseline", "random-2",
            "--max-games", "4"]
    assert runner.invoke(app, args).exit_code == 3
    games = tmp_path / "out" / "duel-sprt" / "games.jsonl"
    lines = games.read_text("utf-8").splitlines(keepends=True)
    games.write_text(lines[0].replace('"bot":"random-2"', '"bot":"greedy"') + "".join(lines[1:]),
                     "utf-8")
    again = runner.invoke(app, [*args[:-1], "8"])
    assert again.exit_code == 2, again.output
    assert again.stderr.startswith(f"arena: error: {games}:1: game 's000000-g0' is not as this "
                                   "tournament plays it (its bots: "), again.stderr


def test_cli_logs_the_faults_details_in_the_tests_folder(tmp_path: Path) -> None:
    """An SPRT kept its games but no arena.log: a faulty bot's faults were counted, and
    what they were was lost."""
    path = config(tmp_path)
    bot = Path(__file__).parents[1] / "bots" / "faulty_bots.py"
    path.write_text(path.read_text("utf-8").replace(
        '"bots.random_bot:RandomBot"}', f'"{bot}:IllegalPlay"}}', 1), "utf-8")
    result = runner.invoke(app, ["sprt", str(path), "--candidate", "greedy", "--baseline",
                                 "random", "--max-games", "4"])
    assert result.exit_code == 3, result.output
    log = (tmp_path / "out" / "duel-sprt" / "arena.log").read_text("utf-8")
    assert "(random) illegal" in log, log[-2000:]


def test_a_verdict_at_other_bounds_says_the_gaps_weighed_not_stronger(tmp_path: Path) -> None:
    """With elo0 -300 and elo1 -200, H1 said "greedy is stronger than random" for any
    candidate, one measured 100 Elo weaker too; the line now names the two gaps."""
    result = runner.invoke(app, ["sprt", str(config(tmp_path)), "--candidate", "greedy",
                                 "--baseline", "random", "--elo0", "-300", "--elo1", "-200"])
    assert result.exit_code == 0, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith("H1 accepted: Elo -200 is likelier than -300 for greedy - random; "
                           "after 60 games")
    assert "stronger" not in last


def test_a_broken_candidate_is_named_beside_the_verdict(tmp_path: Path) -> None:
    """A candidate raising in every play lost to H0 as a weak bot; arena run said it was broken."""
    path = config(tmp_path)
    bots = Path(__file__).parents[1] / "bots" / "faulty_bots.py"
    path.write_text(path.read_text("utf-8").replace(
        'random-2, module: "bots.random_bot:RandomBot"',
        f'raiser, module: "{bots}:Raiser"'), encoding="utf-8")
    result = runner.invoke(app, ["sprt", str(path), "--candidate", "raiser", "--baseline",
                                 "random", "--elo1", "50", "--max-games", "60"])
    assert result.exit_code in (1, 3), result.output
    warning = next(line for line in result.output.splitlines()
                   if line.startswith("arena: warning: bot 'raiser' "))
    assert "faulted on 100% of its decisions" in warning
    assert "duel-sprt/logs/raiser.stderr.log" in result.output


@pytest.mark.parametrize(("players", "filler", "expected"), [
    (2, "random-2", "expected none at 2-seat tables"),
    (3, "greedy", "is the candidate"),
])
def test_a_filler_that_would_skew_the_test_is_refused(tmp_path: Path, players: int,
                                                      filler: str, expected: str) -> None:
    """statistics.md: filler seats are never compared; the candidate as filler was, and a
    filler at 2 seats was dropped without a word."""
    path = config(tmp_path)
    path.write_text(path.read_text("utf-8").replace("players: 2", f"players: {players}"),
                    encoding="utf-8")
    result = runner.invoke(app, ["sprt", str(path), "--candidate", "greedy", "--baseline",
                                 "random", "--filler", filler])
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert not (tmp_path / "out" / "duel-sprt" / "games.jsonl").exists()


def test_a_forfeited_seat_loses_the_comparison_whatever_its_total() -> None:
    """COM-6: it ranks last; the SPRT compared totals, so a bot forfeiting all 60 games
    against random scored as if it had won many of them (-35 Elo, inconclusive)."""
    played = [record(["A", "B"], [0, 80], gid="g1"), record(["B", "A"], [80, 0], gid="g2")]
    games = [msgspec.structs.replace(g, seats=tuple(
        msgspec.structs.replace(s, forfeit=s.bot == "A") for s in g.seats)) for g in played]
    assert set_result(games, "A", "B") == (0.0, 2)
    assert set_result(games, "B", "A") == (2.0, 2)


def test_cli_at_3_seats_needs_only_the_two_bots(tmp_path: Path) -> None:
    """The README: the other seats are held by B. A config of the two bots at 3 seats was
    refused for its round robin ("expected at least 3 bots"), and a gauntlet without a
    candidate for its format, neither of which an SPRT plays."""
    path = config(tmp_path)
    path.write_text(path.read_text("utf-8").replace(
        "options: {players: 2}", "options: {players: 3}\nformat: {type: gauntlet}").replace(
        '  - {name: random-2, module: "bots.random_bot:RandomBot"}\n', ""), "utf-8")
    result = runner.invoke(app, ["sprt", str(path), "--candidate", "greedy", "--baseline",
                                 "random", "--max-games", "6"])
    assert result.exit_code == 3, result.output
    assert "(other seats: random)" in result.stdout
    assert runner.invoke(app, ["run", str(path)]).exit_code == 2  # a tournament needs both


STOPPER = """\
from pathlib import Path

from bots.random_bot import RandomBot


class Stopper(RandomBot):
    \"\"\"Random, but at its Nth game's start the user presses Ctrl-C.\"\"\"

    def __init__(self, tally: str, stop_at: int) -> None:
        super().__init__()
        self.tally, self.stop_at = Path(tally), stop_at

    def start_game(self, info):
        with self.tally.open("a") as out:
            out.write("game\\n")
        if len(self.tally.read_text().splitlines()) == self.stop_at:
            raise KeyboardInterrupt
        super().start_game(info)
"""


def test_cli_keeps_the_sets_played_before_a_stop_in_the_middle_of_a_batch(
        tmp_path: Path) -> None:
    """A batch (4 sets a worker) was written once all of it was played: Ctrl-C in its last
    set lost the three sets before it. Now each set is written as soon as it is whole, and
    the resume plays the games one uninterrupted run plays."""
    (tmp_path / "stopper.py").write_text(STOPPER, encoding="utf-8")
    tally = tmp_path / "tally.txt"
    path = config(tmp_path, more_bots=f"""\
  - name: stopper
    module: {tmp_path / "stopper.py"}:Stopper
    params: {{tally: {tally}, stop_at: 8}}  # its start is checked once first
""")
    args = ["sprt", str(path), "--candidate", "stopper", "--baseline", "random",
            "--max-games", "8"]
    stopped = runner.invoke(app, args)
    assert stopped.exit_code == 130, stopped.output
    games = tmp_path / "out" / "duel-sprt" / "games.jsonl"
    kept = games.read_text("utf-8").splitlines()
    assert len(kept) == 6  # three whole sets: the stop came in the fourth, the batch's last
    tally.write_text("", encoding="utf-8")  # no more stops: the test resumes
    again = runner.invoke(app, [*args])
    assert again.exit_code == 3, again.output
    assert "resumed: 6 games (3 sets) of this test played before" in again.stdout
    whole = games.read_text("utf-8").splitlines()
    assert whole[:6] == kept and len(whole) == 8


def test_cli_plays_again_a_set_cut_short_by_a_kill(tmp_path: Path) -> None:
    """A set's lines are written together, but a kill can land between them: the resume
    refused the folder ("not the whole sets"), and only --fresh, which loses the test, went
    on. Now the set is cut away and played again."""
    args = ["sprt", str(config(tmp_path)), "--candidate", "random", "--baseline", "random-2"]
    assert runner.invoke(app, [*args, "--max-games", "6"]).exit_code == 3
    games = tmp_path / "out" / "duel-sprt" / "games.jsonl"
    whole = games.read_text("utf-8").splitlines(keepends=True)
    games.write_text("".join(whole[:5]), "utf-8")  # the third set's second game lost
    again = runner.invoke(app, [*args, "--max-games", "6"])
    assert again.exit_code == 3, again.output
    assert again.stderr.splitlines()[0] == (f"arena: warning: {games}: the last set was cut "
                                            "short (a stop between its games): it is played "
                                            "again")
    assert "resumed: 4 games (2 sets) of this test played before" in again.stdout

    def played(lines: list[str]) -> list[tuple[str, str]]:
        return [(r["id"], r["actions"]) for r in map(json.loads, lines)]
    assert played(games.read_text("utf-8").splitlines()) == played(whole)


EDITOR = """\
from bots.random_bot import RandomBot


class Bot(RandomBot):
    def start_game(self, info):
        super().start_game(info)
        with open(__file__, "a") as f:  # a student saving their file during the test
            f.write("# edited\\n")
"""

DIES = """\
import os


class Bot:
    def draw(self, view):
        os._exit(3)

    def play(self, view):
        os._exit(3)
"""


def test_a_bot_edited_while_the_test_plays_gives_no_verdict(tmp_path: Path) -> None:
    """arena run warned of it, arena sprt said nothing: a verdict on two versions of the
    candidate could pass a CI gate. Now: no verdict, exit code 4, and the JSON says why."""
    (tmp_path / "editor.py").write_text(EDITOR, "utf-8")
    path = config(tmp_path, more_bots=f'  - {{name: editor, module: "{tmp_path}/editor.py:Bot"}}\n')
    done = runner.invoke(app, ["sprt", str(path), "--candidate", "editor", "--baseline",
                               "random", "--max-games", "4", "--json"])
    assert done.exit_code == 4, done.output
    verdict = json.loads(done.stdout)
    assert verdict["verdict"] is None and verdict["edited"] == ["editor"]
    assert verdict["exit_code"] == 4 and verdict["games"] == 4
    assert "no verdict: the code of editor changed while this test played" in done.stderr
    assert "arena: warning: the code of editor changed while this test played: no verdict " \
        "(exit code 4)" in done.stderr
    (tmp_path / "editor.py").write_text(EDITOR, "utf-8")  # restored: the same command gave
    again = runner.invoke(app, ["sprt", str(path), "--candidate", "editor", "--baseline",
                                "random", "--max-games", "4", "--json"])  # a verdict, H0
    assert again.exit_code == 2, again.output
    assert "its games mix two versions of the code of editor" in again.stderr


SOMETIMES = """\
from bots.greedy import GreedyBot


class Bot(GreedyBot):
    asked = 0

    def play(self, view):
        self.asked += 1
        if self.asked % 7 == 0:  # under a fifth of its decisions: no broken-bot warning
            raise RuntimeError("a bug of the seventh play")
        return super().play(view)
"""


def test_faults_under_the_broken_share_are_in_the_verdict(tmp_path: Path) -> None:
    """A candidate that failed one play in seven got "H0 accepted" and nothing else: the
    JSON held no fault, so a CI gate read "weaker" where the bot was broken."""
    (tmp_path / "sometimes.py").write_text(SOMETIMES, "utf-8")
    path = config(tmp_path, more_bots=f'  - {{name: sometimes, module: "{tmp_path}/sometimes.py'
                                      ':Bot"}\n')
    done = runner.invoke(app, ["sprt", str(path), "--candidate", "sometimes", "--baseline",
                               "random", "--max-games", "6", "--json"])
    verdict = json.loads(done.stdout)
    faults = verdict["faults"]
    assert set(faults) == {"sometimes", "random"} and faults["random"]["faults"] == 0
    assert 0 < faults["sometimes"]["faults"] < faults["sometimes"]["decisions"] / 5, faults
    line = next(x for x in done.stderr.splitlines() if x.startswith("faults: "))
    assert line.startswith(f"faults: sometimes {faults['sometimes']['faults']} in "), line
    assert "arena: warning: bot 'sometimes'" not in done.stderr  # not a broken one


def test_json_gives_the_verdict_to_a_program(tmp_path: Path) -> None:
    """A CI gate had to parse a sentence whose shape changes with the verdict."""
    done = runner.invoke(app, ["sprt", str(config(tmp_path)), "--candidate", "greedy",
                               "--baseline", "random", "--elo1", "50", "--json"])
    assert done.exit_code == 0, done.output
    verdict = json.loads(done.stdout)  # stdout holds the object alone
    assert verdict["verdict"] == "H1" and verdict["exit_code"] == 0
    assert verdict["games"] == 2 * verdict["sets"] == 2 * MIN_SETS
    assert verdict["llr"] >= verdict["bounds"][1] and verdict["elo"] > 0
    assert (verdict["candidate"], verdict["baseline"], verdict["elo1"]) == ("greedy", "random",
                                                                          50.0)
    assert done.stderr.splitlines()[0].startswith("sprt greedy vs random")  # the progress


def test_an_error_that_stops_the_test_is_not_h0(tmp_path: Path) -> None:
    """A bot that ends its process in process isolation ends the worker: an error of the
    run, which exited 1, H0's code; it is 4, no verdict."""
    (tmp_path / "dies.py").write_text(DIES, "utf-8")
    path = config(tmp_path, workers=2,  # games in worker processes: this one goes on
                  more_bots=f'  - {{name: dies, module: "{tmp_path}/dies.py:Bot"}}\n')
    done = runner.invoke(app, ["sprt", str(path), "--candidate", "dies", "--baseline",
                               "random", "--max-games", "4"])
    assert done.exit_code == 4, done.output
    assert done.stderr.splitlines()[-1].startswith("arena: error: 4 games (s000000-g0 to "
                                                   "s000001-g1) ended the worker process")


def test_a_test_decided_before_is_not_warned_of_its_cap(tmp_path: Path) -> None:
    """A resumed test whose kept sets decided it was warned that the cap 'can only end
    inconclusive', then printed its H1."""
    args = ["sprt", str(config(tmp_path)), "--candidate", "greedy", "--baseline", "random",
            "--elo1", "50"]
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, [*args, "--max-games", "20"])
    assert again.exit_code == 0, again.output
    assert "max-games" not in again.stderr, again.stderr
    assert again.stdout.splitlines()[-1].startswith("H1 accepted")
