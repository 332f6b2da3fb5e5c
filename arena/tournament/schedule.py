"""The schedule: a pure generator of pairings that knows its total, testable without a game.

Tables of ``k`` seats are drawn from the bots: every combination when there are few enough,
otherwise a balanced design. Each table is played in every seat rotation, so every bot sits
in every seat position equally often, and each block's cyclic order evens out who sits
beside whom across the tables; with ``duplicate`` the rotations of one set share a deck (the
same game seed), so card luck cancels out.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from math import comb

MAX_TABLES = 2000


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game to play: its id, the bot names by seat, its seed and its duplicate set."""

    id: str
    table: int
    seats: tuple[str, ...]
    seed: int
    dup_set: str


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the tournament seed and a game's coordinates."""
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def round_robin_tables(bots: Sequence[str], k: int, *, seed: int,
                       max_tables: int = MAX_TABLES) -> list[tuple[str, ...]]:
    """Every k-subset of the bots, or a balanced design when there are too many."""
    if comb(len(bots), k) <= max_tables:
        return list(combinations(bots, k))
    return balanced_tables(bots, k, tables=max_tables, seed=seed)


def table_count(bots: int, players: int, kind: str = "round-robin") -> int:
    """How many tables a format draws, known without drawing them (a gauntlet of many bots
    has more than any tournament could play)."""
    if kind == "gauntlet":
        return comb(max(bots - 1, 0), players - 1)
    return min(comb(bots, players), MAX_TABLES)


def balanced_tables(bots: Sequence[str], k: int, *, tables: int,
                    seed: int) -> list[tuple[str, ...]]:
    """Greedy design: each table takes the bots that played least, then the rarest pairs."""
    rng = random.Random(seed)
    plays = dict.fromkeys(bots, 0)
    pairs: dict[tuple[str, str], int] = {}
    out: list[tuple[str, ...]] = []
    for _ in range(tables):
        table: list[str] = []
        for _ in range(k):
            def load(b: str, table: list[str] = table) -> tuple[int, int, float]:
                met = sum(pairs.get((min(b, o), max(b, o)), 0) for o in table)
                return (plays[b], met, rng.random())
            pick = min((b for b in bots if b not in table), key=load)
            table.append(pick)
        for a, b in combinations(sorted(table), 2):
            pairs[(a, b)] = pairs.get((a, b), 0) + 1
        for b in table:
            plays[b] += 1
        out.append(tuple(sorted(table, key=list(bots).index)))
    return out


def gauntlet_tables(bots: Sequence[str], k: int, candidate: str) -> list[tuple[str, ...]]:
    """The candidate against every choice of k-1 opponents."""
    others = [b for b in bots if b != candidate]
    return [(candidate, *rest) for rest in combinations(others, k - 1)]


@dataclass(frozen=True, slots=True)
class Schedule:
    """All games of a tournament, in a fixed order; ``len`` is known before any is played."""

    tables: tuple[tuple[str, ...], ...]
    games_per_table: int
    duplicate: bool
    seed: int
    orders: tuple[tuple[int, ...], ...]  # by table and block, the cyclic order played
    # (neighbour_orders)

    def __len__(self) -> int:
        return len(self.tables) * self.games_per_table

    def __iter__(self) -> Iterator[Pairing]:
        for t, table in enumerate(self.tables):
            for g in range(self.games_per_table):
                block, shift = divmod(g, len(table))
                seats = duplicate_set(table, self.orders[t][block])[shift]
                key = block if self.duplicate else g
                yield Pairing(id=f"t{t:04d}-g{g:03d}", table=t, seats=seats,
                              seed=derive_seed(self.seed, t, key),
                              dup_set=f"t{t:04d}-d{block:03d}" if self.duplicate else "")


