"""Ratings: the pairwise extraction (with teams), the Bradley-Terry fit, the bootstrap, LOS,
openskill, head to head and the anchor; checked on games drawn from known strengths."""

from __future__ import annotations

import csv
import io
import json
import math
import random
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import yaml
from openskill.models import PlackettLuce
from typer.testing import CliRunner

from arena.cli.app import app
from arena.engine.results import GameEnd, RoundEnd
from arena.errors import BadInput
from arena.ratings.bradley_terry import (
    ELO_MEAN,
    ELO_SCALE,
    MIN_UNITS,
    _estimate,
    bradley_terry_elo,
    fit_strengths,
    linked_groups,
    rate,
    t_quantile,
)
from arena.ratings.comparisons import pairwise, seats_of
from arena.ratings.leaderboard import head_to_head, standings
from arena.ratings.openskill import _fast_path_works, openskill_ordinals
from arena.ratings.render import render, render_h2h
from arena.ratings.terms import parse_anchor
from arena.records import GameRecord, RoundRecord, SeatRecord
from arena.tournament.config import load_config
from arena.tournament.results import stored_anchor

runner = CliRunner()
EULER_GAMMA = 0.5772156649015329
PAR = 2000  # added to every simulated total: penalties are never below 0 (records refuse it)


def one_round(totals: Sequence[float]) -> tuple[RoundRecord, ...]:
    """The round whose penalties are the totals: a record's totals are its rounds' sums."""
    return (RoundRecord(round=1, dealer=0, reason=RoundEnd.DECLARATION,
                        penalties=tuple(int(t) for t in totals)),)


def record(bots: Sequence[str], totals: Sequence[int], *, gid: str = "g",
           dup_set: str = "") -> GameRecord:
    seats = tuple(SeatRecord(bot=b, faults={}, decisions=1, time_mean_ms=1.0,
                             time_p95_ms=1.0, time_max_ms=1.0) for b in bots)
    ranks = tuple(1 + sum(o < t for o in totals) for t in totals)
    return GameRecord(schema=1, id=gid, variant="indian13/v1", options={}, seed=1, seats=seats,
                      actions=(), rounds=one_round(totals), totals=tuple(totals),
                      ranks=ranks, termination=GameEnd.NORMAL, dup_set=dup_set)


def plackett_luce_league(rng: np.random.Generator, elo: Sequence[float] | np.ndarray, *,
                         sets: int, seats: int = 4, duplicate: bool = True
                         ) -> list[GameRecord]:
    """Duplicate sets at random tables; a seat's total is PAR - Elo plus Gumbel noise of scale
    400 / ln 10, so finishing orders follow Plackett-Luce and every pair Bradley-Terry with
    these Elo (lower total wins; rounding to whole points makes rare ties)."""
    true = np.asarray(elo, dtype=float)
    names = [f"bot{i}" for i in range(len(true))]
    out = []
    for s in range(sets):
        table = [int(x) for x in rng.choice(len(true), size=seats, replace=False)]
        for g in range(seats):
            order = table[g:] + table[:g]
            totals = PAR - true[order] + ELO_SCALE * rng.gumbel(size=seats)
            out.append(record([names[i] for i in order], [max(0, round(x)) for x in totals],
                              gid=f"t{s:05d}-g{g}", dup_set=f"t{s:05d}" if duplicate else ""))
    return out


# ---------------------------------------------------------------- pairwise extraction


def random_games(seed: int, n: int = 200) -> list[tuple[list[str], list[int]]]:
    rng = random.Random(seed)
    bots = ["a", "b", "c", "d", "e"]
    games = []
    for _ in range(n):
        k = rng.choice([2, 3, 4])
        games.append(([rng.choice(bots) for _ in range(k)],  # repeats happen: never compared
                      [rng.choice([0, 5, 5, 10, 20]) for _ in range(k)]))
    return games


def as_records(games: Sequence[tuple[Sequence[str], Sequence[int]]]) -> list[GameRecord]:
    return [record(b, t, gid=f"g{i:04d}") for i, (b, t) in enumerate(games)]


def test_array_extraction_matches_the_plain_pairwise_count() -> None:
    games = random_games(1)
    wins, meets = pairwise(games)
    rated = rate(as_records(games), resamples=0)
    for i, a in enumerate(rated.names):
        for j, b in enumerate(rated.names):
            assert rated.score[i, j] == wins.get((a, b), 0.0)
            assert rated.meets[i, j] == meets.get((a, b), 0)


