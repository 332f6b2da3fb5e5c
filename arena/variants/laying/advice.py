"""Advice for bots in the laying family (R51, MAR): what to lay now, what the cards outside
combinations are worth; every suggestion is checked with the engine's own rules.

Bots reach it through :mod:`arena.advice`, which asks the variant.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache

from arena.actions import Lay, LayOff, Placed, TakeBack
from arena.cards import JOKER_CODE, Card
from arena.engine import solver
from arena.engine.melds import NO_WILDS
from arena.engine.rules import LayingRules
from arena.engine.solver import min_deadwood
from arena.engine.view import TableMeld, View
from arena.errors import IllegalAction
from arena.variants.laying.hand import franc_tierces, placed_meld, whole_hand
from arena.variants.laying.play import check_rights, lay_cards, opening_count
from arena.variants.laying.table import (
    add_to_meld,
    build_meld,
    is_set,
    joker_readings,
    may_fit,
    meld_points,
    resolved,
    take_back,
    takes_back,
)
from arena.variants.laying.view import LayingPart


def suggest_lay(view: View, *, taking: Card | None = None) -> Lay | None:
    """Lays this seat may make now that satisfy the first lay-down rules, going out when it
    can; None when it can lay nothing.

    With ``taking`` (in the draw decision): the lays it could make after taking that card from
    the discard pile, which must then be among them (R51-9, MAR-8)."""
    part = view.part_as(LayingPart)
    rules = part.rules
    if not part.may_lay_now():
        return None
    hand, kept = (tuple(view.hand), view.kept) if taking is None else (
        (*view.hand, taking), taking)
    must = rules.must_lay_taken and (taking is not None or view.drawn_from == "discard")
    return _first_lay(hand, view.table, rules, opened=part.has_opened(view.seat),
                      threshold=part.threshold, kept=kept, must=must)


def chance_taken(view: View, unseen: Counter[Card], held: Mapping[int, Counter[Card]],
                 cards: Sequence[Card], rng: random.Random, hands: int,
                 after: Lay | None) -> list[float]:
    """For each of ``cards``, the share of ``hands`` hands the next seat might hold (dealt
    from ``unseen`` with the cards each seat is known to hold, ``held``; hands that could lay
    nothing now) with which it could take that card from the discard pile and lay it at
    once."""
    part = view.part_as(LayingPart)
    rules = part.rules
    following = view.next_seat
    table, threshold = _table_after(view, after)
    opened = part.has_opened(following)
    pool, known = list(unseen.elements()), list(held.get(following, Counter()).elements())
    size = min(len(pool), max(0, view.hand_sizes[following] - len(known)))
    counts, dealt = [0] * len(cards), 0
    for _ in range(3 * hands):  # a hand that could lay now is dealt again, up to a point
        if dealt == hands:
            break
        hand = known + rng.sample(pool, size)
        if _first_lay(hand, table, rules, opened=opened, threshold=threshold) is not None:
            continue
        dealt += 1
        for i, card in enumerate(cards):
            counts[i] += _first_lay((*hand, card), table, rules, opened=opened,
                                    threshold=threshold, kept=card, must=True) is not None
    return [count / dealt if dealt else 0.0 for count in counts]


def _table_after(view: View, lay: Lay | None) -> tuple[Sequence[TableMeld], int | None]:
    """The table and the opening threshold once this seat has made ``lay`` (R51-11: an
    opening raises the threshold to one more than its total)."""
    part = view.part_as(LayingPart)
    if lay is None or not lay.placed:
        return view.table, part.threshold
    laid = lay_cards(view.hand, view.table, lay.play(lay.rest[0]), part.rules, seat=view.seat)
    threshold = part.threshold
    if threshold is not None and not part.has_opened(view.seat) and laid.new:
        threshold = max(threshold, opening_count(laid.new, part.rules) + 1)
    return laid.table, threshold


def _first_lay(hand: Sequence[Card], table: Sequence[TableMeld], rules: LayingRules, *,
               opened: bool, threshold: int | None, kept: Card | None = None,
               must: bool = False) -> Lay | None:
    """The first legal lay of the candidates (with ``must``, one that lays ``kept``)."""
    for lay in _lay_plans(sorted(hand), table, rules, opened, threshold, kept):
        if must and kept not in lay.placed:
            continue
        if _legal(lay, hand, table, rules, opened=opened, threshold=threshold, kept=kept):
            return lay
    return None


def deadwood_points(view: View, hand: Sequence[Card]) -> int:
    """What the cards outside the best split into combinations are worth, the part of the
    hand that laying cannot shed (a bot keeps it low)."""
    rules = view.part_as(LayingPart).rules
    return _deadwood(rules, tuple(sorted(c.code for c in hand)))


def deadwood_cards(view: View, hand: Sequence[Card]) -> int:
    """How many cards the split with the fewest left over leaves outside combinations,
    whatever they are worth: how far a hand is from being laid whole."""
    rules = view.part_as(LayingPart).rules
    return _deadwood_cards(rules, tuple(sorted(c.code for c in hand)))


def _lay_plans(hand: list[Card], table: Sequence[TableMeld], rules: LayingRules, opened: bool,
               threshold: int | None, kept: Card | None) -> list[Lay]:
    """Candidate lays, best first (the first legal one is played)."""
    out = whole_hand(hand, rules, opened=opened, kept=kept) if not opened else None
    if out is not None:
        return [Lay(melds=tuple(placed_meld(m.cards, rules) for m in out[0]), rest=(out[1],))]
    if rules.opening is None:
        return []  # MAR-13: Simple lays only the whole hand
    if opened:
        plans = [_as_opened(hand, table, rules, kept)]
    else:
        plans = [_opening(hand, table, rules, threshold, kept)]
    full = [p for p in plans if p is not None]
    return full + [Lay(melds=p.melds, takebacks=p.takebacks,
                       rest=(*p.rest, *(c.card for lo in p.layoffs for c in lo.cards)))
                   for p in full if p.layoffs]


def _legal(lay: Lay, hand: Sequence[Card], table: Sequence[TableMeld], rules: LayingRules, *,
           opened: bool, threshold: int | None, kept: Card | None) -> bool:
    """The engine's own check of a suggestion (a discard other than ``kept`` must remain)."""
    spare = next((c for c in lay.rest if c != kept), None)
    if spare is None or not lay.placed:
        return False
    play = lay.play(spare)
    try:
        laid = lay_cards(hand, table, play, rules, seat=0)
        check_rights(laid, play, rules, opened=opened, may_lay=True, threshold=threshold)
    except IllegalAction:
        return False
    return True


