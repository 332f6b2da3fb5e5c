"""Rules calculators for bots: what a hand would pay, and whether it can go out now.

They run the same code the engine scores with, so a bot's arithmetic matches the referee's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.cards import Card
from arena.variants import indian13, three_thirteen
from arena.view import View

_POINTS: dict[str, Callable[[View, Sequence[Card]], int]] = {
    "indian13/v1": indian13.view_points,
    "three_thirteen/v1": three_thirteen.view_points,
}
_GOING_OUT: dict[str, Callable[[View], Card | None]] = {
    "indian13/v1": indian13.view_going_out,
    "three_thirteen/v1": three_thirteen.view_going_out,
}


def hand_points(view: View, hand: Sequence[Card] | None = None) -> int:
    """The penalty ``hand`` (default: the seat's hand) would pay if the round ended now."""
    return _POINTS[view.variant](view, view.hand if hand is None else hand)


def going_out_card(view: View) -> Card | None:
    """The card to discard (or set aside) to declare or go out now, or None if it can't."""
    return _GOING_OUT[view.variant](view)