def test_partners_are_not_compared_and_share_the_team_result() -> None:
    # teams (0, 1, 0, 1): a and c against b and d; team means 15 and 7.5, so b and d win
    game = (["a", "b", "c", "d"], [0, 10, 30, 5])
    wins, meets = pairwise([game], teams=(0, 1, 0, 1))
    assert ("a", "c") not in meets and ("b", "d") not in meets
    assert wins[("b", "a")] == wins[("b", "c")] == wins[("d", "a")] == wins[("d", "c")] == 1.0
    assert wins[("a", "b")] == wins[("c", "d")] == 0.0
    assert sum(meets.values()) == 8  # four cross pairs, both directions
    rated = rate([record(*game)], teams=(0, 1, 0, 1), resamples=0)
    index = {b: i for i, b in enumerate(rated.names)}
    assert rated.meets[index["a"], index["c"]] == 0
    assert rated.score[index["d"], index["a"]] == 1.0
    with pytest.raises(ValueError, match="team map of 4 seats for 3-seat"):
        seats_of([record(["a", "b", "c"], [1, 2, 3])], teams=(0, 1, 0, 1))


def test_teams_match_the_plain_count_on_random_games() -> None:
    rng = random.Random(4)
    games = [([rng.choice("abcdef") for _ in range(4)], [rng.choice([0, 3, 8]) for _ in range(4)])
             for _ in range(300)]
    wins, meets = pairwise(games, teams=(0, 1, 0, 1))
    rated = rate(as_records(games), teams=(0, 1, 0, 1), resamples=0)
    for i, a in enumerate(rated.names):
        for j, b in enumerate(rated.names):
            assert rated.score[i, j] == wins.get((a, b), 0.0)
            assert rated.meets[i, j] == meets.get((a, b), 0)


def test_units_are_duplicate_sets_when_present() -> None:
    records = [record(["a", "b"], [0, 1], gid=f"g{i}", dup_set=f"d{i // 2}") for i in range(6)]
    assert seats_of(records).units == 3
    assert seats_of([record(["a", "b"], [0, 1], gid=f"g{i}") for i in range(6)]).units == 6


# ---------------------------------------------------------------- the fit


def test_fit_solves_the_likelihood_equations() -> None:
    """At the maximum, each bot's score (plus its virtual half) equals its expected score."""
    games = random_games(2)
    rated = rate(as_records(games), resamples=0)
    theta = (rated.elo.value - ELO_MEAN) / ELO_SCALE
    theta_fit = fit_strengths(rated.score.sum(axis=1), rated.meets)[0]
    assert np.allclose(theta - theta.mean(), theta_fit - theta_fit.mean(), atol=1e-9)
    p = 1 / (1 + np.exp(-(theta_fit[:, None] - theta_fit[None, :])))
    expected = (rated.meets * p).sum(axis=1) + 1 / (1 + np.exp(-theta_fit))
    assert np.allclose(rated.score.sum(axis=1) + 0.5, expected, atol=1e-8)


def test_two_bots_have_the_closed_form_gap() -> None:
    """Without other opponents the fit is the logit of the score, up to the virtual ties."""
    wins, meets = pairwise([(["a", "b"], [0, 10])] * 300 + [(["b", "a"], [0, 10])] * 100)
    elo = bradley_terry_elo(["a", "b"], wins, meets)
    assert elo["a"] - elo["b"] == pytest.approx(ELO_SCALE * math.log(3), rel=0.01)


def test_extreme_records_stay_finite_and_ordered() -> None:
    """The same result 500 times: finite, ordered ratings, and no interval, since every
    resample gives the same fit (an interval of no width would claim certainty)."""
    records = [record(["a", "b", "c"], [0, 10, 20], gid=str(i)) for i in range(500)]
    rows = {r.bot: r for r in standings(records, resamples=50)}
    assert rows["a"].elo > rows["b"].elo > rows["c"].elo
    assert all(math.isfinite(r.elo) and r.elo_low is None for r in rows.values())