def _opening(hand: list[Card], table: Sequence[TableMeld], rules: LayingRules,
             threshold: int | None, kept: Card | None) -> Lay | None:
    """R51-10, MAR-9: the combinations that count most, if they reach the threshold; then
    more combinations, and in R51 joker take-backs and additions (R51-13). A joker taken
    back in the opening turn never counts toward it (R51-10): it goes only into additions."""
    if threshold is None:
        return None
    cards, now, takebacks = list(hand), list(table), list[TakeBack]()
    jokers_out = rules.franc or rules.joker_free_opening
    pool = [c for c in cards if not c.is_joker] if jokers_out else cards
    melds = _franc_melds(pool, rules) if rules.franc else _best_melds(pool, rules)
    counted = [build_meld(placed_meld(m, rules), rules, owner=0) for m in melds]
    if not melds or opening_count(counted, rules) < threshold:
        return None
    rest = _left(cards, melds)
    if not rules.joker_free_opening:  # MAR-9: combinations with a joker count 0 but may go
        extra = _best_melds(rest, rules)
        melds, rest = melds + extra, _left(rest, extra)
    if rules.rights_at_opening:
        rest, now, takebacks = _take_jokers(rest, now, rules)
    lay = Lay(melds=tuple(placed_meld(m, rules) for m in melds), takebacks=tuple(takebacks),
              rest=tuple(rest))
    if rules.rights_at_opening:
        lay = _add_to_table(lay, now, rules, jokers=not rules.joker_free_opening, kept=kept)
    return _keep_a_discard(lay, kept)


def _as_opened(hand: list[Card], table: Sequence[TableMeld], rules: LayingRules,
               kept: Card | None) -> Lay | None:
    """R51-13, MAR-11: take jokers back, lay every combination, add what fits the table."""
    cards, melds_now, takebacks = _take_jokers(hand, table, rules)
    out = whole_hand(cards, rules, opened=True, kept=kept)
    if out is not None:
        return Lay(melds=tuple(placed_meld(m.cards, rules) for m in out[0]),
                   takebacks=tuple(takebacks), rest=(out[1],))
    melds = _best_melds(cards, rules)
    lay = Lay(melds=tuple(placed_meld(m, rules) for m in melds), takebacks=tuple(takebacks),
              rest=tuple(_left(cards, melds)))
    return _keep_a_discard(_add_to_table(lay, melds_now, rules, jokers=True, kept=kept), kept)


def _take_jokers(hand: Sequence[Card], table: Sequence[TableMeld], rules: LayingRules
                 ) -> tuple[list[Card], list[TableMeld], list[TakeBack]]:
    """Take back every table joker the hand can (R51-13, MAR-11): the hand with the jokers,
    the table after, and the take-backs."""
    cards, now, takebacks = list(hand), list(table), []
    for i, meld in enumerate(now):
        card = next((c for c in cards if takes_back(meld, c)), None)
        if card is not None:
            now[i] = take_back(meld, card, rules)
            cards.remove(card)
            cards.append(Card.JOKER)
            takebacks.append(TakeBack(i, card))
    return cards, now, takebacks


