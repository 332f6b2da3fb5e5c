"""Seeded random hands for the benchmarks, the same for every script given the same seed.

Each generator seeds its own ``random.Random`` from a string naming the category, so that
``solver.py`` and ``rlcard_compare.py`` time exactly the same gin hands for one ``--seed``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import _harness  # noqa: F401  (puts the repository on sys.path)

from arena.cards import ALL_CARDS, JOKER_CODE, Card, deck
from arena.engine.melds import WildSpec
from arena.variants import indian13, three_thirteen

GIN_WILDS = WildSpec(frozenset({JOKER_CODE}), self_standing=False)  # nothing is wild
GIN_VALUES: tuple[int, ...] = (*(min(10, code % 13 + 1) for code in range(52)), 0)


@dataclass(frozen=True, slots=True)
class Deal:
    """One hand with the round's wild cards and card values (indexed by card code)."""

    hand: tuple[Card, ...]
    wilds: WildSpec
    values: Sequence[int]


def _with_wilds(rng: random.Random, pool: list[Card], wilds: WildSpec, *, size: int,
                k: int) -> tuple[Card, ...]:
    """``size`` cards from ``pool``, exactly ``k`` of them wild, in random order."""
    wild = [c for c in pool if c.code in wilds.wild]
    plain = [c for c in pool if c.code not in wilds.wild]
    hand = rng.sample(wild, k) + rng.sample(plain, size - k)
    rng.shuffle(hand)
    return tuple(hand)


def indian_deals(n: int, *, seed: int, k: int, size: int = 13) -> list[Deal]:
    """IND: an indicator turned from the 106-card deck (IND-5), then hands holding exactly
    ``k`` wild cards (printed jokers or indicator-rank cards of its colour, IND-6 to IND-8)."""
    rng = random.Random(f"indian13/{size}/{k}/{seed}")
    deals = []
    for _ in range(n):
        cards = deck(decks=2, jokers=2)
        indicator = cards.pop(rng.randrange(len(cards)))
        wilds = indian13.wild_cards(indicator)
        deals.append(Deal(_with_wilds(rng, cards, wilds, size=size, k=k), wilds,
                          indian13.card_values(wilds)))
    return deals


def three_thirteen_deals(n: int, *, seed: int, k: int, size: int = 13) -> list[Deal]:
    """TT: a wild rank from 3 to K (TT-7, all suits), hands from the 108-card deck (TT-2 with
    four jokers) holding exactly ``k`` wild cards."""
    rng = random.Random(f"three13/{size}/{k}/{seed}")
    cards = deck(decks=2, jokers=4)
    deals = []
    for _ in range(n):
        rank = rng.randrange(3, 14)
        wilds = three_thirteen.wild_cards(rank)  # all suits; TT-8: a wild may be itself
        deals.append(Deal(_with_wilds(rng, cards, wilds, size=size, k=k), wilds,
                          three_thirteen.card_values(rank)))  # TT-12: wild 15, joker 20
    return deals


def gin_hands(n: int, *, seed: int, size: int = 10) -> list[tuple[Card, ...]]:
    """Gin-style: ``size`` cards from one 52-card deck, no wild cards."""
    rng = random.Random(f"gin/{size}/{seed}")
    return [tuple(rng.sample(ALL_CARDS, size)) for _ in range(n)]