def test_results_do_not_depend_on_record_order() -> None:
    records = plackett_luce_league(np.random.default_rng(3), [0, 50, 120, 200], sets=80)
    first = rate(records, resamples=100)
    shuffled = records[:]
    random.Random(1).shuffle(shuffled)
    second = rate(shuffled, resamples=100)
    for a, b in ((first.elo, second.elo), (first.points, second.points),
                 (first.vs_field, second.vs_field)):
        assert np.array_equal(a.value, b.value)
        assert np.array_equal(a.low, b.low) and np.array_equal(a.high, b.high)
    assert standings(records) == standings(shuffled)


def test_the_bootstrap_is_seeded() -> None:
    records = plackett_luce_league(np.random.default_rng(4), [0, 100, 200], sets=40, seats=3)
    assert np.array_equal(rate(records, seed=5).elo.low, rate(records, seed=5).elo.low)
    assert not np.array_equal(rate(records, seed=5).elo.low, rate(records, seed=6).elo.low)


def test_an_anchor_shifts_every_rating_and_fixes_its_bot() -> None:
    records = plackett_luce_league(np.random.default_rng(5), [0, 100, 300], sets=60, seats=2)
    free = rate(records, resamples=100)
    fixed = rate(records, anchor=("bot0", 1000.0), resamples=100)
    shift = fixed.elo.value - free.elo.value
    assert fixed.elo.value[0] == 1000.0
    assert np.allclose(shift, shift[0])
    assert fixed.elo.low[0] == fixed.elo.high[0] == 1000.0  # the reference has no spread
    assert fixed.los(2, 1) == pytest.approx(free.los(2, 1), abs=0.02)
    with pytest.raises(BadInput, match="anchor 'nobody'"):
        standings(records, anchor=("nobody", 1000.0))


def test_points_interval_stays_within_what_resamples_can_give() -> None:
    """Mean points near zero: a symmetric interval would dip below any possible mean."""
    samples = np.array([[0.0]] * 300 + [[1.0]] * 100)
    est = _estimate(np.array([0.25]), samples, 20, bounded=True)
    half = 2.093 * samples.std(ddof=1)  # t(19) x the bootstrap SD: 0.91, both ends clipped
    assert 0.25 - half < 0 and 0.25 + half > 1
    assert (est.low[0], est.high[0]) == (0.0, 1.0)
    assert _estimate(np.array([0.25]), samples, 20).low[0] < 0  # Elo-like: unbounded


def test_t_quantile_matches_the_tables() -> None:
    """Student's 97.5% quantiles (any statistics table), to the printed three decimals."""
    for df, table in ((4, 2.776), (5, 2.571), (9, 2.262), (19, 2.093), (39, 2.023),
                      (120, 1.980)):
        assert t_quantile(0.975, df) == pytest.approx(table, abs=0.001)


def test_los_is_a_probability_that_follows_the_gap() -> None:
    records = plackett_luce_league(np.random.default_rng(6), [0, 10, 300], sets=80, seats=3)
    rows = standings(records)
    assert rows[0].bot == "bot2"
    assert rows[0].los_next is not None and rows[0].los_next > 99.9  # 300 Elo clear
    assert rows[1].los_next is not None and 50 <= rows[1].los_next < 99  # 10 Elo: unsure
    assert rows[2].los_next is None


# ---------------------------------------------------------------- simulation


def test_the_fit_recovers_known_strengths() -> None:
    true = [-300, -150, -60, 0, 40, 120, 210, 400]
    records = plackett_luce_league(np.random.default_rng(7), true, sets=2500)
    rated = rate(records, resamples=100)
    centred = np.array(true) - np.mean(true) + ELO_MEAN
    assert np.argsort(rated.elo.value).tolist() == list(range(8))
    assert np.abs(rated.elo.value - centred).max() < 20
    assert ((rated.elo.low <= centred) & (centred <= rated.elo.high)).mean() >= 0.75


