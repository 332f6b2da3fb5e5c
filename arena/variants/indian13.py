"""Indian Rummy, 13 cards (docs/rules.md, section IND): indicator wilds, pure sequence, 80 cap."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arena.actions import Placed, Play
from arena.cards import Card, deck, format_cards
from arena.engine.game import Game, HandReport, MeldReport
from arena.engine.melds import Arrangement, MeldRules, WildSpec, check_meld
from arena.engine.options import (
    MAX_DEALS,
    OptionSpec,
    draw_cap,
    int_in,
    match_of,
    one_of,
    resolve_options,
)
from arena.engine.results import RoundEnd
from arena.engine.solver import complete_arrangement, deadwood_points, min_deadwood
from arena.engine.view import EventKind, PublicEvent, View, ViewPart
from arena.errors import BadInput, IllegalAction

IND_MELDS = MeldRules(rule_run="IND-11", rule_set="IND-13", rule_wild="IND-12")

CAP = 80  # IND-22
INVALID_DECLARATION = 80  # IND-20


def wild_cards(indicator: Card, *, wild_suits: str = "colour") -> WildSpec:
    """IND-6 to IND-8: printed jokers, plus the indicator's rank in its colour (or all suits)."""
    if indicator.is_joker:
        return WildSpec.of([Card.of(1, s) for s in range(4)])  # IND-8
    suits = range(4) if wild_suits == "all" else [s for s in range(4)
                                                   if Card.of(1, s).is_red == indicator.is_red]
    return WildSpec.of([Card.of(indicator.rank, s) for s in suits])


@lru_cache(maxsize=64)
def card_values(wilds: WildSpec) -> tuple[int, ...]:
    """IND-21 and IND-10: A K Q J 10, 2-10 face value, every wild card 0; indexed by code
    (remembered: every scoring of a hand asks)."""
    values = [min(10, code % 13 + 1) if code % 13 else 10 for code in range(53)]
    for code in wilds.wild:
        values[code] = 0
    return tuple(values)


def loser_points(hand: Sequence[Card], wilds: WildSpec, values: Sequence[int]) -> int:
    """IND-22: cards in no group if some split has a pure sequence, else the whole hand; <= 80."""
    whole = sum(values[c.code] for c in hand)
    best = deadwood_points(hand, IND_MELDS, wilds, values, need_pure=True)
    return min(CAP, whole if best is None else min(best, whole))


def loser_arrangement(hand: Sequence[Card], wilds: WildSpec,
                      values: Sequence[int]) -> Arrangement | None:
    """The split behind :func:`loser_points`, or None when the whole hand pays."""
    return min_deadwood(hand, IND_MELDS, wilds, values, need_pure=True)


def declaration(cards: Sequence[Card], wilds: WildSpec) -> Arrangement | None:
    """IND-17: a split of all 13 cards with two sequences, one of them pure; None if none."""
    if len(cards) != 13:
        return None
    return complete_arrangement(cards, IND_MELDS, wilds, min_sequences=2, min_pure=1)


def declaration_refusal(cards: Sequence[Card], wilds: WildSpec) -> str | None:
    """Why ``cards`` are no valid declaration (IND-17), for a bot author; None if they are."""
    if len(cards) != 13:
        return f"IND-17: a declaration shows 13 cards, not {len(cards)}"
    if declaration(cards, wilds) is not None:
        return None
    best = loser_arrangement(cards, wilds, card_values(wilds))
    if best is None:
        return "IND-17: no pure sequence (IND-11) can be made from these cards"
    if complete_arrangement(cards, IND_MELDS, wilds, min_pure=1) is None:
        if best.deadwood:
            return (f"IND-17: the best split with a pure sequence leaves "
                    f"{format_cards(best.deadwood)} outside groups")
        return "IND-17: the cards do not all fit in groups beside a pure sequence"
    return "IND-17: the groups need a second sequence beside the pure one"


def best_declaration(hand: Sequence[Card], wilds: WildSpec) -> tuple[Card, Arrangement] | None:
    """For a 14-card hand: a card to set aside and the valid declaration it leaves."""
    if len(hand) != 14:
        return None
    found = complete_arrangement(hand, IND_MELDS, wilds, min_sequences=2, min_pure=1,
                                 spare=True)
    if found is None:
        return None
    return found.deadwood[0], Arrangement(found.melds, (), 0)


