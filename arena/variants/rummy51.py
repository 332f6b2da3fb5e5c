"""Rummy 51 (Rami 51) and Rummy 71 (docs/rules.md, section R51): open with 51, then lay freely.

Fourteen cards each, fifteen to the dealer, whose first discard is the tournante. A player's
first lay-down (his opening) must count the threshold; from then on he lays new
combinations, adds to any combination on the table and takes jokers back. The first player
to discard his last card wins; the others pay their cards, or 100 if they never opened.

>>> from arena.cards import parse_cards
>>> Rummy51.hand_report(parse_cards("KS 4D JK AH"), wild=None, round=None, options={}).points
44
>>> Rummy51.meld_report(parse_cards("JK 4H JK"), wild=None, round=None, options={}).reason
'R51-6: at most 1 wild card(s) per combination'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from arena.cards import Card, deck
from arena.engine.melds import MeldRules
from arena.engine.options import (
    MAX_DEALS,
    MAX_TARGET,
    OptionSpec,
    draw_cap,
    int_in,
    match_of,
    one_of,
    resolve_options,
)
from arena.engine.rules import LayingRules, register_laying
from arena.engine.view import PublicEvent
from arena.variants.laying.game import LayingGame

R51_MELDS = MeldRules(max_wilds=1, rule_run="R51-6", rule_set="R51-6", rule_wild="R51-6")
register_laying("R51", R51_MELDS, {  # the rule each part of a turn cites
    "combo": "R51-6", "turn": "R51-7", "cycle": "R51-8", "take": "R51-9", "one_card": "R51-9",
    "open": "R51-10",
    "rise": "R51-11", "rights": "R51-13", "out": "R51-14", "joker": "R51-19"})

HAND = 14  # R51-3; the dealer gets one more


def _match(value: Any) -> bool:
    return match_of("rounds", int_in(1, MAX_DEALS))(value) or \
        match_of("target", int_in(1, MAX_TARGET))(value)


class Rummy51(LayingGame):
    """Rummy 51: the opening counts 51 (71 in Rummy 71) and each later one more than the best."""

    name = "rummy51"
    version = "rummy51/v1"
    aliases = ("r51", "rami51", "rami-51", "rummy-51", "rummy51/v1")
    draw_rule = "R51-7"
    first_cycle_rule = "R51-8"
    OPTIONS: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(name="players", default=4, expected="2, 3 or 4", check=int_in(2, 4),
                   rule="R51-1"),
        OptionSpec(name="teams", default=False, expected="false, or true with players: 4",
                   check=one_of(False, True), rule="R51-1",
                   fits=lambda value, resolved: not value or resolved["players"] == 4),
        OptionSpec(name="jokers", default=4, expected="4 (108 cards) or 2 (106 cards)",
                   check=one_of(4, 2), rule="R51-2"),
        OptionSpec(name="ace_high_value", default=10, expected="10 or 11",
                   check=one_of(10, 11), rule="R51-5"),
        OptionSpec(name="opening", default=51, expected="51 (Rummy 51) or 71 (Rummy 71)",
                   check=one_of(51, 71), rule="R51-19"),
        OptionSpec(name="match", default=lambda resolved: {"rounds": resolved["players"]},
                   expected=f"{{rounds: N}} with N from 1 to {MAX_DEALS}, or {{target: T}} "
                            f"with T from 1 to {MAX_TARGET}",
                   check=_match, rule="R51-18"),
        draw_cap(200, "R51-21"),
    )

    @classmethod
    def laying_rules(cls, options: Mapping[str, Any]) -> LayingRules:
        """R51-5 ace value, R51-11 and R51-19 opening, R51-12 teams; the rest is R51 itself."""
        return LayingRules(prefix="R51", ace=options["ace_high_value"],
                           opening=options["opening"],
                           joker_free_opening=options["opening"] == 71, teams=options["teams"])

    @classmethod
    def deck_counts(cls, options: Mapping[str, Any]) -> Counter[Card]:
        """R51-2: two decks and four printed jokers, or two with ``jokers: 2``."""
        jokers = int(resolve_options(cls.name, cls.OPTIONS, options)["jokers"])
        return Counter(deck(decks=2, jokers=jokers))

    @classmethod
    def team_labels(cls, options: Mapping[str, Any]) -> tuple[int, ...] | None:
        """R51-1: with ``teams``, seats 0 and 2 play against seats 1 and 3."""
        return (0, 1, 0, 1) if options.get("teams") else None

    def deal(self) -> None:
        """R51-2, R51-3: 14 cards each from the dealer's left, a 15th to the dealer, no
        face-up card; the dealer starts with his play decision (no draw)."""
        cards = self.shuffled_deck(deck(decks=2, jokers=int(self.options["jokers"])))
        for i in range(HAND * self.players):
            self.hands[(self.dealer + 1 + i) % self.players].append(cards.pop())
        self.hands[self.dealer].append(cards.pop())
        self.stock = cards
        self.start_laying()

    def discard(self, seat: int, card: Card) -> None:
        """R51-8 (a): the dealer's first discard (his turn without a draw) is the tournante."""
        if not (self.first_cycle and self.turn.source is None):
            super().discard(seat, card)
            return
        self.hands[seat].remove(card)
        self.tournante = card
        self.history.append(PublicEvent(seat, "discard", (card,)))

    def end_first_cycle(self) -> None:
        """R51-8 (d): an untaken tournante goes under the discard pile."""
        super().end_first_cycle()
        if self.tournante is not None:
            self.pile.insert(0, self.tournante)
            self.tournante = None

    def game_over(self) -> bool:
        """R51-18: after N rounds, or once some total reaches the target."""
        match = self.options["match"]
        if "rounds" in match:
            return len(self.results) >= int(match["rounds"])
        return max(self.totals) >= int(match["target"])


class Rummy71(Rummy51):
    """Rummy 71 (R51-19): Rummy 51 whose opening counts 71 and lays no joker. Its own name,
    so that ``rummy71`` never plays a 51 opening by default."""

    name = "rummy71"
    version = "rummy71/v1"
    aliases = ("r71", "rami71", "rami-71", "rummy-71", "rummy71/v1")
    OPTIONS = tuple(replace(o, default=71) if o.name == "opening" else o
                    for o in Rummy51.OPTIONS)