def test_bootstrap_intervals_cover_the_truth_about_95_percent() -> None:
    """Elo, mean points and vs-field intervals over repeated leagues of known strength."""
    true = np.array([-250.0, -150, -50, 0, 100, 350])
    rng = np.random.default_rng(11)
    centred = true - true.mean() + ELO_MEAN
    points = PAR - true + ELO_SCALE * EULER_GAMMA  # the mean of -Elo + Gumbel noise
    others = (true.sum() - true) / 5  # a 4-seat table holds a bot and 3 of the 5 others
    vs_field = -(true - (true + 3 * others) / 4)
    hits: dict[str, list[bool]] = {"elo": [], "points": [], "vs field": []}
    for repeat in range(150):
        rated = rate(plackett_luce_league(rng, true, sets=60), resamples=200, seed=repeat)
        for name, estimate, truth in (("elo", rated.elo, centred),
                                      ("points", rated.points, points),
                                      ("vs field", rated.vs_field, vs_field)):
            hits[name] += ((estimate.low <= truth) & (truth <= estimate.high)).tolist()
    for name, hit in hits.items():
        assert 0.90 <= np.mean(hit) <= 0.985, (name, np.mean(hit))


def test_a_bot_that_beat_everyone_has_no_interval_and_the_others_keep_honest_ones() -> None:
    """When one bot wins every comparison, the likelihood bounds its gap on one side only and
    every resample repeats the sweep: its interval was a few Elo wide and almost never held
    the truth (1 league in 128). It is left out, the mean is taken over the bots the results
    link, and their intervals hold the truth about 95% of the time (bench/coverage.py)."""
    true = np.array([800.0, 0.0, 0.0])
    rng = np.random.default_rng(5)
    hits: list[bool] = []
    swept = 0
    for repeat in range(80):
        rated = rate(plackett_luce_league(rng, true, sets=10, seats=3), resamples=200,
                     seed=repeat)
        order = [int(name.removeprefix("bot")) for name in rated.names]
        linked = np.array([i not in rated.unbounded for i in range(len(order))])
        if not linked.all():
            swept += 1
            assert np.isnan(rated.elo.low[~linked]).all()
            assert rated.elo.value[linked].mean() == pytest.approx(ELO_MEAN)
        truth = true[order] - true[order][linked].mean() + ELO_MEAN
        shown = np.isfinite(rated.elo.low)
        hits += ((rated.elo.low <= truth) & (truth <= rated.elo.high))[shown].tolist()
    assert swept >= 20  # the case under test came up
    assert 0.90 <= np.mean(hits) <= 0.985, np.mean(hits)


def gauntlet_with_a_sweep(a_wins: Sequence[bool]) -> list[GameRecord]:
    """Duplicate sets of a gauntlet: s beats a in every game and never meets b; a and b
    meet on the same deck twice, a winning both games where ``a_wins`` says, else splitting
    them (one win each, as mirror bots do)."""
    out = []
    for s, wins in enumerate(a_wins):
        ab = ([0, 10], [10, 0]) if wins else ([0, 10], [0, 10])
        out += [record(["a", "b"], ab[0], gid=f"t{s}-ab0", dup_set=f"ab{s}"),
                record(["b", "a"], ab[1], gid=f"t{s}-ab1", dup_set=f"ab{s}"),
                record(["s", "a"], [0, 10], gid=f"t{s}-sa0", dup_set=f"sa{s}"),
                record(["a", "s"], [10, 0], gid=f"t{s}-sa1", dup_set=f"sa{s}")]
    return out


def test_a_sweep_outside_the_linked_bots_leaves_their_gap_to_their_own_games() -> None:
    """a and b split every deck; s beat a every time and never met b. The likelihood's
    maximum puts s out of reach and leaves a level with b. The virtual tie that keeps s
    finite pulled a 8 Elo below b in every resample, and the LOS read 99.9% for an even
    head-to-head; the linked bots' gaps now come from their own comparisons."""
    rated = rate(gauntlet_with_a_sweep([False] * 10))
    at = {name: i for i, name in enumerate(rated.names)}
    assert rated.unbounded == (at["s"],)
    assert rated.elo.value[at["a"]] == pytest.approx(rated.elo.value[at["b"]], abs=1e-9)
    assert rated.los(at["a"], at["b"]) is None and rated.los(at["b"], at["a"]) is None
    assert rated.elo.value[at["s"]] > ELO_MEAN + 400  # s keeps its point estimate
    rows = {row.bot: row for row in standings(gauntlet_with_a_sweep([False] * 10))}
    assert rows["a"].los_next is None and rows["b"].los_next is None


