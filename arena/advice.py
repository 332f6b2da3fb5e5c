"""Rules calculators for bots: what a hand would pay, and whether it can go out now.

They run the same code the engine scores with, so a bot's arithmetic matches the referee's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from arena.cards import Card
from arena.melds import WildSpec
from arena.variants import indian13, three_thirteen
from arena.view import View

PointsFn = Callable[[Sequence[Card], WildSpec, "int | None"], int]

_POINTS: dict[str, PointsFn] = {
    "indian13/v1": lambda hand, wilds, _rank: indian13.loser_points(
        hand, wilds, indian13.card_values(wilds)),
    "three_thirteen/v1": lambda hand, wilds, rank: three_thirteen.penalty(
        hand, wilds, three_thirteen.card_values(rank or 0)),
}
_GOING_OUT: dict[str, Callable[[View], Card | None]] = {
    "indian13/v1": indian13.view_going_out,
    "three_thirteen/v1": three_thirteen.view_going_out,
}


def hand_points(view: View, hand: Sequence[Card] | None = None) -> int:
    """The penalty ``hand`` (default: the seat's hand) would pay if the round ended now."""
    cards = view.hand if hand is None else hand
    return _points(view.variant, view.wilds, view.wild_rank,
                   tuple(sorted(c.code for c in cards)))


@lru_cache(maxsize=1 << 16)
def _points(variant: str, wilds: WildSpec, rank: int | None, codes: tuple[int, ...]) -> int:
    """Remembered per wild definition and multiset of cards: a bot weighing every discard
    asks about the same hands turn after turn."""
    return _POINTS[variant]([Card(c) for c in codes], wilds, rank)


def going_out_card(view: View) -> Card | None:
    """The card to discard (or set aside) to declare or go out now, or None if it can't."""
    return _GOING_OUT[view.variant](view)
