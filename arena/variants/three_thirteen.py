"""Three-Thirteen (docs/rules.md, section TT): 11 rounds of 3 to 13 cards, a new wild rank.

>>> from arena.cards import parse_cards
>>> hand = parse_cards("2C 3C 4C 6D KS QH")
>>> penalty(hand, wild_cards(6), card_values(6))  # TT-12 example, round 4
20
>>> str(going_out_discard(parse_cards("4H 5H 6H 9C"), None, wild_cards(3), card_values(3)))
'9C'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arena.actions import Placed, Play
from arena.cards import RANKS, Card, deck, format_cards
from arena.engine.game import Game, HandReport, MeldReport
from arena.engine.melds import Arrangement, MeldRules, WildSpec, check_meld
from arena.engine.options import OptionSpec, draw_cap, int_in, match_of, one_of, resolve_options
from arena.engine.results import RoundEnd
from arena.engine.solver import deadwood_points, min_deadwood
from arena.engine.view import PublicEvent, View, ViewPart
from arena.errors import BadInput, IllegalAction

TT_MELDS = MeldRules(ace_high=False, need_natural=False, set_duplicates=True, max_set=108,
                     rule_run="TT-9", rule_set="TT-9", rule_wild="TT-8")

ROUNDS = 11  # TT-3
WILD_POINTS = 15  # TT-12: a wild-rank card outside melds
JOKER_POINTS = 20  # TT-12: a printed joker outside melds
_KEPT = 1000  # going_out_discard: a value no real discard can reach


def round_wild_rank(round_: int) -> int:
    """TT-7: the rank equal to the cards dealt, 3 in round 1 up to K (13) in round 11."""
    return round_ + 2


def wild_cards(rank: int) -> WildSpec:
    """TT-7: every suit of the wild rank, plus printed jokers; a wild may be itself (TT-8)."""
    return WildSpec.of([Card.of(rank, s) for s in range(4)], self_standing=True)


def card_values(rank: int) -> list[int]:
    """TT-12 values indexed by code: A 1, 2-10 face, J Q K 10, wild rank 15, joker 20."""
    values = [WILD_POINTS if code % 13 + 1 == rank else min(10, code % 13 + 1)
              for code in range(52)]
    return [*values, JOKER_POINTS]


def arrangement(hand: Sequence[Card], wilds: WildSpec, values: Sequence[int]) -> Arrangement:
    """COM-7, TT-8: the split into melds (all-wild melds allowed) with the lowest penalty."""
    best = min_deadwood(hand, TT_MELDS, wilds, values, wild_meld_free=True)
    assert best is not None  # only ``need_pure`` can make the solver give up
    return best


def penalty(hand: Sequence[Card], wilds: WildSpec, values: Sequence[int]) -> int:
    """TT-12: what the cards outside the best melds cost; 0 when every card is in a meld."""
    points = deadwood_points(hand, TT_MELDS, wilds, values, wild_meld_free=True)
    assert points is not None  # only ``need_pure`` can make the solver give up
    return points


def going_out_discard(hand: Sequence[Card], kept: Card | None, wilds: WildSpec,
                      values: Sequence[int]) -> Card | None:
    """TT-10: a card (never ``kept``, COM-11) whose discard leaves only melds, or None.

    One solver pass with every card worth 1 finds a hand that is one card short of complete;
    only a hand already complete before its discard needs each candidate tried.
    """
    probe = [_KEPT if kept is not None and code == kept.code else 1 for code in range(53)]
    found = arrangement(hand, wilds, probe)
    if found.points > 1:
        return None
    pool = found.deadwood if found.points else tuple(hand)
    tokens = [c for c in hand if wilds.is_wild(c)] if found.points else []
    candidates = sorted({*pool, *tokens} - {kept},
                        key=lambda c: (wilds.is_wild(c), -values[c.code], -c.rank, c.suit))
    for card in candidates:
        rest = list(hand)
        rest.remove(card)
        if penalty(rest, wilds, values) == 0:
            return card
    return None


@dataclass(frozen=True, slots=True)
class ThreeThirteenPart(ViewPart):
    """What a Three-Thirteen view adds: the rank that is wild this round (TT-7)."""

    wild_rank: int
    headline_fields = (("wild rank", "wild_rank_name"),)

    @property
    def wild_rank_name(self) -> str:
        """The wild rank as a card shows it: J, Q, K for rounds 9 to 11, not 11 to 13."""
        return RANKS[self.wild_rank - 1]

    def wire(self) -> dict[str, Any]:
        return {"wild_rank": self.wild_rank}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ThreeThirteenPart:
        return cls(wild_rank=int(data["wild_rank"]))


class ThreeThirteen(Game):
    """Three-Thirteen: go out with every card in melds; the others pay their unmelded cards."""

    name = "three_thirteen"
    version = "three_thirteen/v1"
    aliases = ("tt", "3-13", "three-thirteen", "three_thirteen/v1")
    draw_rule = "TT-6"
    view_part = ThreeThirteenPart
    OPTIONS = (
        OptionSpec(name="players", default=4, expected="an integer from 2 to 6",
                   check=int_in(2, 6), rule="TT-1"),
        OptionSpec(name="jokers", default=0, expected="0, 2 or 4",
                   check=one_of(0, 2, 4), rule="TT-2"),
        OptionSpec(name="match", default={"rounds": ROUNDS}, expected="{rounds: 11}",
                   check=match_of("rounds", one_of(ROUNDS)), rule="TT-3"),
        draw_cap(200, "TT-15"),
    )

    # ------------------------------------------------------------------ calculators

    @classmethod
    def hand_report(cls, cards: Sequence[Card], *, wild: Card | None, round: int | None,
                    options: Mapping[str, Any]) -> HandReport:
        """TT-10 and TT-12 for any cards; the wild rank comes from ``round`` or ``wild``, and
        names the round either way (TT-7): ``--wild 7C`` is round 5, whose hands hold 7."""
        rank = cls._calculator_rank(wild, round, options)
        best = arrangement(cards, wild_cards(rank), card_values(rank))
        why = _going_out_refusal(best, len(cards), rank - 2)
        return HandReport(variant=cls.version, cards=tuple(cards), wild=RANKS[rank - 1],
                          melds=best.melds, deadwood=best.deadwood, points=best.points,
                          valid_declaration=why is None, reason=why)

    @classmethod
    def view_points(cls, view: View, hand: Sequence[Card]) -> int:
        """For bots: what ``hand`` would pay if the round ended now (TT-12)."""
        return _points(view.wilds, _view_rank(view), tuple(sorted(c.code for c in hand)))

    @classmethod
    def view_deadwood(cls, view: View, hand: Sequence[Card]) -> int:
        """For bots: the cards outside combinations, which is what TT charges (TT-12)."""
        return cls.view_points(view, hand)

    @classmethod
    def view_going_out(cls, view: View) -> Card | None:
        """For bots: the card to discard to go out now (TT-10), or None if there is none."""
        if view.decision != "play":
            return None
        return going_out_discard(view.hand, view.kept, view.wilds, card_values(_view_rank(view)))

    @classmethod
    def meld_report(cls, cards: Sequence[Card | Placed], *, wild: Card | None,
                    round: int | None, options: Mapping[str, Any]) -> MeldReport:
        """TT-8 and TT-9 for one group of cards."""
        plain = cls.unnamed(cards, "TT-8")
        rank = cls._calculator_rank(wild, round, options)
        return MeldReport.of(check_meld(plain, TT_MELDS, wild_cards(rank)))

    @classmethod
    def deck_counts(cls, options: Mapping[str, Any]) -> Counter[Card]:
        """TT-2: two decks and the ``jokers`` option's printed jokers."""
        jokers = int(resolve_options(cls.name, cls.OPTIONS, options)["jokers"])
        return Counter(deck(decks=2, jokers=jokers))

    @classmethod
    def _calculator_rank(cls, wild: Card | None, round: int | None,
                         options: Mapping[str, Any]) -> int:
        """The wild rank named by ``--round N`` or by a card of that rank (``--wild 7S``)."""
        resolve_options(cls.name, cls.OPTIONS, options)
        if round is not None and not 1 <= round <= ROUNDS:
            raise BadInput(f"{cls.name}: --round {round}: expected 1 to {ROUNDS} (TT-3)")
        if wild is not None and (wild.is_joker or wild.rank < 3):
            raise BadInput(f"{cls.name}: --wild {wild}: expected a card of rank 3 to K, "
                           "the round's wild rank (TT-7)")
        ranks = {round_wild_rank(round)} if round is not None else set()
        ranks |= {wild.rank} if wild is not None else set()
        if len(ranks) != 1:
            raise BadInput(f"{cls.name}: give --round N (1 to {ROUNDS}) or a --wild card of "
                           "the wild rank, and not two that disagree (TT-7)")
        return ranks.pop()

    # ------------------------------------------------------------------ round

    def deal(self) -> None:
        """TT-2 to TT-5, TT-7: r + 2 cards each from the dealer's left, one card face up."""
        size = self.round + 2
        cards = self.shuffled_deck(deck(decks=2, jokers=int(self.options["jokers"])))
        for i in range(size * self.players):
            self.hands[(self.dealer + 1 + i) % self.players].append(cards.pop())
        self.pile = [cards.pop()]
        self.stock = cards
        self.wilds = wild_cards(round_wild_rank(self.round))
        self.values = card_values(round_wild_rank(self.round))
        self.out: int | None = None  # the seat that went out this round (TT-10)
        self.owed = 0  # final turns still to play (TT-11)

    def game_over(self) -> bool:
        """TT-3, TT-13: after round 11."""
        return len(self.results) >= int(self.options["match"]["rounds"])

    def wild_rank(self) -> int:
        """TT-7: the rank that is wild this round."""
        return round_wild_rank(self.round)

    def part_for(self, seat: int) -> ThreeThirteenPart:
        return ThreeThirteenPart(wild_rank=self.wild_rank())

    def card_value(self, card: Card) -> int:
        return self.values[card.code]

    def hand_points(self, hand: Sequence[Card]) -> int:
        return penalty(hand, self.wilds, self.values)

    # ------------------------------------------------------------------ turn

    def check_play(self, seat: int, play: Play) -> None:
        """TT-6: one discard, nothing laid; TT-10: a claim to go out must leave only melds.

        In the final turns (TT-11) nobody goes out again: a true claim is accepted as a plain
        discard (its hand scores 0 by TT-12 anyway), a false one is still illegal (TT-10).
        """
        if play.lays_anything:
            raise IllegalAction("Three-Thirteen lays nothing on the table, nor on another "
                                "player's melds (TT-11): discard one card, or go out with it",
                                rule="TT-6")
        card = self.check_discard(seat, play, rule="TT-6")
        if play.declare:
            rest = list(self.hands[seat])
            rest.remove(card)
            left = self.hand_points(rest)
            if left:
                raise IllegalAction(f"cannot go out discarding {card}: the other "
                                    f"{len(rest)} cards do not all form melds "
                                    f"({left} points outside melds)", rule="TT-10")

    def apply_play(self, seat: int, play: Play) -> None:
        assert play.discard is not None
        self.discard(seat, play.discard)
        if play.declare and self.out is None:
            self._go_out(seat)
        else:
            self.end_turn()

    def _go_out(self, seat: int) -> None:
        """TT-10, TT-11: the hand is shown to all; each other seat gets one more turn.

        The final turns are played even past the draw cap (TT-15), so the cap is not checked.
        """
        self.history.append(PublicEvent(seat, "out", tuple(self.hands[seat])))
        self.out = seat
        self.owed = self.players - 1
        self.next_seat()

    def end_turn(self) -> None:
        """TT-15 until someone goes out (the base checks the cap), then TT-11's countdown."""
        if self.out is None:
            super().end_turn()
            return
        self.owed -= 1
        if self.owed:
            self.next_seat()
        else:
            self._score(RoundEnd.OUT)

    def forced_end(self, reason: RoundEnd) -> None:
        """TT-15 draw cap, TT-14 dead stock: every seat pays for its hand (TT-12).

        A dead stock can end the final turns early (TT-14 overrides TT-11: no card is left to
        draw). The seat that went out still scores 0 (TT-12); seats still owed a final turn
        pay for the hand they hold.
        """
        self._score(reason)

    def _score(self, reason: RoundEnd) -> None:
        """TT-12: 0 for the seat that went out, the best arrangement's penalty for the rest."""
        self.end_round(reason, [0 if s == self.out else self.hand_points(self.hands[s])
                                for s in range(self.players)])


def _going_out_refusal(best: Arrangement, size: int, round_: int | None) -> str | None:
    """Why a hand of ``size`` cards, best arranged as ``best``, cannot go out (TT-10)."""
    if round_ is not None and size != round_ + 2:
        return f"TT-10: in round {round_} a hand goes out with {round_ + 2} cards, not {size}"
    if best.points:
        return (f"TT-10: the best split leaves {format_cards(best.deadwood)} outside melds, "
                f"{best.points} points")
    return None


def _view_rank(view: View) -> int:
    if not isinstance(view.part, ThreeThirteenPart):
        raise BadInput(f"{view.variant}: the view has no wild rank (TT-7)")
    return view.part.wild_rank


@lru_cache(maxsize=1 << 16)
def _points(wilds: WildSpec, rank: int, codes: tuple[int, ...]) -> int:
    """Remembered per wild definition and multiset of cards (bots ask the same hands)."""
    return penalty([Card(c) for c in codes], wilds, card_values(rank))
