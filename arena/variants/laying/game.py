"""Laying combinations on the table: the machinery Rummy 51 (R51) and Moroccan rummy (MAR) share.

Both variants are the same game with different data: a :class:`LayingRules` value says what a
first lay-down needs, who may add to the table and what cards pay. This module holds the rules
both read (what a combination counts, what a table joker stands for (COM-15), new
combinations, additions, joker take-backs, going out at once) and :class:`LayingGame`, the
turn both play: draw, lay, discard, with the remedy for a taken discard that is not laid.

>>> from arena.cards import parse_cards
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar

from arena.actions import Action, Draw, Placed, Play, Source
from arena.cards import Card
from arena.engine.game import Game, HandReport
from arena.engine.melds import (
    NO_WILDS,
    Meld,
    MeldCheck,
    check_meld,
    complete_arrangement,
    meld_kinds,
    min_deadwood,
)
from arena.engine.options import resolve_options
from arena.engine.rules import LayingRules
from arena.engine.view import PublicEvent, TableMeld
from arena.errors import BadInput, IllegalAction

# --------------------------------------------------------------------------- combinations


def is_set(cards: Sequence[Card]) -> bool:
    """All of one rank (cards as they stand, a joker read as its card)."""
    return len({c.rank for c in cards}) == 1


def is_low(cards: Sequence[Card]) -> bool:
    """A run with its ace low (A-2-3...), where the ace counts 1 (R51-5, MAR-7)."""
    return not is_set(cards) and any(c.rank == 2 for c in cards)


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


# --------------------------------------------------------------------------- one play


@dataclass(frozen=True, slots=True)
class Laid:
    """A play's lays, checked and made on copies: the table and hand they leave."""

    table: tuple[TableMeld, ...]
    hand: tuple[Card, ...]
    new: tuple[TableMeld, ...]
    events: tuple[PublicEvent, ...]
    jokers_laid: bool


def placed_cards(play: Play) -> list[Card]:
    """Every card the play puts on the table: in new combinations, additions, take-backs."""
    out = [p.card for m in play.melds for p in m]
    out += [p.card for lo in play.layoffs for p in lo.cards]
    return out + [t.card for t in play.takebacks]


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
            raise IllegalAction(f"{where}: the table has combinations 0 to {start - 1}",
                                rule=rules.rule("rights"))
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
    return Laid(tuple(melds + new), tuple(rest), tuple(new), tuple(events), jokers)


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


# --------------------------------------------------------------------------- whole hand


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


# --------------------------------------------------------------------------- the engine