@dataclass(frozen=True, slots=True)
class IndianPart(ViewPart):
    """What an Indian Rummy view adds: the indicator, whose rank is wild (IND-3)."""

    indicator: Card
    headline_fields = (("indicator", "indicator"),)

    def wire(self) -> dict[str, Any]:
        return {"indicator": str(self.indicator)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> IndianPart:
        return cls(indicator=Card.parse(data["indicator"]))


class Indian13(Game):
    """Indian Rummy, 13 cards: declare 13 cards in sequences and sets, one sequence pure."""

    name = "indian13"
    version = "indian13/v1"
    view_part = IndianPart
    aliases = ("ind", "indian", "indian-rummy", "indian13/v1")
    draw_rule = "IND-15"
    OPTIONS = (
        OptionSpec(name="players", default=4, expected="an integer from 2 to 6",
                   check=int_in(2, 6), rule="IND-1"),
        OptionSpec(name="invalid_declaration", default="eliminate",
                   expected="'eliminate' or 'end_deal'",
                   check=one_of("eliminate", "end_deal"), rule="IND-20"),
        OptionSpec(name="wild_suits", default="colour", expected="'colour' or 'all'",
                   check=one_of("colour", "all"), rule="IND-7"),
        OptionSpec(name="match", default={"deals": 1},
                   expected=f"{{deals: N}} with N from 1 to {MAX_DEALS}",
                   check=match_of("deals", int_in(1, MAX_DEALS)), rule="IND-28"),
        draw_cap(100, "IND-25"),
    )

    @classmethod
    def hand_report(cls, cards: Sequence[Card], *, wild: Card | None, round: int | None,
                    options: Mapping[str, Any]) -> HandReport:
        """IND-17 and IND-22 for any list of cards; ``wild`` is the indicator."""
        wilds = cls._calculator_wilds(wild, round, options)
        values = card_values(wilds)
        valid = declaration(cards, wilds)
        if valid is not None:
            return HandReport(variant=cls.version, cards=tuple(cards), wild=str(wild),
                              melds=valid.melds, deadwood=(), points=0, valid_declaration=True)
        best = loser_arrangement(cards, wilds, values)
        points = loser_points(cards, wilds, values)
        melds, deadwood = (best.melds, best.deadwood) if best else ((), tuple(sorted(cards)))
        return HandReport(variant=cls.version, cards=tuple(cards), wild=str(wild), melds=melds,
                          deadwood=deadwood, points=points, valid_declaration=False,
                          reason=declaration_refusal(cards, wilds))

    @classmethod
    def view_points(cls, view: View, hand: Sequence[Card]) -> int:
        """For bots: what ``hand`` would pay if another seat declared now (IND-22)."""
        return _points(view.wilds, tuple(sorted(c.code for c in hand)))

    @classmethod
    def view_deadwood(cls, view: View, hand: Sequence[Card]) -> int:
        """For bots: what the cards outside combinations are worth with no pure sequence
        asked and no cap, a smoother measure of how far a hand is from declaring."""
        return _free_points(view.wilds, tuple(sorted(c.code for c in hand)))

    @classmethod
    def view_going_out(cls, view: View) -> Card | None:
        """For bots: the card to set aside for a valid declaration now, if there is one."""
        found = best_declaration(view.hand, view.wilds)
        return None if found is None else found[0]

    @classmethod
    def meld_report(cls, cards: Sequence[Card | Placed], *, wild: Card | None,
                    round: int | None, options: Mapping[str, Any]) -> MeldReport:
        """IND-11 to IND-13 for one group of cards."""
        plain = cls.unnamed(cards, "IND-12")
        return MeldReport.of(check_meld(plain, IND_MELDS,
                                        cls._calculator_wilds(wild, round, options)))

    @classmethod
    def deck_counts(cls, options: Mapping[str, Any]) -> Counter[Card]:
        """IND-2: two decks and two printed jokers, whatever the options."""
        resolve_options(cls.name, cls.OPTIONS, options)
        return Counter(deck(decks=2, jokers=2))

    @classmethod
    def _calculator_wilds(cls, wild: Card | None, round: int | None,
                          options: Mapping[str, Any]) -> WildSpec:
        """The calculators' wild cards: the indicator's (IND-5), never a round's."""
        if round is not None:
            raise BadInput(f"{cls.name}: --round does not apply: the indicator (--wild) alone "
                           "sets the wild cards (IND-5)")
        if wild is None:
            raise BadInput(f"{cls.name}: --wild CARD (the indicator) is required (IND-5)")
        resolved = resolve_options(cls.name, cls.OPTIONS, options)
        return wild_cards(wild, wild_suits=resolved["wild_suits"])

    def deal(self) -> None:
        """IND-2 to IND-5: 13 cards each, the indicator under the stock, one card face up."""
        cards = self.shuffled_deck(deck(decks=2, jokers=2))
        for i in range(13 * self.players):
            self.hands[(self.dealer + 1 + i) % self.players].append(cards.pop())
        self._indicator = cards.pop()
        self._part = IndianPart(indicator=self._indicator)  # one per deal: views share it
        self.pile = [cards.pop()]
        self.stock = [self._indicator, *cards]
        self.wilds = wild_cards(self._indicator, wild_suits=self.options["wild_suits"])
        self.values = card_values(self.wilds)
        self.fixed: dict[int, int] = {}  # seats eliminated this deal, with what they pay

    def game_over(self) -> bool:
        """IND-28: after ``match.deals`` deals."""
        return len(self.results) >= int(self.options["match"]["deals"])

    def indicator(self) -> Card:
        """IND-3: the card turned under the stock, which makes its rank wild."""
        return self._indicator

    def part_for(self, seat: int) -> IndianPart:
        return self._part

    def card_value(self, card: Card) -> int:
        return self.values[card.code]

    def hand_points(self, hand: Sequence[Card]) -> int:
        return loser_points(hand, self.wilds, self.values)

    def check_play(self, seat: int, play: Play) -> None:
        """IND-16: discard one card, or declare setting one aside; Indian Rummy lays nothing."""
        if play.lays_anything:
            raise IllegalAction("Indian Rummy has no laying down: discard a card or declare",
                                rule="IND-16")
        if not play.declare:
            self.check_discard(seat, play, rule="IND-16")
        elif play.discard not in self.hands[seat]:
            raise IllegalAction(f"the card set aside, {play.discard}, is not in the hand",
                                rule="IND-17")

    def apply_play(self, seat: int, play: Play) -> None:
        assert play.discard is not None
        if not play.declare:
            self.discard(seat, play.discard)
            self.end_turn()
            return
        shown = list(self.hands[seat])
        shown.remove(play.discard)
        if declaration(shown, self.wilds) is not None:
            self.history.append(self._shown(seat, "declare", shown))
            self._end_deal(RoundEnd.DECLARATION, winner=seat)
        else:
            self.history.append(self._shown(seat, "invalid", shown))
            self._invalid(seat)

    @staticmethod
    def _shown(seat: int, kind: EventKind, cards: list[Card]) -> PublicEvent:
        """IND-17, IND-20: the 13 cards of a declaration become public (COM-5)."""
        return PublicEvent(seat, kind, tuple(cards))

    def _invalid(self, seat: int) -> None:
        """IND-20: 80 for the declarer; he sits out, or the deal ends, by the option."""
        if self.options["invalid_declaration"] == "end_deal":
            self.end_round(RoundEnd.INVALID_DECLARATION,
                           [INVALID_DECLARATION if s == seat else 0 for s in range(self.players)])
            return
        self.fixed[seat] = INVALID_DECLARATION
        self.active[seat] = False
        still = [s for s in range(self.players) if self.active[s]]
        if len(still) == 1:
            self._end_deal(RoundEnd.LAST_PLAYER, winner=still[0])
        else:
            self.end_turn()

    def _end_deal(self, reason: RoundEnd, *, winner: int) -> None:
        """IND-19, IND-22: the winner 0, eliminated seats their 80, every other loser pays."""
        self.end_round(reason, [0 if s == winner else self.fixed[s] if s in self.fixed
                                else self.hand_points(self.hands[s]) for s in range(self.players)])

    def forced_end(self, reason: RoundEnd) -> None:
        """IND-25: every active seat's penalty; the lowest (all tied lowest) score 0."""
        points = {s: self.hand_points(self.hands[s]) for s in range(self.players)
                  if self.active[s]}
        low = min(points.values())
        self.end_round(reason, [self.fixed[s] if s in self.fixed else
                                (0 if points[s] == low else points[s])
                                for s in range(self.players)])


@lru_cache(maxsize=1 << 16)
def _free_points(wilds: WildSpec, codes: tuple[int, ...]) -> int:
    """IND-22's deadwood without its pure sequence or its cap, remembered as _points is."""
    values = card_values(wilds)
    free = deadwood_points([Card(c) for c in codes], IND_MELDS, wilds, values)
    return sum(values[c] for c in codes) if free is None else free


@lru_cache(maxsize=1 << 16)
def _points(wilds: WildSpec, codes: tuple[int, ...]) -> int:
    """Remembered per wild definition and multiset of cards: a bot weighing every discard
    asks about the same hands turn after turn."""
    return loser_points([Card(c) for c in codes], wilds, card_values(wilds))