def seating_orders(table: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The cyclic orders of a table, the given one first; a block of games plays one of them
    in every rotation. Rotations alone balance seat positions; cycling through every order
    also balances who sits to whose left (who takes whose discards), which rotations of one
    order never do. A table of k seats has (k-1)! orders, each ordered pair of neighbours
    appearing in the same number of them."""
    first, rest = table[0], table[1:]
    return [(first, *p) for p in permutations(rest)]


BALANCE_BUDGET = 2_000_000  # seat pairs weighed in choosing orders: about a second; past it
# (a gauntlet of 100,000 tables) the rest of the tables take their orders in turn


def neighbour_orders(tables: Sequence[tuple[str, ...]], blocks: int,
                     teams: Sequence[int] | None = None) -> tuple[tuple[int, ...], ...]:
    """The cyclic order each block of each table plays, as an index into its
    :func:`seating_orders`. A table's blocks go through all its orders before any comes
    again; so whole passes balance themselves, and each block of the last, partial pass
    takes, with ``teams`` (a label per seat), first the order whose partners this table and
    then the tables before have paired least; then the one whose neighbours (Y right after
    X: Y takes X's discards) the tables before have seated least often that way round. Every
    table starting on the bots' own order sat bot 1 after bot 0 in all 40 of their games and
    never the other way round (7 bots, 4 seats, 4 games a table), and in teams never made
    bots 0 and 1 partners."""
    index = {b: i for i, b in enumerate(dict.fromkeys(b for t in tables for b in t))}
    n = len(index)
    lead = [[0] * n for _ in range(n)]  # X before Y, less Y before X, so far
    paired = [[0] * n for _ in range(n)]  # partners so far
    spent = 0
    out = []
    for t, table in enumerate(tables):
        k = len(table)
        orders = _orders(k)
        if spent > BALANCE_BUDGET:  # whole passes, then the orders in turn from the table's
            out.append(tuple((t + b) % len(orders) for b in range(blocks)))  # number
            continue
        at = [index[b] for b in table]
        near = [[(at[x], at[y]) for x, y in pairs] for pairs in _neighbour_positions(k)]
        mates = [[(at[x], at[y]) for x, y in pairs]
                 for pairs in _partner_positions(k, None if teams is None else tuple(teams))]
        whole, part = divmod(blocks, len(orders))
        chosen = [i for _ in range(whole) for i in range(len(orders))]
        for i in chosen:
            _seat(near[i], mates[i], lead, paired)
        here = [[0] * n for _ in range(n)] if teams is not None else paired
        left = list(range(len(orders)))
        for _ in range(part):
            best = min(left, key=lambda i: (
                sum(here[x][y] for x, y in mates[i]), sum(paired[x][y] for x, y in mates[i]),
                sum(lead[x][y] for x, y in near[i]), i))
            spent += len(left) * k
            left.remove(best)
            _seat(near[best], mates[best], lead, paired)
            for x, y in mates[best] if teams is not None else ():
                here[x][y] += 1
                here[y][x] += 1
            chosen.append(best)
        out.append(tuple(chosen))
    return tuple(out)


def _seat(near: list[tuple[int, int]], mates: list[tuple[int, int]], lead: list[list[int]],
          paired: list[list[int]]) -> None:
    """Count one block's neighbours and partners."""
    for x, y in near:
        lead[x][y] += 1
        lead[y][x] -= 1
    for x, y in mates:
        paired[x][y] += 1
        paired[y][x] += 1


@functools.cache
def _orders(k: int) -> list[tuple[int, ...]]:
    """The cyclic orders of k seats as positions, in :func:`seating_orders`' order."""
    return [(0, *p) for p in permutations(range(1, k))]


@functools.cache
def _neighbour_positions(k: int) -> list[list[tuple[int, int]]]:
    """Per cyclic order, each seat's position beside the position before it."""
    return [[(order[i - 1], order[i]) for i in range(k)] for order in _orders(k)]


@functools.cache
def _partner_positions(k: int, teams: tuple[int, ...] | None) -> list[list[tuple[int, int]]]:
    """Per cyclic order, the positions seated as partners (none without teams)."""
    return [[(order[i], order[j]) for i, j in combinations(range(k), 2)
             if teams is not None and teams[i] == teams[j]] for order in _orders(k)]


def duplicate_set(table: tuple[str, ...], block: int,
                  keep: Callable[[tuple[str, ...]], bool] | None = None
                  ) -> list[tuple[str, ...]]:
    """The seatings of duplicate set ``block`` of a table: its block-th cyclic order (cycling
    through them all, or those ``keep`` keeps; orders that repeat, as with one bot in several
    seats, count once) and each rotation of it. The games of one set share one deck."""
    orders = list(dict.fromkeys(seating_orders(table)))
    if keep is not None:
        orders = [o for o in orders if keep(o)] or orders
    order = orders[block % len(orders)]
    return [order[shift:] + order[:shift] for shift in range(len(order))]


def make_schedule(bots: Sequence[str], *, players: int, kind: str = "round-robin",
                  candidate: str | None = None, games_per_table: int | None = None,
                  duplicate: bool = True, seed: int = 1,
                  teams: Sequence[int] | None = None) -> Schedule:
    """Build the schedule for a format; ``games_per_table`` defaults to one rotation set;
    ``teams``, a label per seat, when seats play as partners (their pairing is balanced)."""
    if kind == "gauntlet":
        if candidate is None:
            raise ValueError("a gauntlet needs a candidate")
        tables = gauntlet_tables(bots, players, candidate)
    else:
        tables = round_robin_tables(bots, players, seed=seed)
    games = games_per_table or players
    return Schedule(tuple(tables), games, duplicate, seed,
                    neighbour_orders(tables, -(-games // players), teams))
