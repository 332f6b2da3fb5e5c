"""Combinations on the table, for the laying family (R51, MAR): what one counts, what a
table joker stands for (COM-15), a new combination, an addition, a joker taken back.

>>> from arena.cards import parse_cards
>>> import arena.variants  # registers R51's combinations and rule IDs
>>> R51 = LayingRules(prefix="R51")
>>> meld_points(parse_cards("QS KS AS"), ace=10), meld_points(parse_cards("AH 2H 3H"), ace=10)
(30, 6)
>>> [str(c) for c in joker_readings(parse_cards("6H 7H"), R51)]
['5H', '8H']
>>> meld = build_meld([Placed.parse("JK=8H"), Placed.parse("6H"), Placed.parse("7H")], R51,
...                   owner=0)
>>> [str(c) for c in meld.cards], meld_points(resolved(meld), ace=10)
(['6H', '7H', 'JK'], 21)
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.actions import Placed
from arena.cards import Card
from arena.engine.melds import NO_WILDS, MeldCheck, check_meld, meld_kinds
from arena.engine.rules import LayingRules
from arena.engine.view import TableMeld
from arena.errors import IllegalAction


def is_set(cards: Sequence[Card]) -> bool:
    """All of one rank (cards as they stand, a joker read as its card)."""
    return len({c.rank for c in cards}) == 1


def is_low(cards: Sequence[Card]) -> bool:
    """A run with its ace low (A-2-3...), where the ace counts 1 (R51-5, MAR-7). A run of all
    13 ranks is also 2-...-K-A, so its ace is read high, the count the player can claim."""
    ranks = {c.rank for c in cards}
    return len(ranks) > 1 and 2 in ranks and 13 not in ranks


def meld_points(cards: Sequence[Card], *, ace: int) -> int:
    """R51-5, MAR-7: the count of a combination given as the cards it stands for."""
    low = is_low(cards)
    return sum((1 if low else ace) if c.rank == 1 else min(c.rank, 10) for c in cards)


def resolved(meld: TableMeld) -> tuple[Card, ...]:
    """The cards a table combination stands for: each joker read as its card (COM-15)."""
    return tuple(c if s is None else s for c, s in zip(meld.cards, meld.stands_for,
                                                        strict=True))


def is_franc(meld: TableMeld) -> bool:
    """A combination without a joker (MAR-6)."""
    return not any(c.is_joker for c in meld.cards)


def joker_readings(naturals: Sequence[Card], rules: LayingRules) -> list[Card]:
    """Every card a joker may stand for beside ``naturals`` (COM-15), in rank or suit order."""
    first = naturals[0]
    same_rank = [Card.of(first.rank, s) for s in range(4)]
    same_suit = [Card.of(r, first.suit) for r in range(1, 14)]
    fits = [c for c in dict.fromkeys(same_rank + same_suit)
            if meld_kinds([*naturals, c], rules.melds, NO_WILDS)]
    high = any(c.rank == 13 for c in naturals)  # an ace beside a king is high
    return sorted(fits, key=lambda c: 14 if high and c.rank == 1 else c.rank)


def _joker_card(naturals: Sequence[Card], named: Card | None, rules: LayingRules,
                where: str) -> Card:
    """COM-15: the card a joker stands for: named by the player, or the only one that fits.
    In a set any missing suit will do, so the first is taken."""
    readings = joker_readings(naturals, rules)
    choices = " or ".join(f"JK={c}" for c in readings)
    if named is not None:
        if named not in readings:
            raise IllegalAction(f"{where}: the joker cannot stand for {named} here"
                                + (f" (it may be {choices})" if readings else ""), rule="COM-15")
        return named
    if len(readings) == 1 or (readings and is_set(naturals)):
        return readings[0]
    raise IllegalAction(f"{where}: two cards fit, name the one the joker stands for: {choices}",
                        rule="COM-15")


def table_meld(owner: int, entries: Sequence[tuple[Card, Card | None]]) -> TableMeld:
    """A table combination with its cards in order: a run by rank, a set by suit."""
    stands = [c if s is None else s for c, s in entries]
    as_set, high = is_set(stands), not is_set(stands) and not is_low(stands)
    order = sorted(range(len(entries)), key=lambda i: (
        stands[i].suit if as_set else 14 if high and stands[i].rank == 1 else stands[i].rank,
        entries[i][0].is_joker))
    return TableMeld(owner, tuple(entries[i][0] for i in order),
                     tuple(entries[i][1] for i in order))


def _check_names(placed: Sequence[Placed], where: str) -> None:
    for p in placed:
        if p.stands_for is not None and not p.card.is_joker:
            raise IllegalAction(f"{where}: only a joker stands for another card, not {p}",
                                rule="COM-15")


def _refuse(check: MeldCheck, where: str, rule: str | None = None) -> IllegalAction:
    cited, _, text = (check.reason or "").partition(": ")
    return IllegalAction(f"{where}: {text}" if rule is None else f"{where}: {cited}: {text}",
                         rule=rule or cited)


def build_meld(placed: Sequence[Placed], rules: LayingRules, *, owner: int,
               where: str = "meld") -> TableMeld:
    """A new combination (R51-6, MAR-6), its joker read as a card (COM-15)."""
    _check_names(placed, where)
    check = check_meld([p.card for p in placed], rules.melds, NO_WILDS)
    if not check.valid:
        raise _refuse(check, where)
    naturals = [p.card for p in placed if not p.card.is_joker]
    entries: list[tuple[Card, Card | None]] = [(c, None) for c in naturals]
    entries += [(p.card, _joker_card(naturals, p.stands_for, rules, where))
                for p in placed if p.card.is_joker]
    return table_meld(owner, entries)


def add_to_meld(meld: TableMeld, placed: Sequence[Placed], rules: LayingRules, *,
                where: str = "lay") -> TableMeld:
    """R51-13, MAR-11: an addition that keeps the combination valid. A run's joker keeps its
    card; a set's joker stands for any missing suit, so it is read again (COM-15)."""
    _check_names(placed, where)
    stands = resolved(meld)
    jokers = [p for p in placed if p.card.is_joker]
    if len(jokers) + sum(c.is_joker for c in meld.cards) > 1:
        raise IllegalAction(f"{where}: a combination holds at most one joker",
                            rule=rules.rule("combo"))
    added = [p.card for p in placed if not p.card.is_joker]
    if is_set(stands):
        naturals = [c for c in meld.cards if not c.is_joker] + added
        old = next((s for s in meld.stands_for if s is not None), None)
        named = jokers[0].stands_for if jokers else old if old not in added else None
        has_joker = bool(jokers) or old is not None
        cards = naturals + [Card.JOKER] * has_joker
        check = check_meld(cards, rules.melds, NO_WILDS)
        if not check.valid:
            raise _refuse(check, where, rules.rule("rights"))
        entries: list[tuple[Card, Card | None]] = [(c, None) for c in naturals]
        if has_joker:
            entries.append((Card.JOKER, _joker_card(naturals, named, rules, where)))
        return table_meld(meld.owner, entries)
    taker = next((c for c in added if c in meld.stands_for), None)
    if taker is not None:
        raise IllegalAction(f"{where}: the joker stands for {taker}: put it down with a "
                            f"take-back (take N {taker}) to get the joker",
                            rule=rules.rule("rights"))
    fixed = list(stands) + added
    check = check_meld(fixed + [Card.JOKER] * len(jokers), rules.melds, NO_WILDS)
    if not check.valid or check.kind == "set":
        raise _refuse(check, where, rules.rule("rights"))
    entries = [*zip(meld.cards, meld.stands_for, strict=True), *((c, None) for c in added)]
    entries += [(p.card, _joker_card(fixed, p.stands_for, rules, where)) for p in jokers]
    return table_meld(meld.owner, entries)


