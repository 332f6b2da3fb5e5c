"""Moroccan rummy (docs/rules.md, section MAR), in its Tallaj and Simple modes.

Tallaj: fourteen cards each, fifteen to the dealer. A first lay-down needs 71 from joker-free
(franc) combinations, with a franc tierce and a franc suite; later ones need more than the
best so far. Simple: thirteen cards, and the only lay-down is the whole hand at once. The
winner empties his hand; the others pay their cards, or 200 after a Tallaj rami sec.

>>> from arena.cards import parse_cards
>>> Moroccan.hand_report(parse_cards("KS 4D JK AH"), wild=None, round=None, options={}).points
44
>>> Moroccan.meld_report(parse_cards("5S 5S 5H"), wild=None, round=None, options={}).reason
'MAR-6: a set needs natural cards of distinct suits'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from arena.cards import Card, deck
from arena.engine.melds import MeldRules
from arena.engine.options import (
    MAX_PENALTY,
    OptionSpec,
    draw_cap,
    int_in,
    match_of,
    one_of,
    resolve_options,
)
from arena.engine.rules import LayingRules, register_laying
from arena.variants.laying.game import LayingGame

MAR_MELDS = MeldRules(max_wilds=1, rule_run="MAR-6", rule_set="MAR-6", rule_wild="MAR-6")
register_laying("MAR", MAR_MELDS, {  # the rule each part of a turn cites
    "combo": "MAR-6", "turn": "MAR-8", "cycle": "MAR-5", "take": "MAR-8", "one_card": "MAR-5",
    "open": "MAR-9",
    "rise": "MAR-10", "rights": "MAR-11", "out": "MAR-12", "joker": "MAR-9",
    "simple": "MAR-13"})

RAMI_SEC = 200  # MAR-15


class Moroccan(LayingGame):
    """Moroccan rummy: Tallaj (first lay-down of 71 in franc combinations) or Simple."""

    name = "moroccan"
    version = "moroccan/v1"
    aliases = ("mar", "rami", "tallaj", "moroccan-rummy", "rami-marocain", "moroccan/v1")
    draw_rule = "MAR-8"
    first_cycle_rule = "MAR-8"
    OPTIONS = (
        OptionSpec(name="players", default=4, expected="an integer from 2 to 6",
                   check=int_in(2, 6), rule="MAR-2"),
        OptionSpec(name="mode", default="tallaj", expected="'tallaj' or 'simple'",
                   check=one_of("tallaj", "simple"), rule="MAR-3"),
        OptionSpec(name="opening", default=71, expected="71, or 51 in mode tallaj",
                   check=one_of(71, 51), rule="MAR-9",
                   fits=lambda value, resolved: value == 71 or resolved["mode"] == "tallaj"),
        OptionSpec(name="joker_in_hand", default=20,
                   expected=f"an integer from 0 to {MAX_PENALTY}",
                   check=int_in(0, MAX_PENALTY), rule="MAR-16"),
        OptionSpec(name="match", default={"target": 201},
                   expected="{target: T} with T 201, 500 or 1000",
                   check=match_of("target", one_of(201, 500, 1000)), rule="MAR-17"),
        draw_cap(200, "MAR-19"),
    )

    @classmethod
    def laying_rules(cls, options: Mapping[str, Any]) -> LayingRules:
        """MAR-8 to MAR-16; Simple (MAR-13) has no first lay-down and no taken-card duty."""
        tallaj = options["mode"] == "tallaj"
        return LayingRules(prefix="MAR", joker_in_hand=options["joker_in_hand"],
                           opening=options["opening"] if tallaj else None, franc=True,
                           rights_at_opening=False, lay_in_first_cycle=True,
                           must_lay_taken=tallaj, take_joker=True, never_opened_pays=None,
                           rami_sec_pays=RAMI_SEC if tallaj else None)

    @classmethod
    def deck_counts(cls, options: Mapping[str, Any]) -> Counter[Card]:
        """MAR-1: two decks and four printed jokers, whatever the options."""
        resolve_options(cls.name, cls.OPTIONS, options)
        return Counter(deck(decks=2, jokers=4))

    def deal(self) -> None:
        """MAR-1, MAR-3, MAR-4: 14 (Simple 13) cards each from the dealer's left, one more to
        the dealer, one card face up; the dealer starts with his play decision (no draw)."""
        size = 14 if self.options["mode"] == "tallaj" else 13
        cards = self.shuffled_deck(deck(decks=2, jokers=4))
        for i in range(size * self.players):
            self.hands[(self.dealer + 1 + i) % self.players].append(cards.pop())
        self.hands[self.dealer].append(cards.pop())
        self.pile = [cards.pop()]
        self.stock = cards
        self.start_laying()

    def rami_sec(self, seat: int) -> bool:
        """MAR-15: the whole hand laid in one turn before anyone laid anything (Tallaj)."""
        return self.rules.rami_sec_pays is not None and not self.table

    def game_over(self) -> bool:
        """MAR-17: after the round in which some total reaches the target."""
        return max(self.totals) >= int(self.options["match"]["target"])
