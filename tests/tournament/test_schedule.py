"""The schedule, tested without playing a game: totals, seat balance, duplicate seeds, designs."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from itertools import combinations, permutations
from math import comb, factorial
from pathlib import Path

import pytest

from arena.tournament.config import load_config
from arena.tournament.runner import schedule_for
from arena.tournament.schedule import (
    MAX_TABLES,
    Pairing,
    Schedule,
    balanced_tables,
    derive_seed,
    gauntlet_tables,
    make_schedule,
    round_robin_tables,
)


def names(n: int) -> list[str]:
    return [f"bot{i:02d}" for i in range(n)]


CASES = [(2, 2, 2), (3, 2, 4), (5, 3, 3), (6, 4, 8), (7, 2, 6), (6, 6, 6)]


@pytest.mark.parametrize(("n", "k", "games"), CASES)
@pytest.mark.parametrize("duplicate", [True, False])
def test_len_is_known_before_iteration_and_matches(n: int, k: int, games: int,
                                                   duplicate: bool) -> None:
    schedule = make_schedule(names(n), players=k, games_per_table=games, duplicate=duplicate,
                             seed=3)
    expected = comb(n, k) * games
    assert len(schedule) == expected  # before any pairing is produced
    assert len(list(schedule)) == expected
    assert len(list(schedule)) == expected  # iterable again, same total


@pytest.mark.parametrize(("n", "k"), [(2, 2), (4, 2), (5, 3), (6, 4), (8, 3), (9, 6)])
def test_round_robin_plays_every_k_subset_once(n: int, k: int) -> None:
    bots = names(n)
    tables = round_robin_tables(bots, k, seed=1)
    assert len(tables) == comb(n, k)
    assert {frozenset(t) for t in tables} == {frozenset(c) for c in combinations(bots, k)}
    assert all(len(set(t)) == k for t in tables)


def test_default_games_per_table_is_one_rotation_set() -> None:
    schedule = make_schedule(names(4), players=3)
    assert schedule.games_per_table == 3
    assert len(schedule) == comb(4, 3) * 3


@pytest.mark.parametrize(("n", "k", "games"), [(3, 2, 2), (5, 3, 6), (6, 4, 8), (4, 4, 12)])
def test_every_bot_sits_in_every_seat_equally_often(n: int, k: int, games: int) -> None:
    schedule = make_schedule(names(n), players=k, games_per_table=games, seed=5)
    seats: Counter[tuple[str, int]] = Counter()
    for p in schedule:
        assert len(p.seats) == k
        assert len(set(p.seats)) == k
        seats.update((bot, i) for i, bot in enumerate(p.seats))
    per_bot = comb(n - 1, k - 1) * games // k  # tables of the bot x games / seats
    assert set(seats.values()) == {per_bot}
    assert len(seats) == n * k


def test_every_table_is_played_in_every_rotation() -> None:
    # Each block of 3 games is one cyclic order in its 3 rotations; the 2 blocks play the 2
    # cyclic orders of a 3-seat table, so all 6 seatings occur once.
    schedule = make_schedule(names(4), players=3, games_per_table=6, seed=2)
    by_table: dict[int, list[tuple[str, ...]]] = defaultdict(list)
    for p in schedule:
        by_table[p.table].append(p.seats)
    for table, seatings in by_table.items():
        base = schedule.tables[table]
        first = {base[i:] + base[:i] for i in range(3)}
        assert set(seatings[:3]) == first
        assert Counter(seatings) == dict.fromkeys(permutations(base), 1)


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_neighbours_are_balanced_over_all_cyclic_orders(k: int) -> None:
    # Who sits to whose left decides whose discards a bot sees first: over (k-1)! blocks,
    # every bot follows every other bot equally often, and sits in every seat equally often.
    blocks = factorial(k - 1)
    schedule = make_schedule(names(k), players=k, games_per_table=k * blocks, seed=1)
    follows: Counter[tuple[str, str]] = Counter()
    position: Counter[tuple[str, int]] = Counter()
    for p in schedule:
        for i, bot in enumerate(p.seats):
            follows[(p.seats[i - 1], bot)] += 1
            position[(bot, i)] += 1
    assert len(set(follows.values())) == 1 and len(follows) == k * (k - 1)
    assert len(set(position.values())) == 1 and len(position) == k * k


@pytest.mark.parametrize(("n", "k", "games", "kind"), [
    (7, 4, 4, "round-robin"), (5, 4, 12, "gauntlet"), (6, 4, 4, "round-robin"),
    (8, 5, 5, "round-robin"), (20, 4, 4, "round-robin")])
def test_neighbours_are_balanced_across_tables(n: int, k: int, games: int, kind: str) -> None:
    """Tables of one block each cannot go through their cyclic orders, so the tables share
    the work: X sits right before Y (Y takes X's discards) about as often as Y before X.
    Every table starting on the config's order sat bot01 after bot00 in all 40 of their
    games at 7 bots (4 seats, 4 games), 0 the other way round; now no pair is more than two
    blocks (2k games) apart, in every design."""
    schedule = make_schedule(names(n), players=k, kind=kind, games_per_table=games, seed=3,
                             candidate="bot00" if kind == "gauntlet" else None)
    follows: Counter[tuple[str, str]] = Counter()
    for p in schedule:
        for i, bot in enumerate(p.seats):
            follows[(p.seats[i - 1], bot)] += 1
    gaps = [abs(follows[(a, b)] - follows[(b, a)]) for a, b in combinations(names(n), 2)]
    assert max(gaps) <= 2 * k, max(gaps)
    assert sum(gaps) / len(gaps) <= k


def _partnered(schedule: Iterable[Pairing], bots: list[str]) -> list[int]:
    """Games in which each pair of bots sat as partners (seats 0 and 2, 1 and 3)."""
    count: Counter[frozenset[str]] = Counter()
    for p in schedule:
        count[frozenset(p.seats[0::2])] += 1
        count[frozenset(p.seats[1::2])] += 1
    return [count[frozenset(pair)] for pair in combinations(bots, 2)]


@pytest.mark.parametrize("games", [4, 8, 12, 20])
def test_r51_1_partners_are_balanced_across_tables(games: int) -> None:
    """Rummy 51 in teams: who partners whom decided the ratings of seven copies of one bot
    (1426 to 1503 Elo, a LOS of 98.5% between two of them), as partners of greedy in 152
    or 368 of their 672 games; bots 0 and 1 never partnered. Each block now pairs the
    partners the tables before have paired least."""
    bots = names(10)
    before = _partnered(make_schedule(bots, players=4, games_per_table=games, seed=7), bots)
    counts = _partnered(make_schedule(bots, players=4, games_per_table=games, seed=7,
                                      teams=(0, 1, 0, 1)), bots)
    if games < 12:  # one table's three partnerings need 3 blocks
        assert min(before) <= max(before) / 20  # without teams nothing balances them
    if games % 12:
        assert min(counts) >= max(counts) / 2.5, sorted(counts)
    else:  # each table pairs every way once: exact (a greedy pick had given 64 to 128)
        assert min(counts) == max(counts), sorted(counts)


def test_a_schedule_past_its_balancing_budget_is_quick_and_whole() -> None:
    """A gauntlet of 30 bots at 6 seats (118,755 tables) weighed every order of every table:
    37 s before its first game. Past the budget the tables take their orders in turn."""
    began = time.process_time()
    schedule = make_schedule(names(30), players=6, kind="gauntlet", candidate="bot00",
                             seed=1)
    assert len(schedule.orders) == comb(29, 5) and time.process_time() - began < 10
    assert all(len(o) == 1 and 0 <= o[0] < factorial(5) for o in schedule.orders)


def test_a_teams_config_s_schedule_balances_its_partners(tmp_path: Path) -> None:
    config = tmp_path / "teams.yaml"
    config.write_text("name: t\nvariant: rummy51\noptions: {players: 4, teams: true}\nbots:\n" +
                      "".join(f"  - {{name: {b}, module: bots.random_bot:RandomBot}}\n"
                              for b in names(7)) + "format: {games: 4}\nseed: 3\n", "utf-8")
    counts = _partnered(schedule_for(load_config(config)), names(7))
    assert min(counts) >= max(counts) / 2.5, counts


def _blocks(schedule: Schedule) -> dict[str, list[Pairing]]:
    out: dict[str, list[Pairing]] = defaultdict(list)
    for p in schedule:
        out[p.dup_set].append(p)
    return out


def test_duplicate_rotations_of_a_block_share_a_seed() -> None:
    k = 3
    schedule = make_schedule(names(5), players=k, games_per_table=2 * k, duplicate=True,
                             seed=11)
    blocks = _blocks(schedule)
    assert len(blocks) == len(schedule) // k
    for block in blocks.values():
        assert len(block) == k
        assert len({p.seed for p in block}) == 1, block
        assert len({p.seats for p in block}) == k  # k different seatings of one deck
        assert len({p.table for p in block}) == 1
    # different blocks (other tables, or the second set of one table) get other decks
    assert len({b[0].seed for b in blocks.values()}) == len(blocks)


def test_without_duplicate_every_game_has_its_own_seed_and_no_set() -> None:
    """Games dealt their own decks form no duplicate set: records named blocks of them
    "t0000-d000", and the leaderboard credited the deals with a saving they never made."""
    schedule = make_schedule(names(5), players=3, games_per_table=6, duplicate=False, seed=11)
    seeds = [p.seed for p in schedule]
    assert len(set(seeds)) == len(seeds)
    assert {p.dup_set for p in schedule} == {""}


@pytest.mark.parametrize("duplicate", [True, False])
def test_ids_are_unique_and_stable_text(duplicate: bool) -> None:
    schedule = make_schedule(names(6), players=2, games_per_table=4, duplicate=duplicate)
    ids = [p.id for p in schedule]
    assert len(set(ids)) == len(ids)
    assert ids[0] == "t0000-g000"
    assert all(p.id.startswith(f"t{p.table:04d}-g") for p in schedule)


def test_seeds_are_63_bit_and_depend_on_the_tournament_seed() -> None:
    a = [p.seed for p in make_schedule(names(4), players=2, seed=1)]
    b = [p.seed for p in make_schedule(names(4), players=2, seed=2)]
    assert all(0 <= s < 2**63 for s in a + b)
    assert set(a).isdisjoint(b)
    assert derive_seed(1, 0, 0) == derive_seed(1, 0, 0) != derive_seed(1, 0, 1)


@pytest.mark.parametrize(("n", "k"), [(2, 2), (5, 2), (6, 3), (7, 4), (6, 6)])
def test_gauntlet_tables_all_hold_the_candidate(n: int, k: int) -> None:
    bots = names(n)
    candidate = bots[n // 2]
    tables = gauntlet_tables(bots, k, candidate)
    assert len(tables) == comb(n - 1, k - 1)
    assert all(candidate in t and len(set(t)) == k for t in tables)
    others = {frozenset(set(t) - {candidate}) for t in tables}
    assert len(others) == len(tables)  # every choice of opponents exactly once


def test_gauntlet_schedule_rotates_the_candidate_through_every_seat() -> None:
    bots = names(5)
    schedule = make_schedule(bots, players=3, kind="gauntlet", candidate="bot04",
                             games_per_table=3, seed=4)
    assert len(schedule) == comb(4, 2) * 3
    seats = Counter(p.seats.index("bot04") for p in schedule)
    assert seats == {0: comb(4, 2), 1: comb(4, 2), 2: comb(4, 2)}
    assert all("bot04" in p.seats for p in schedule)


def test_gauntlet_without_candidate_is_refused() -> None:
    with pytest.raises(ValueError, match="candidate"):
        make_schedule(names(3), players=2, kind="gauntlet")


def _spread(tables: list[tuple[str, ...]], bots: list[str]) -> tuple[Counter[str], list[int]]:
    plays = Counter(b for t in tables for b in t)
    pairs = Counter(frozenset(p) for t in tables for p in combinations(t, 2))
    return plays, [pairs[frozenset(p)] for p in combinations(bots, 2)]


@pytest.mark.parametrize(("n", "k", "tables"),
                         [(10, 4, 30), (12, 3, 40), (9, 2, 20), (20, 6, 50), (7, 3, 10),
                          (30, 4, 200)])
def test_balanced_design_evens_plays_and_meetings(n: int, k: int, tables: int) -> None:
    bots = names(n)
    design = balanced_tables(bots, k, tables=tables, seed=7)
    assert len(design) == tables
    assert all(len(set(t)) == k for t in design)
    assert all(list(t) == sorted(t, key=bots.index) for t in design)  # seats in bot order
    plays, meetings = _spread(design, bots)
    assert set(plays) == set(bots)
    assert max(plays.values()) - min(plays.values()) <= 1
    assert max(meetings) - min(meetings) <= 4  # a random design spreads far wider


def test_round_robin_switches_to_the_balanced_design_above_max_tables() -> None:
    bots = names(8)
    assert comb(8, 3) == 56
    full = round_robin_tables(bots, 3, seed=1, max_tables=56)
    assert len(full) == 56
    design = round_robin_tables(bots, 3, seed=1, max_tables=20)
    assert len(design) == 20
    assert design == balanced_tables(bots, 3, tables=20, seed=1)
    plays, _ = _spread(design, bots)
    assert max(plays.values()) - min(plays.values()) <= 1


def test_large_round_robin_uses_the_default_cap() -> None:
    bots = names(30)  # C(30, 4) = 27405 tables: too many
    schedule = make_schedule(bots, players=4, seed=1)
    assert len(schedule.tables) == MAX_TABLES
    assert len(schedule) == MAX_TABLES * 4
    plays, _ = _spread(list(schedule.tables), bots)
    assert max(plays.values()) - min(plays.values()) <= 1


@pytest.mark.parametrize("kind", ["round-robin", "gauntlet"])
def test_the_schedule_is_a_pure_function_of_its_inputs(kind: str) -> None:
    def build() -> list[Pairing]:
        return list(make_schedule(names(7), players=3, kind=kind, candidate="bot03",
                                  games_per_table=6, seed=99))
    assert build() == build()
    design = [balanced_tables(names(15), 4, tables=25, seed=3) for _ in range(2)]
    assert design[0] == design[1]
    assert balanced_tables(names(15), 4, tables=25, seed=4) != design[0]


def test_schedule_seed_changes_deals_not_tables() -> None:
    a = make_schedule(names(5), players=2, seed=1)
    b = make_schedule(names(5), players=2, seed=2)
    assert [p.seats for p in a] == [p.seats for p in b]
    assert [p.seed for p in a] != [p.seed for p in b]