class LayingGame(Game):
    """The turn of a laying variant: draw, lay (new combinations, additions, take-backs),
    discard; the first lay-down rules, the remedy of R51-9 / MAR-8 and scoring by hand."""

    first_cycle_rule: ClassVar[str]

    @classmethod
    def laying_rules(cls, options: Mapping[str, Any]) -> LayingRules:
        """The rules value for resolved options (variant hook)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ round

    def start_laying(self) -> None:
        """After the deal: the dealer starts with his play decision, having no draw."""
        self.rules = self.laying_rules(self.options)
        self.wilds = NO_WILDS
        self.values = self.rules.values()
        self.opened = [False] * self.players
        self.laid = [False] * self.players
        self.best_opening = 0
        self.first_cycle = True
        self.tournante: Card | None = None
        self.to_act, self.decision = self.dealer, "play"

    def partner(self, seat: int) -> int | None:
        """R51-1: the seat opposite in team play."""
        return (seat + 2) % 4 if self.rules.teams else None

    def is_opened(self, seat: int) -> bool:
        """Opened himself, or (R51-12) treated as opened because his partner has."""
        mate = self.partner(seat)
        return self.opened[seat] or (mate is not None and self.opened[mate])

    def threshold(self) -> int | None:
        """R51-11, MAR-10: the base, or one more than the best first lay-down so far."""
        base = self.rules.opening
        return None if base is None else max(base, self.best_opening + 1)

    def next_seat(self) -> None:
        super().next_seat()
        if self.first_cycle and self.to_act == self.dealer:
            self.end_first_cycle()

    def end_first_cycle(self) -> None:
        """R51-8 (d), MAR-5: the turn is back with the dealer."""
        self.first_cycle = False

    # ------------------------------------------------------------------ draw

    def legal_draws(self) -> tuple[Source, ...]:
        if self.first_cycle:
            return ("stock", "tournante") if self.tournante is not None else ("stock",)
        top = self.pile[-1] if self.pile else None
        if top is None or len(self.hands[self.to_act]) < 2 or (top.is_joker
                                                                and not self.rules.take_joker):
            return ("stock",)
        return ("stock", "discard")

    def draw_refused(self, source: Source) -> IllegalAction:
        rules = self.rules
        if source == "tournante":
            return IllegalAction("the tournante is taken only in the first cycle, once"
                                 if rules.prefix == "R51" else "this variant has no tournante",
                                 rule=self.first_cycle_rule)
        if self.first_cycle:
            return IllegalAction("nobody takes the discard in the first cycle",
                                 rule=rules.rule("cycle"))
        if not self.pile:
            return IllegalAction("the discard pile is empty", rule=rules.rule("take"))
        if len(self.hands[self.to_act]) < 2:
            return IllegalAction("a player who holds one card draws from the stock",
                                 rule=rules.rule("take"))
        return IllegalAction("a discarded joker can never be taken", rule=rules.rule("take"))

    def take_from(self, source: Source) -> Card:
        if source == "tournante":
            card, self.tournante = self.tournante, None
            assert card is not None
            return card
        return self.pile.pop()

    # ------------------------------------------------------------------ the remedy

    def apply(self, action: Action) -> None:
        """As :meth:`Game.apply`, except that a play that does not lay a discard it had to lay
        gets the remedy instead (R51-9, MAR-8): the card goes back, the stock is drawn, and the
        seat is asked again. It is logged as the ``stock`` draw it amounts to."""
        self.remedy = None
        if self.finished or not self.remedy_due(action):
            super().apply(action)
            return
        seat, card = self.to_act, self.turn.drawn
        assert card is not None
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.history.append(PublicEvent(seat, "return", (card,)))
        self.draws -= 1  # COM-9: an undone take does not count; the stock draw does
        self.remedy = (f"{self.rules.rule('take')}: the taken discard {card} was not laid: it "
                       "goes back on the pile and the top stock card is drawn instead")
        self.decision = "draw"
        super().apply(Draw("stock"))

    def remedy_due(self, action: Action) -> bool:
        """A discard taken this turn that must be laid, and an answer that does not lay it
        (or asks for the stock instead)."""
        if self.decision != "play" or self.turn.source != "discard" \
                or not self.rules.must_lay_taken:
            return False
        if isinstance(action, Draw):
            return action.source == "stock"
        return self.turn.drawn not in placed_cards(action)

    # ------------------------------------------------------------------ play

    def check_play(self, seat: int, play: Play) -> None:
        if not self.remedy_due(play):
            self.checked(seat, play)

    def checked(self, seat: int, play: Play) -> tuple[Laid, int | None]:
        """The play's lays made on copies, and the opening count if they open; or raise."""
        rules = self.rules
        if play.declare:
            raise IllegalAction("there is no declaration here: lay the cards, then discard "
                                "the last one", rule=rules.rule("turn"))
        may_lay = rules.lay_in_first_cycle or not self.first_cycle
        if play.lays_anything and not may_lay:
            raise IllegalAction("nothing is laid in the first cycle, not even a whole hand",
                                rule=rules.rule("cycle"))
        laid = lay_cards(self.hands[seat], self.table, play, rules, seat=seat)
        count = check_rights(laid, play, rules, opened=self.is_opened(seat), may_lay=may_lay,
                             threshold=self.threshold())
        card = play.discard
        if card is None:
            raise IllegalAction("the play must end with a discard", rule=rules.rule("turn"))
        if card not in laid.hand:
            raise IllegalAction(f"{card} is not in the hand after laying; a card must be left "
                                "for the discard", rule=rules.rule("turn"))
        if self.turn.source in ("discard", "tournante") and card == self.turn.drawn:
            raise IllegalAction(f"{card} was taken from the {self.turn.source} this turn and "
                                "may not be discarded", rule="COM-11")
        return laid, count

    def apply_play(self, seat: int, play: Play) -> None:
        laid, count = self.checked(seat, play)
        assert play.discard is not None
        sec = play.lays_anything and self.rami_sec(seat)
        self.table, self.hands[seat] = list(laid.table), list(laid.hand)
        self.history += laid.events
        self.laid[seat] = self.laid[seat] or play.lays_anything
        if count is not None:
            self.opened[seat] = True
            self.best_opening = max(self.best_opening, count)
        self.discard(seat, play.discard)
        if self.hands[seat]:
            self.end_turn()
        else:  # R51-15, MAR-14: the last card is discarded
            self.end_round("rami_sec" if sec else "out", self.out_penalties(seat, rami_sec=sec))

    def rami_sec(self, seat: int) -> bool:
        """R51-14: he had laid nothing before this turn (MAR-15 narrows it)."""
        return not self.laid[seat]

    # ------------------------------------------------------------------ scoring

    def card_value(self, card: Card) -> int:
        return self.values[card.code]

    def hand_points(self, hand: Sequence[Card]) -> int:
        """Every card left in hand is charged (COM-7), as for a player who has opened."""
        return sum(self.values[c.code] for c in hand)

    def penalty(self, seat: int) -> int:
        """R51-16, MAR-16: the hand's cards, or R51's flat charge for a seat never opened."""
        flat = self.rules.never_opened_pays
        if flat is not None and not self.is_opened(seat):
            return flat
        return self.hand_points(self.hands[seat])

    def out_penalties(self, winner: int, *, rami_sec: bool) -> list[int]:
        """What each seat pays when ``winner`` has gone out."""
        sec = self.rules.rami_sec_pays if rami_sec else None
        own = [0 if s == winner else sec if sec is not None else self.penalty(s)
               for s in range(self.players)]
        return self.by_team(own, winner)

    def forced_end(self, reason: str) -> None:
        """R51-21, MAR-19: nobody has won; every seat pays (R51-16, MAR-16)."""
        self.end_round(reason, self.by_team([self.penalty(s) for s in range(self.players)],
                                            None))

    def by_team(self, own: list[int], winner: int | None) -> list[int]:
        """R51-17: partners both carry their team's sum; the winner's team pays 0."""
        mates = [self.partner(s) for s in range(self.players)]
        return [own[s] if m is None else 0 if winner in (s, m) else own[s] + own[m]
                for s, m in enumerate(mates)]

    # ------------------------------------------------------------------ views

    def view_extras(self, seat: int) -> dict[str, Any]:
        return {"opened": tuple(self.is_opened(s) for s in range(self.players)),
                "threshold": self.threshold(), "tournante": self.tournante,
                "first_cycle": self.first_cycle, "rules": self.rules}

    def all_cards(self) -> list[Card]:
        """Every card of the round: hands, stock, pile, table and the tournante."""
        out = [c for h in self.hands for c in h] + self.stock + self.pile
        out += [c for m in self.table for c in m.cards]
        return out + ([self.tournante] if self.tournante is not None else [])

    # ------------------------------------------------------------------ calculators

    @classmethod
    def hand_report(cls, cards: Sequence[Card], *, wild: Card | None, round: int | None,
                    options: Mapping[str, Any]) -> HandReport:
        """Every card in hand pays (COM-7), so ``points`` is the whole hand as if opened; the
        melds are a best split, for information; ``valid_declaration``: the cards but one can
        be laid at once by a player who has not opened (going out)."""
        rules = cls._calculator_rules(wild, round, options)
        values = rules.values()
        best = min_deadwood(cards, rules.melds, NO_WILDS, values)
        assert best is not None
        return HandReport(variant=cls.version, cards=tuple(cards), wild=None, melds=best.melds,
                          deadwood=best.deadwood, points=sum(values[c.code] for c in cards),
                          valid_declaration=whole_hand(cards, rules) is not None)

    @classmethod
    def meld_report(cls, cards: Sequence[Card], *, wild: Card | None, round: int | None,
                    options: Mapping[str, Any]) -> MeldCheck:
        """One combination: ``pure_sequence`` is a run without a joker (a MAR franc suite)."""
        return check_meld(cards, cls._calculator_rules(wild, round, options).melds, NO_WILDS)

    @classmethod
    def _calculator_rules(cls, wild: Card | None, round: int | None,
                          options: Mapping[str, Any]) -> LayingRules:
        if wild is not None or round is not None:
            raise BadInput(f"{cls.name}: --wild and --round do not apply: the printed jokers "
                           "are the only wild cards")
        return cls.laying_rules(resolve_options(cls.name, cls.OPTIONS, options))
