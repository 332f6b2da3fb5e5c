"""The whole hand at once, for the laying family: going out in one turn (R51-14, MAR-12),
MAR Simple's all-at-once lay-down (MAR-13), the franc tierce and suite of MAR-9."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from arena.actions import Placed
from arena.cards import Card
from arena.engine.melds import NO_WILDS, Meld
from arena.engine.rules import LayingRules
from arena.engine.solver import complete_arrangement
from arena.variants.laying.table import (
    is_set,
    joker_readings,
    meld_points,
)


def franc_tierces(cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    """Every joker-free set the cards can make, one card per suit (MAR-6)."""
    out: list[tuple[Card, ...]] = []
    for rank in sorted({c.rank for c in cards if not c.is_joker}):
        suits = sorted({c for c in cards if c.rank == rank and not c.is_joker})
        for size in (3, 4):
            out += combinations(suits, size)
    return out


def _complete(cards: Sequence[Card], rules: LayingRules, franc: bool) -> tuple[Meld, ...] | None:
    """Some split of all the cards into combinations; with ``franc``, one holding a franc
    tierce and a franc suite."""
    found = complete_arrangement(cards, rules.melds, NO_WILDS, min_pure=int(franc))
    if found is None or not franc or any(m.kind == "set" and Card.JOKER not in m.cards
                                         for m in found.melds):
        return None if found is None else found.melds
    for tierce in franc_tierces(cards):
        rest = list(cards)
        for c in tierce:
            rest.remove(c)
        sub = complete_arrangement(rest, rules.melds, NO_WILDS, min_pure=1)
        if sub is not None:
            return (Meld("set", tierce), *sub.melds)
    return None


def whole_hand(cards: Sequence[Card], rules: LayingRules, *, opened: bool = False,
               kept: Card | None = None) -> tuple[tuple[Meld, ...], Card] | None:
    """Combinations for all the cards but one, and that card (the discard), or None.

    R51-14, MAR-12, MAR-13: a player who has not opened lays only new combinations, with a
    franc tierce and a franc suite in MAR and no joker in Rummy 71 (R51-19). ``kept`` (taken
    this turn, COM-11) is never the discard."""
    if len(cards) < 4:
        return None  # a combination and the discard at least
    franc = rules.franc and not opened
    jokers = [c for c in cards if c.is_joker]
    if rules.joker_free_opening and not opened and jokers:
        if len(jokers) > 1 or kept == Card.JOKER:
            return None
        spares: list[Card] = jokers[:1]
    else:
        found = complete_arrangement(cards, rules.melds, NO_WILDS, min_pure=int(franc),
                                     spare=True)
        if found is None:
            return None  # no card can be spared: most hands end here
        first = found.deadwood[0]
        if first != kept and not franc:
            return found.melds, first
        spares = [first] if first != kept else []
        spares += sorted({c for c in cards if c not in (kept, first)},
                         key=lambda c: (c.is_joker, c.code))
    for spare in spares:
        melds = _complete(_without(cards, spare), rules, franc)
        if melds is not None:
            return melds, spare
    return None


def _without(cards: Sequence[Card], card: Card) -> list[Card]:
    rest = list(cards)
    rest.remove(card)
    return rest


def placed_meld(cards: Sequence[Card], rules: LayingRules) -> tuple[Placed, ...]:
    """A solver's combination as placed cards, its joker named where two cards fit (the one
    that counts most)."""
    naturals = [c for c in cards if not c.is_joker]
    out = [Placed(c) for c in naturals]
    for _ in range(len(cards) - len(naturals)):
        readings = joker_readings(naturals, rules)
        if len(readings) > 1 and not is_set(naturals):
            best = max(readings, key=lambda r: meld_points([*naturals, r], ace=rules.ace))
            out.append(Placed(Card.JOKER, best))
        else:
            out.append(Placed(Card.JOKER))
    return tuple(out)