def test_the_linked_bots_gap_is_their_two_bot_fit_whatever_the_sweeper_did() -> None:
    """a won 3 decks of 10 outright against b: their gap is that of the a-b games alone."""
    records = gauntlet_with_a_sweep([True] * 3 + [False] * 7)
    rated = rate(records, resamples=0)
    at = {name: i for i, name in enumerate(rated.names)}
    pairs = [([seat.bot for seat in r.seats], r.totals) for r in records]
    wins, meets = pairwise([(bots, totals) for bots, totals in pairs if "s" not in bots])
    two = bradley_terry_elo(["a", "b"], wins, meets)
    gap = rated.elo.value[at["a"]] - rated.elo.value[at["b"]]
    assert gap == pytest.approx(two["a"] - two["b"], abs=1e-6) and gap > 0


@pytest.mark.parametrize("anchor", [None, "a", "b", "s"])
def test_an_anchor_moves_no_gap_even_where_a_gap_is_open(anchor: str | None) -> None:
    """The linked bots' own fit was taken for the anchor's group: anchoring s (outside it)
    put a 97 Elo above b instead of 105, and s's gap moved by 8 with the anchor."""
    records = gauntlet_with_a_sweep([True] * 3 + [False] * 7)
    free = rate(records, resamples=0)
    fixed = rate(records, resamples=0, anchor=None if anchor is None else (anchor, 1000.0))
    gaps = [free.elo.value - free.elo.value[0], fixed.elo.value - fixed.elo.value[0]]
    assert np.allclose(gaps[0], gaps[1], atol=1e-6), gaps


def test_two_groups_of_one_size_keep_their_own_gaps() -> None:
    """a and b split every deck, as c and d do; a beat c every time. With no single largest
    group nothing was refitted, and a stood 5 Elo above b on an even head-to-head."""
    records = []
    for s in range(8):
        for x, y in (("a", "b"), ("c", "d")):
            records += [record([x, y], [0, 10], gid=f"t{s}-{x}0", dup_set=f"{x}{s}"),
                        record([y, x], [0, 10], gid=f"t{s}-{x}1", dup_set=f"{x}{s}")]
        records += [record(["a", "c"], [0, 10], gid=f"t{s}-ac0", dup_set=f"ac{s}"),
                    record(["c", "a"], [10, 0], gid=f"t{s}-ac1", dup_set=f"ac{s}")]
    for anchor in (None, ("a", 1000.0), ("c", 1000.0)):
        rated = rate(records, anchor=anchor, resamples=0)
        at = {name: i for i, name in enumerate(rated.names)}
        assert rated.elo.value[at["a"]] == pytest.approx(rated.elo.value[at["b"]], abs=1e-9)
        assert rated.elo.value[at["c"]] == pytest.approx(rated.elo.value[at["d"]], abs=1e-9)


def test_linked_groups_follow_wins_and_ties_both_ways() -> None:
    """Bots are linked when chains of "scored against" run both ways (a tie counts)."""
    score = np.array([[0, 2, 1, 0],  # a beat b twice and scored against c
                      [0, 0, 0.5, 0],  # b tied c
                      [0, 0.5, 0, 0],
                      [0, 0, 0, 0]], dtype=float)  # d met nobody
    assert linked_groups(score).tolist() == [0, 1, 1, 3]
    score[1, 0] = 1  # b beat a once: a, b and c are linked
    assert linked_groups(score).tolist() == [0, 0, 0, 3]


def test_too_few_sets_give_no_interval_and_no_los() -> None:
    """A bootstrap over a handful of duplicate sets cannot see the spread (2 sets: the 95%
    interval held the truth 86% of the time, bench/coverage.py): below MIN_UNITS none is
    shown."""
    few = plackett_luce_league(np.random.default_rng(12), [0, 200], sets=MIN_UNITS - 1,
                               seats=2)
    rated = rate(few)
    assert not rated.has_intervals and np.isnan(rated.elo.low).all()
    rows = standings(few)
    assert rows[0].elo_low is None and rows[0].los_next is None
    for wide in (False, True):  # the interval cells stay empty
        assert not set("[±") & set(render(rows, wide=wide).splitlines()[2])
    enough = plackett_luce_league(np.random.default_rng(12), [0, 200], sets=MIN_UNITS,
                                  seats=2)
    assert rate(enough).has_intervals and standings(enough)[0].los_next is not None


# ---------------------------------------------------------------- openskill


