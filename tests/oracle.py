"""A brute-force reference for the best-arrangement solver (COM-7), slow but plainly correct.

It tries every way to split a hand into disjoint groups plus leftover cards, and asks
:func:`arena.engine.melds.meld_kinds` (the trusted check of one combination) about each group.
For every split it records a :class:`Profile`; the questions the solver answers are then
simple filters over the set of profiles. Only meant for hands of up to about 10 cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import NamedTuple

from arena.cards import Card
from arena.engine.melds import Kind, MeldRules, WildSpec, meld_kinds

Hand = tuple[Card, ...]


class Profile(NamedTuple):
    """What one split of a hand achieves; split details are dropped, only counts matter."""

    deadwood: int  # value of the cards left outside every group
    leftover: int  # how many cards are left outside every group
    sequences: int  # groups that can be read as a sequence (pure or impure)
    pures: int  # groups that can be read as a pure sequence


class Oracle:
    """Every achievable profile of a hand under one variant's rules, wilds and values."""

    def __init__(self, rules: MeldRules, wilds: WildSpec, values: Sequence[int]) -> None:
        self.rules = rules
        self.wilds = wilds
        self.values = values
        self._kinds: dict[Hand, set[Kind]] = {}
        self._profiles: dict[Hand, frozenset[Profile]] = {}

    def kinds(self, group: Hand) -> set[Kind]:
        """``meld_kinds`` of one group, remembered."""
        if group not in self._kinds:
            self._kinds[group] = meld_kinds(group, self.rules, self.wilds)
        return self._kinds[group]

    def profiles(self, hand: Sequence[Card]) -> frozenset[Profile]:
        """Profiles of every split of ``hand`` into groups and leftover cards."""
        return self._split(tuple(sorted(hand)))

    def _split(self, rem: Hand) -> frozenset[Profile]:
        if not rem:
            return frozenset({Profile(0, 0, 0, 0)})
        if rem in self._profiles:
            return self._profiles[rem]
        first, rest = rem[0], rem[1:]
        out: set[Profile] = set()
        # The first card is left over ...
        for p in self._split(rest):
            out.add(p._replace(deadwood=p.deadwood + self.values[first.code],
                               leftover=p.leftover + 1))
        # ... or it is in a group with two or more of the other cards.
        for group, others in _groups_with(first, rest):
            kinds = self.kinds(group)
            if not kinds:
                continue
            is_pure = "pure_sequence" in kinds
            is_seq = is_pure or "sequence" in kinds
            for p in self._split(others):
                out.add(p._replace(sequences=p.sequences + is_seq, pures=p.pures + is_pure))
        self._profiles[rem] = frozenset(out)
        return self._profiles[rem]

    def min_deadwood(self, hand: Sequence[Card], *, need_pure: bool = False) -> int | None:
        """Least deadwood value, optionally over splits with a pure sequence; None if none."""
        costs = [p.deadwood for p in self.profiles(hand) if p.pures >= 1 or not need_pure]
        return min(costs, default=None)

    def can_complete(self, hand: Sequence[Card], *, min_sequences: int = 0,
                     min_pure: int = 0, spare: int = 0) -> bool:
        """Does some split leave exactly ``spare`` cards over, with enough (pure) sequences?"""
        return any(p.leftover == spare and p.sequences >= min_sequences and p.pures >= min_pure
                   for p in self.profiles(hand))


def _groups_with(first: Card, rest: Hand) -> Iterator[tuple[Hand, Hand]]:
    """Each group of ``first`` plus 2 or more cards of ``rest``, with the cards not taken.

    ``rest`` is sorted, so picking either of two identical cards gives equal tuples; those
    repeats are skipped.
    """
    seen: set[Hand] = set()
    for k in range(2, len(rest) + 1):
        for picked in combinations(range(len(rest)), k):
            group = (first, *(rest[i] for i in picked))
            if group in seen:
                continue
            seen.add(group)
            yield group, tuple(c for i, c in enumerate(rest) if i not in picked)


def target_kinds(cards: Sequence[Card], rules: MeldRules, wilds: WildSpec) -> set[Kind]:
    """Kinds of one group, found another way than ``meld_kinds``: by trying every full run
    and every set the group could spell, and matching its natural cards into it.

    Each wild that may stand for itself (IND-9, TT-8) is tried both ways.
    """
    kinds: set[Kind] = set()
    size = len(cards)
    duals = [c for c in cards if wilds.is_dual(c)]
    fixed = [c for c in cards if not wilds.is_wild(c)]
    for k in range(len(duals) + 1):
        for as_self in combinations(duals, k):
            naturals = Counter(fixed) + Counter(as_self)
            n_wild = size - sum(naturals.values())
            if n_wild > rules.max_wilds or (rules.need_natural and not naturals):
                continue
            if any(naturals <= Counter(run) for run in _runs(size, rules)):
                kinds.add("sequence" if n_wild else "pure_sequence")
            if _spells_a_set(naturals, size, rules):
                kinds.add("set")
    return kinds


def _runs(size: int, rules: MeldRules) -> Iterator[list[Card]]:
    """Every run of ``size`` cards: each suit, each first rank; the ace high as rank 14."""
    if not 3 <= size <= 13:
        return
    top = 14 if rules.ace_high else 13
    for suit in range(4):
        for first in range(1, top - size + 2):
            yield [Card.of(r if r != 14 else 1, suit) for r in range(first, first + size)]


def _spells_a_set(naturals: Counter[Card], size: int, rules: MeldRules) -> bool:
    if not 3 <= size <= rules.max_set or len({c.rank for c in naturals}) > 1:
        return False
    return rules.set_duplicates or all(n == 1 for n in naturals.values())
