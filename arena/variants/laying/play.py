"""One play of the laying family checked whole: the cards laid, the table after, the rights
it needs (an opening and its threshold, additions, take-backs), applied all or nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.actions import Play
from arena.cards import Card
from arena.engine.rules import LayingRules
from arena.engine.view import PublicEvent, TableMeld
from arena.errors import IllegalAction
from arena.variants.laying.table import (
    add_to_meld,
    build_meld,
    is_franc,
    is_set,
    meld_points,
    resolved,
    take_back,
)


@dataclass(frozen=True, slots=True)
class Laid:
    """A play's lays, checked and made on copies: the table and hand they leave."""

    table: tuple[TableMeld, ...]
    hand: tuple[Card, ...]
    new: tuple[TableMeld, ...]
    events: tuple[PublicEvent, ...]
    jokers_laid: bool
    own_jokers: int  # jokers the hand held before any was taken back (R51-10)


def lay_cards(hand: Sequence[Card], table: Sequence[TableMeld], play: Play,
              rules: LayingRules, *, seat: int) -> Laid:
    """Make the play's lays on copies, in order: take-backs, additions, new combinations.

    Additions and take-backs name combinations already on the table when the turn began; a
    joker taken back may be used at once (R51-13)."""
    rest, melds, start = list(hand), list(table), len(table)
    events: list[PublicEvent] = []

    def use(card: Card, where: str) -> None:
        if card not in rest:
            raise IllegalAction(f"{where}: {card} is not in the hand", rule=rules.rule("turn"))
        rest.remove(card)

    def at(index: int, where: str) -> int:
        if not 0 <= index < start:
            held = f"combinations 0 to {start - 1}" if start else "no combination yet"
            raise IllegalAction(f"{where}: the table has {held}", rule=rules.rule("rights"))
        return index

    for tb in play.takebacks:
        i = at(tb.meld, str(tb))
        use(tb.card, str(tb))
        melds[i] = take_back(melds[i], tb.card, rules, where=str(tb))
        rest.append(Card.JOKER)
        events.append(PublicEvent(seat, "take_back", (tb.card, Card.JOKER)))
    for lo in play.layoffs:
        i = at(lo.meld, str(lo))
        if not lo.cards:
            raise IllegalAction(f"{lo}: name the cards to add", rule=rules.rule("rights"))
        for p in lo.cards:
            use(p.card, str(lo))
        melds[i] = add_to_meld(melds[i], lo.cards, rules, where=str(lo))
        events.append(PublicEvent(seat, "lay", tuple(p.card for p in lo.cards)))
    new = []
    for m in play.melds:
        where = "meld " + " ".join(map(str, m))
        for p in m:
            use(p.card, where)
        new.append(build_meld(m, rules, owner=seat, where=where))
        events.append(PublicEvent(seat, "meld", new[-1].cards))
    jokers = any(p.card.is_joker for p in (*(p for m in play.melds for p in m),
                                           *(p for lo in play.layoffs for p in lo.cards)))
    return Laid(tuple(melds + new), tuple(rest), tuple(new), tuple(events), jokers,
                sum(c.is_joker for c in hand))


def has_franc_tierce_and_suite(melds: Sequence[TableMeld]) -> bool:
    """MAR-9, MAR-12, MAR-13: a joker-free set and a joker-free run among ``melds``."""
    francs = [resolved(m) for m in melds if is_franc(m)]
    return any(is_set(m) for m in francs) and any(not is_set(m) for m in francs)


def opening_count(melds: Sequence[TableMeld], rules: LayingRules) -> int:
    """R51-10, MAR-9: what new combinations count toward a first lay-down."""
    return sum(meld_points(resolved(m), ace=rules.ace) for m in melds
               if is_franc(m) or not rules.franc)


def check_rights(laid: Laid, play: Play, rules: LayingRules, *, opened: bool, may_lay: bool,
                 threshold: int | None) -> int | None:
    """Raise unless this seat may lay this now; return the count when the lays open."""
    if not play.lays_anything:
        return None
    if not may_lay:
        raise IllegalAction("nothing is laid in the first cycle, not even a whole hand",
                            rule=rules.rule("cycle"))
    whole = len(laid.hand) == 1 and not play.layoffs and not play.takebacks
    if rules.opening is None:
        if not whole or not has_franc_tierce_and_suite(laid.new):
            raise IllegalAction("Simple mode lays only the whole hand at once: all cards but "
                                "one in new combinations, with a franc tierce and a franc "
                                "suite, then the discard", rule=rules.rule("simple"))
        return None
    if opened:
        return None
    if rules.joker_free_opening and laid.jokers_laid:
        raise IllegalAction("Rummy 71: no joker is laid in the opening turn",
                            rule=rules.rule("joker"))
    if whole:  # going out at once: no threshold (R51-14, MAR-12)
        if rules.franc and not has_franc_tierce_and_suite(laid.new):
            raise IllegalAction("going out at once needs a franc tierce and a franc suite "
                                "(without a joker)", rule=rules.rule("out"))
        return None
    return _opening(laid, play, rules, threshold)


def _opening(laid: Laid, play: Play, rules: LayingRules, threshold: int | None) -> int:
    """R51-10, R51-11, MAR-9, MAR-10: the lays of a player who has not opened."""
    assert threshold is not None
    if not laid.new:
        raise IllegalAction("a player who has not opened starts with new combinations (his "
                            "opening); additions and take-backs come after",
                            rule=rules.rule("open"))
    if (play.layoffs or play.takebacks) and not rules.rights_at_opening:
        raise IllegalAction("in the turn of his first lay-down a player lays only new "
                            "combinations; additions and take-backs start next turn",
                            rule=rules.rule("rights"))
    if sum(c.is_joker for m in laid.new for c in m.cards) > laid.own_jokers:
        raise IllegalAction("a joker taken back in the opening turn never counts toward the "
                            "opening: it may go only into additions", rule=rules.rule("open"))
    if rules.franc and not has_franc_tierce_and_suite(laid.new):
        raise IllegalAction("a first lay-down needs a franc tierce and a franc suite "
                            "(without a joker)", rule=rules.rule("open"))
    count = opening_count(laid.new, rules)
    if count < threshold and len(laid.hand) == 1:
        raise IllegalAction("a player who has not opened goes out at once with new "
                            f"combinations only, no additions or take-backs (as an opening "
                            f"these count {count}, short of {threshold})", rule=rules.rule("out"))
    if count < threshold:
        base = threshold == rules.opening
        what = "franc combinations count" if rules.franc else "combinations count"
        raise IllegalAction(f"a first lay-down needs {threshold}"
                            + ("" if base else " (one more than the best so far)")
                            + f"; these {what} {count}",
                            rule=rules.rule("open" if base else "rise"))
    return count