def test_openskill_fast_path_equals_the_public_rate() -> None:
    assert _fast_path_works()
    games = [(b, t) for b, t in random_games(9, 300) if len(set(b)) == len(b)]
    model = PlackettLuce()
    ratings = {b: model.rating(name=b) for b in "abcde"}
    for bots, totals in games:
        new = model.rate([[ratings[b]] for b in bots], ranks=[float(t) for t in totals])
        for b, team in zip(bots, new, strict=True):
            ratings[b] = team[0]
    expected = {b: r.ordinal() for b, r in ratings.items()}
    got = openskill_ordinals(games)
    assert got == pytest.approx(expected, abs=1e-9)


def test_openskill_orders_known_strengths() -> None:
    records = plackett_luce_league(np.random.default_rng(8), [0, 150, 300, 450], sets=300)
    rows = standings(records)
    assert [r.bot for r in rows] == ["bot3", "bot2", "bot1", "bot0"]
    assert [r.openskill for r in rows] == sorted((r.openskill for r in rows), reverse=True)


# ---------------------------------------------------------------- head to head, anchor, CLI


def league_folder(tmp_path: Path, config: str | None = None) -> Path:
    folder = tmp_path / "demo"
    folder.mkdir()
    records = plackett_luce_league(np.random.default_rng(9), [0, 100, 250], sets=40, seats=2)
    (folder / "games.jsonl").write_text("".join(r.to_json() + "\n" for r in records), "utf-8")
    if config is not None:
        (folder / "config.yaml").write_text(config, "utf-8")
    return folder


def test_head_to_head_counts_each_pair() -> None:
    records = [record(["a", "b"], [0, 5], gid="1"), record(["b", "a"], [0, 5], gid="2"),
               record(["a", "b", "c"], [3, 3, 9], gid="3")]
    meetings = {(m.bot, m.opponent): (m.score, m.games) for m in head_to_head(records)}
    assert meetings[("a", "b")] == (1.5, 3) and meetings[("b", "a")] == (1.5, 3)
    assert meetings[("a", "c")] == (1.0, 1) and meetings[("c", "b")] == (0.0, 1)
    text = render_h2h(head_to_head(records), "github")
    assert "1.5/3" in text and text.startswith("| bot")


def test_cli_h2h_in_every_format(tmp_path: Path) -> None:
    folder = league_folder(tmp_path)
    plain = runner.invoke(app, ["leaderboard", str(folder), "--h2h"])
    assert plain.exit_code == 0, plain.output
    assert plain.output.splitlines()[0].split() == ["bot", "bot2", "bot1", "bot0"]
    for fmt in ("github", "markdown", "csv", "json", "html"):
        result = runner.invoke(app, ["leaderboard", str(folder), "--h2h", "--format", fmt])
        assert result.exit_code == 0, result.output
        assert "bot2" in result.output


def test_cli_anchor_from_the_option_and_from_the_stored_config(tmp_path: Path) -> None:
    folder = league_folder(tmp_path, yaml.safe_dump({
        "identity_hash": "x", "identity": {}, "rating": {"anchor": {"bot0": 1000}}}))
    assert stored_anchor(folder) == ("bot0", 1000.0)
    stored = runner.invoke(app, ["leaderboard", str(folder), "--format", "json"])
    assert stored.exit_code == 0, stored.output
    assert "1000.0" in stored.output
    given = runner.invoke(app, ["leaderboard", str(folder), "--format", "csv",
                                "--anchor", "bot1=2000"])
    assert given.exit_code == 0, given.output
    table = list(csv.DictReader(io.StringIO(given.output)))
    assert {r["bot"]: r["Elo"] for r in table}["bot1"] == "2000.0"
    bad = runner.invoke(app, ["leaderboard", str(folder), "--anchor", "nobody=5"])
    assert bad.exit_code == 2 and bad.output.startswith("arena: error: anchor 'nobody'")
    for text in ("bot1", "bot1=x", "=5", "bot1=20000"):  # the range went unsaid
        with pytest.raises(BadInput, match=re.escape("expected NAME=ELO, ELO a number from "
                                                     "-10,000 to 10,000, e.g. random=1000")):
            parse_anchor(text)


def test_stored_anchor_inside_the_identity_is_read_too(tmp_path: Path) -> None:
    folder = league_folder(tmp_path, yaml.safe_dump({"identity": {
        "rating": {"anchor": {"bot2": 1800.5}}}}))
    assert stored_anchor(folder) == ("bot2", 1800.5)
    assert stored_anchor(tmp_path) is None