def may_fit(card: Card, meld: TableMeld) -> bool:
    """A quick test that ``card`` could be added to ``meld`` (:func:`add_to_meld` decides)."""
    if card.is_joker:
        return Card.JOKER not in meld.cards
    stands = resolved(meld)
    if is_set(stands):
        return card.rank == stands[0].rank and len(stands) < 4
    if card.suit != stands[0].suit:
        return False
    ranks = [14 if c.rank == 1 and not is_low(stands) else c.rank for c in stands]
    low, high = min(ranks), max(ranks)
    return card.rank in (low - 1, high + 1) or (card.rank == 1 and high == 13)


def takes_back(meld: TableMeld, card: Card) -> bool:
    """R51-13, MAR-11: ``card`` takes the meld's joker back: the exact card it stands for, or
    in a set any card of the rank in a missing suit."""
    if card.is_joker or Card.JOKER not in meld.cards:
        return False
    stands = resolved(meld)
    if is_set(stands):
        suits = {c.suit for c in meld.cards if not c.is_joker}
        return card.rank == stands[0].rank and card.suit not in suits
    return card in meld.stands_for


def take_back(meld: TableMeld, card: Card, rules: LayingRules, *,
              where: str = "take") -> TableMeld:
    """The combination with ``card`` in place of its joker, which goes to the player's hand."""
    if not takes_back(meld, card):
        joker = next((s for s in meld.stands_for if s is not None), None)
        why = "the combination holds no joker" if joker is None else \
            f"the joker stands for {joker}" + (", or another missing suit of its rank"
                                               if is_set(resolved(meld)) else "")
        raise IllegalAction(f"{where}: {card} does not take the joker back: {why}",
                            rule=rules.rule("rights"))
    entries = [(card, None) if c.is_joker else (c, s)
               for c, s in zip(meld.cards, meld.stands_for, strict=True)]
    return table_meld(meld.owner, entries)
