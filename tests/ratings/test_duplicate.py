"""What the duplicate deals bought: the variance ratio of per-set point differences, on
simulated sets where the answer is known."""

from __future__ import annotations

import random
from collections.abc import Sequence

import msgspec
import numpy as np
import pytest

from arena.engine.results import GameEnd, RoundEnd
from arena.ratings.duplicate import duplicate_gain
from arena.records import GameRecord, RoundRecord, SeatRecord

NAMES = ["ann", "bob", "cat", "dan", "eve"]


def one_round(totals: Sequence[float]) -> tuple[RoundRecord, ...]:
    """The round whose penalties are the totals: a record's totals are its rounds' sums."""
    return (RoundRecord(round=1, dealer=0, reason=RoundEnd.DECLARATION,
                        penalties=tuple(int(t) for t in totals)),)


def record(bots: Sequence[str], totals: Sequence[float], *, gid: str,
           dup_set: str, seed: int = 1) -> GameRecord:
    seats = tuple(SeatRecord(bot=b, faults={}, decisions=1, time_mean_ms=1.0,
                             time_p95_ms=1.0, time_max_ms=1.0) for b in bots)
    ranks = tuple(1 + sum(o < t for o in totals) for t in totals)
    return GameRecord(schema=1, id=gid, variant="x/v1", options={}, seed=seed, seats=seats,
                      actions=(), rounds=one_round(totals), totals=tuple(totals), ranks=ranks,
                      termination=GameEnd.NORMAL, dup_set=dup_set)


def league(rng: np.random.Generator, *, sets: int, seats: int, deck: float, noise: float,
           first_seat: float = 0.0) -> list[GameRecord]:
    """Duplicate sets at random tables of NAMES, one game per rotation. A seat's points are
    the bot's own level (10 per place in NAMES), plus what the deck deals to that seat
    position (the same in every rotation of the set, standard deviation ``deck``), plus
    noise of its own (``noise``), plus ``first_seat`` for whoever sits first."""
    out = []
    for s in range(sets):
        table = [int(i) for i in rng.choice(len(NAMES), size=seats, replace=False)]
        dealt = rng.normal(0, deck, size=seats)
        for g in range(seats):
            order = table[g:] + table[:g]
            totals = [10 * bot + dealt[p] + rng.normal(0, noise) + first_seat * (p == 0)
                      for p, bot in enumerate(order)]
            out.append(record([NAMES[i] for i in order], [round(t, 2) for t in totals],
                              gid=f"s{s:04d}-g{g}", dup_set=f"s{s:04d}"))
    return out


def ratio(records: list[GameRecord]) -> float:
    gain = duplicate_gain(records)
    assert gain is not None
    return gain.ratio


@pytest.mark.parametrize("seats", [2, 4])
def test_deals_that_cancel_exactly_give_zero(seats: int) -> None:
    """All points come from the deck: every bot meets every hand of the set once, so the
    set mean of any pair's difference is the same in every set (their level apart)."""
    records = league(np.random.default_rng(seats), sets=200, seats=seats, deck=20, noise=0)
    gain = duplicate_gain(records)
    assert gain is not None and gain.sets == 200 and gain.pairs == 10
    assert gain.ratio == pytest.approx(0.0, abs=1e-9)


def test_sets_whose_games_had_their_own_decks_are_no_duplicate_sets() -> None:
    """Records of a run without duplicate deals, written before such runs stopped naming
    sets, grouped games of different seeds as "t0000-d000": the leaderboard read 96% and
    164% for deals that were never shared. A set is a duplicate set when its games share
    one seed."""
    shared = league(np.random.default_rng(4), sets=200, seats=2, deck=20, noise=0)
    own = [msgspec.structs.replace(r, seed=i) for i, r in enumerate(shared)]
    assert duplicate_gain(own) is None
    mixed = duplicate_gain(shared + [msgspec.structs.replace(r, dup_set="x" + r.dup_set)
                                     for r in own])
    assert mixed is not None and mixed.sets == 200


@pytest.mark.parametrize("seats", [2, 4])
def test_independent_deals_give_about_one(seats: int) -> None:
    """No deck effect: the sets are independent deals in all but name. Over 30 leagues of
    100 sets the mean ratio is 1 within its simulation error (about 0.02 here)."""
    rng = np.random.default_rng(10 + seats)
    ratios = [ratio(league(rng, sets=100, seats=seats, deck=0, noise=15)) for _ in range(30)]
    assert np.mean(ratios) == pytest.approx(1.0, abs=0.06)


@pytest.mark.parametrize("seats", [2, 4])
def test_half_deck_half_noise_gives_the_known_share(seats: int) -> None:
    """Deck and own noise of equal variance: the deck's part cancels in the set mean, the
    noise's does not, so the ratio is noise^2 / (deck^2 + noise^2) = 1/2."""
    records = league(np.random.default_rng(20 + seats), sets=1500, seats=seats, deck=12,
                     noise=12)
    assert ratio(records) == pytest.approx(0.5, abs=0.05)


def test_a_seat_advantage_is_not_credited_to_the_deck() -> None:
    """The first seat loses 40 points a game more. Rotating the seats cancels that in the
    set mean whether the deals are duplicate or not, so with independent deals the ratio
    stays about 1: the per-game variance is taken within each seating."""
    rng = np.random.default_rng(30)
    ratios = [ratio(league(rng, sets=100, seats=2, deck=0, noise=15, first_seat=40))
              for _ in range(30)]
    assert np.mean(ratios) == pytest.approx(1.0, abs=0.08)


def test_order_of_records_does_not_matter() -> None:
    records = league(np.random.default_rng(40), sets=50, seats=3, deck=10, noise=10)
    shuffled = records[:]
    random.Random(1).shuffle(shuffled)
    assert duplicate_gain(shuffled) == duplicate_gain(records)


def test_no_figure_without_sets_to_compare() -> None:
    single = league(np.random.default_rng(41), sets=1, seats=2, deck=10, noise=10)
    assert duplicate_gain(single) is None  # one set: no variance between sets
    loose = [record([s.bot for s in r.seats], r.totals, gid=r.id, dup_set="")
             for r in league(np.random.default_rng(42), sets=20, seats=2, deck=10, noise=10)]
    assert duplicate_gain(loose) is None  # no duplicate sets at all
    assert duplicate_gain([]) is None


def test_partners_are_not_a_pair_and_carry_their_team_mean() -> None:
    """Teams (0, 1, 0, 1): ann and cat against bob and dan. Each seat's result is its team's
    mean, as in the comparisons, so partners are never paired; a deck dealt again with the
    seats rotated by one gives each team the other's hands, and cancels."""
    rng = np.random.default_rng(43)
    records = []
    for s in range(40):
        dealt = rng.normal(0, 20, size=4)
        for g, order in enumerate((["ann", "bob", "cat", "dan"], ["bob", "cat", "dan", "ann"])):
            totals = [round(float(dealt[p]), 2) for p in range(4)]  # a seat's hand stays
            records.append(record(order, totals, gid=f"s{s}-g{g}", dup_set=f"s{s}"))
    gain = duplicate_gain(records, teams=(0, 1, 0, 1))
    assert gain is not None and gain.pairs == 4  # the four cross-team pairs only
    assert gain.ratio == pytest.approx(0.0, abs=1e-9)