CONFIG = """\
name: anchored
variant: indian13
options: {players: 2}
bots:
  - {name: greedy, module: "bots.greedy:GreedyBot"}
  - {name: random, module: "bots.random_bot:RandomBot"}
"""


def test_config_rating_anchor(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CONFIG + "rating: {anchor: {random: 1000}}\n", "utf-8")
    assert load_config(path).anchor == ("random", 1000.0)
    path.write_text(CONFIG, "utf-8")
    assert load_config(path).anchor is None
    for bad, message in (("rating: {anchor: {nobody: 1000}}", "rating.anchor.nobody: expected "
                                                              "one of the bots"),
                         ("rating: {anchor: {random: high}}", "expected an Elo number"),
                         ("rating: {anchor: {random: 1, greedy: 2}}", "expected one bot"),
                         ("rating: {scale: 400}", "rating.scale: unknown key"),
                         ("rating: 1000", "rating: expected a mapping")):
        path.write_text(CONFIG + bad + "\n", "utf-8")
        with pytest.raises(BadInput, match=message):
            load_config(path)


def test_the_table_shows_intervals_and_los() -> None:
    records = plackett_luce_league(np.random.default_rng(10), [0, 60, 200], sets=30, seats=2)
    text = render(standings(records), "plain")
    head = text.splitlines()[0]
    for column in ("Elo ± 95%", "points", "vs field ± 95%", "openskill", "LOS next"):
        assert column in head
    assert "%" in text.splitlines()[2] and "±" in text.splitlines()[2]
    wide = render(standings(records), "plain", wide=True)
    for column in ("Elo", "95% CI", "points", "vs field", "mean rank", "LOS next"):
        assert column in wide.splitlines()[0]
    assert "[" in wide.splitlines()[2]


def test_run_keeps_the_anchor_for_the_leaderboard(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    # a fixed seed: two games of a random seed can end one each, and the Elos then meet
    path.write_text(CONFIG + f"isolation: inprocess\nworkers: 1\noutput: {tmp_path / 'out'}\n"
                    "seed: 1\nrating: {anchor: {random: 1000}}\n", "utf-8")
    run = runner.invoke(app, ["run", str(path), "--format", "json"])
    assert run.exit_code == 0, run.output
    folder = tmp_path / "out" / "anchored"
    assert stored_anchor(folder) == ("random", 1000.0)
    board = runner.invoke(app, ["leaderboard", str(folder), "--format", "json"])
    assert board.exit_code == 0, board.output
    elo = {r["bot"]: r["elo"] for r in json.loads(board.output)}
    assert elo["random"] == 1000.0 and elo["greedy"] > 1000.0
    assert json.loads(run.output.split("\n", 1)[1]) == json.loads(board.output)


def test_bots_level_on_elo_share_a_rank_and_go_by_points_not_by_name() -> None:
    """a and b split every deck they met on, and both beat c every time, b by more: their
    Elo is equal, and a ranked above b by its name, a new bot above greedy with three times
    its points. Equal Elo now shares a rank, and vs field orders them."""
    records = []
    for s in range(6):
        records += [record(["a", "b"], [0, 10], gid=f"t{s}-ab0", dup_set=f"ab{s}"),
                    record(["b", "a"], [0, 10], gid=f"t{s}-ab1", dup_set=f"ab{s}"),
                    record(["a", "c"], [30, 40], gid=f"t{s}-ac0", dup_set=f"ac{s}"),
                    record(["c", "a"], [40, 30], gid=f"t{s}-ac1", dup_set=f"ac{s}"),
                    record(["b", "c"], [0, 40], gid=f"t{s}-bc0", dup_set=f"bc{s}"),
                    record(["c", "b"], [40, 0], gid=f"t{s}-bc1", dup_set=f"bc{s}")]
    for anchor in (None, ("a", 1500.04), ("c", 1000.0)):  # no anchor splits a tie
        rows = standings(records, anchor=anchor)
        assert [(r.rank, r.bot) for r in rows] == [(1, "b"), (1, "a"), (3, "c")]
        assert rows[0].elo == rows[1].elo and rows[0].vs_field < rows[1].vs_field
