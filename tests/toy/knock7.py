"""A toy variant that lives in the test folder, to show that a variant plugs in from outside
``arena/``: one module and one ``register`` call, nothing else.

Knock Seven: 2 to 4 players, one 52-card deck, 7 cards each and one card face up. A turn is a
draw (stock or discard) and a discard; a seat goes out by discarding its eighth card when the
seven left all form runs or sets of three or more. The others pay their cards outside melds
(A 1, 2 to 10 their face, J Q K 10). One round is the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from arena.actions import Play
from arena.cards import JOKER_CODE, Card, deck
from arena.engine.game import Game
from arena.engine.melds import MeldRules, WildSpec
from arena.engine.options import OptionSpec, draw_cap, int_in
from arena.engine.results import RoundEnd
from arena.engine.solver import min_deadwood
from arena.engine.view import View
from arena.errors import IllegalAction

RULES = MeldRules(ace_high=False, rule_run="K7-2", rule_set="K7-2", rule_wild="K7-2")
NOTHING_WILD = WildSpec(frozenset({JOKER_CODE}), self_standing=False)  # none is dealt
HAND = 7


@lru_cache(maxsize=1 << 12)
def _deadwood(codes: tuple[int, ...]) -> int:
    best = min_deadwood([Card(c) for c in codes], RULES, NOTHING_WILD, _values())
    return 0 if best is None else best.points


@lru_cache(maxsize=1)
def _values() -> tuple[int, ...]:
    out = [0] * (JOKER_CODE + 1)
    for card in deck(decks=1, jokers=0):
        out[card.code] = min(card.rank, 10)
    return tuple(out)


def deadwood(hand: Sequence[Card]) -> int:
    """Points of the cards outside the best runs and sets."""
    return _deadwood(tuple(sorted(c.code for c in hand)))


class Knock7(Game):
    """Knock Seven: go out with seven cards in melds; the others pay their deadwood."""

    name = "knock7"
    version = "knock7/v1"
    aliases = ("k7",)
    draw_rule = "K7-1"
    OPTIONS = (
        OptionSpec(name="players", default=2, expected="2, 3 or 4", check=int_in(2, 4),
                   rule="K7-1"),
        draw_cap(60, "K7-3"),
    )

    def deal(self) -> None:
        cards = self.shuffled_deck(deck(decks=1, jokers=0))
        for i in range(HAND * self.players):
            self.hands[(self.dealer + 1 + i) % self.players].append(cards.pop())
        self.pile = [cards.pop()]
        self.stock = cards

    def game_over(self) -> bool:
        return True  # one round

    def card_value(self, card: Card) -> int:
        return min(card.rank, 10)

    def hand_points(self, hand: Sequence[Card]) -> int:
        return deadwood(hand)

    def check_play(self, seat: int, play: Play) -> None:
        if play.lays_anything:
            raise IllegalAction("nothing is laid: discard, or go out", rule="K7-1")
        card = self.check_discard(seat, play, rule="K7-1")
        if play.declare:
            rest = list(self.hands[seat])
            rest.remove(card)
            if deadwood(rest):
                raise IllegalAction("the seven cards left do not all form melds", rule="K7-2")

    def apply_play(self, seat: int, play: Play) -> None:
        assert play.discard is not None
        self.discard(seat, play.discard)
        if play.declare:
            self.end_round(RoundEnd.OUT, [0 if s == seat else deadwood(self.hands[s])
                                          for s in range(self.players)])
        else:
            self.end_turn()

    def forced_end(self, reason: RoundEnd) -> None:
        self.end_round(reason, [deadwood(h) for h in self.hands])

    @classmethod
    def view_points(cls, view: View, hand: Sequence[Card]) -> int:
        return deadwood(hand)

    @classmethod
    def view_going_out(cls, view: View) -> Card | None:
        if view.decision != "play":
            return None
        for card in view.discardable:
            rest = list(view.hand)
            rest.remove(card)
            if not deadwood(rest):
                return card
        return None

    @classmethod
    def team_labels(cls, options: Mapping[str, Any]) -> tuple[int, ...] | None:
        return None
