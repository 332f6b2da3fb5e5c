"""Rules as data: what a laying variant's first lay-down needs, who may add to the table,
what cards pay, and the rule ID it cites for each; the engine, the views and the bots'
advice read the same value.

>>> register_laying("XY", MeldRules(max_wilds=1), {"open": "XY-3"})
>>> LayingRules(prefix="XY").rule("open"), LayingRules(prefix="XY").hand_value(Card.JOKER)
('XY-3', 20)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from arena.cards import ALL_CARDS, Card
from arena.engine.melds import MeldRules

_FAMILY: dict[str, tuple[MeldRules, Mapping[str, str]]] = {}


def register_laying(prefix: str, melds: MeldRules, rule_ids: Mapping[str, str]) -> None:
    """A laying variant's combinations and the rule ID it cites for each part of a turn
    (``open``, ``rights``, ...), under the prefix its :class:`LayingRules` names; each
    variant registers its own, so the engine names none."""
    _FAMILY[prefix] = (melds, dict(rule_ids))


@dataclass(frozen=True, slots=True, kw_only=True)
class LayingRules:
    """One laying variant's rules as data; the engine and the bots' advice read the same value."""

    prefix: str  # the variant's rule-ID prefix: its combinations and rule IDs (register_laying)
    ace: int = 10  # an ace outside a low run, counted and in hand (R51-5 ace_high_value, MAR-7)
    joker_in_hand: int = 20  # R51-16, MAR-16
    opening: int | None = 51  # the base threshold of a first lay-down; None: MAR Simple
    franc: bool = False  # MAR-9: only joker-free combinations count; a franc tierce and suite
    joker_free_opening: bool = False  # R51-19: no joker in the opening turn
    rights_at_opening: bool = True  # R51-13; MAR-11 gives the rights from the next turn
    lay_in_first_cycle: bool = False  # R51-8 (c) forbids it; MAR-5 allows it
    must_lay_taken: bool = True  # R51-9, MAR-8 (Tallaj)
    take_joker: bool = False  # a discarded joker may be taken (MAR-8) or never (R51-9)
    never_opened_pays: int | None = 100  # R51-16; MAR has no flat charge (MAR-16)
    rami_sec_pays: int | None = None  # MAR-15: 200 instead of the hand
    teams: bool = False  # R51-12, R51-17: seats 0 and 2 against 1 and 3

    @property
    def melds(self) -> MeldRules:
        """What a combination may be (one joker at most, sets of distinct suits)."""
        return _FAMILY[self.prefix][0]

    def rule(self, what: str) -> str:
        """The rule ID this variant cites for ``what`` (``open``, ``rights``, ...)."""
        return _FAMILY[self.prefix][1][what]

    def partner(self, seat: int) -> int | None:
        """R51-1: the seat opposite in team play (None when everyone plays alone)."""
        return (seat + 2) % 4 if self.teams else None

    def hand_value(self, card: Card) -> int:
        """What a card left in hand pays (R51-16, MAR-16)."""
        if card.is_joker:
            return self.joker_in_hand
        return self.ace if card.rank == 1 else min(card.rank, 10)

    def values(self) -> tuple[int, ...]:
        """:meth:`hand_value` indexed by card code, the shape the solver takes."""
        return _values(self)


@lru_cache(maxsize=64)
def _values(rules: LayingRules) -> tuple[int, ...]:
    return tuple(rules.hand_value(c) for c in (*ALL_CARDS, Card.JOKER))