def _best_melds(cards: Sequence[Card], rules: LayingRules) -> list[tuple[Card, ...]]:
    """The combinations of the split with the least value left over."""
    best = min_deadwood(cards, rules.melds, NO_WILDS, rules.values())
    return [] if best is None else [m.cards for m in best.melds]


def _franc_melds(cards: Sequence[Card], rules: LayingRules) -> list[tuple[Card, ...]]:
    """MAR-9: joker-free combinations with a franc tierce and a franc suite, counting most."""
    best: tuple[int, list[tuple[Card, ...]]] = (-1, [])
    for tierce in [(), *franc_tierces(cards)]:
        found = min_deadwood(_left(cards, [tierce]), rules.melds, NO_WILDS, rules.values(),
                             need_pure=True)
        if found is None:
            continue
        melds = [tierce] * bool(tierce) + [m.cards for m in found.melds]
        if not any(is_set(m) for m in melds):
            continue
        count = sum(meld_points(m, ace=rules.ace) for m in melds)
        best = max(best, (count, melds))
    return best[1]


def _add_to_table(lay: Lay, table: list[TableMeld], rules: LayingRules, *,
                  jokers: bool, kept: Card | None) -> Lay:
    """Add cards left in hand to the table's combinations while any fits: a card taken from
    the discard pile first (it must be laid, R51-9, MAR-8), then the costliest."""
    rest, layoffs = list(lay.rest), list(lay.layoffs)
    progress = True
    while progress:
        progress = False
        for card in sorted(set(rest), key=lambda c: (c != kept, -rules.hand_value(c), c.code)):
            if card.is_joker and not jokers:
                continue
            for i, meld in enumerate(table):
                if not may_fit(card, meld):
                    continue
                placed = _placed_on(card, meld, rules)
                try:
                    table[i] = add_to_meld(meld, [placed], rules)
                except IllegalAction:
                    continue
                rest.remove(card)
                layoffs.append(LayOff(i, (placed,)))
                progress = True
                break
            if progress:
                break
    return Lay(melds=lay.melds, layoffs=tuple(layoffs), takebacks=lay.takebacks,
               rest=tuple(rest))


def _placed_on(card: Card, meld: TableMeld, rules: LayingRules) -> Placed:
    """``card`` as an addition to ``meld``: a joker names the first card it may stand for."""
    if not card.is_joker:
        return Placed(card)
    readings = joker_readings(resolved(meld), rules)
    return Placed(card, readings[0] if len(readings) > 1 else None)


def _keep_a_discard(lay: Lay | None, kept: Card | None) -> Lay | None:
    """Give back the last additions, then the last combinations, until a card other than
    ``kept`` is left to discard; None when nothing is laid any more."""
    if lay is None:
        return None
    melds, layoffs, rest = list(lay.melds), list(lay.layoffs), list(lay.rest)
    while not any(c != kept for c in rest):
        other = [lo for lo in layoffs if all(p.card != kept for p in lo.cards)]
        if other:  # a taken card stays laid (R51-9, MAR-8) while another can come back
            layoffs.remove(other[-1])
            rest += [p.card for p in other[-1].cards]
        elif layoffs:
            rest += [p.card for p in layoffs.pop().cards]
        elif melds:
            rest += [p.card for p in melds.pop()]
        else:
            return None
    if not melds and not layoffs and not lay.takebacks:
        return None
    return Lay(melds=tuple(melds), layoffs=tuple(layoffs), takebacks=lay.takebacks,
               rest=tuple(rest))


def _left(hand: Sequence[Card], melds: Sequence[Sequence[Card]]) -> list[Card]:
    rest = list(hand)
    for meld in melds:
        for card in meld:
            rest.remove(card)
    return rest


@lru_cache(maxsize=1 << 16)
def _deadwood(rules: LayingRules, codes: tuple[int, ...]) -> int:
    points = solver.deadwood_points([Card(c) for c in codes], rules.melds, NO_WILDS,
                                    rules.values())
    return 0 if points is None else points


_ONE_EACH = (1,) * (JOKER_CODE + 1)  # every card code, the joker's included, counts 1


@lru_cache(maxsize=1 << 16)
def _deadwood_cards(rules: LayingRules, codes: tuple[int, ...]) -> int:
    cards = solver.deadwood_points([Card(c) for c in codes], rules.melds, NO_WILDS, _ONE_EACH)
    return 0 if cards is None else cards
