"""Rules calculators for bots: what a hand would pay, whether it can go out, what to lay.

Each question is answered by the view's variant (:class:`arena.engine.game.Game`'s ``view_*``
class methods), running the code the engine scores with, so a bot's arithmetic matches the
referee's.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from arena.actions import Lay
from arena.cards import Card
from arena.engine.game import Game
from arena.engine.view import View
from arena.variants import find_variant

__all__ = ["Lay", "deadwood_points", "going_out_card", "hand_points", "suggest_lay"]


def hand_points(view: View, hand: Sequence[Card] | None = None) -> int:
    """The penalty ``hand`` (default: the seat's hand) would pay if the round ended now.

    In R51 and MAR every card left in hand pays (R51-16, MAR-16), or R51's flat 100 for a seat
    that has not opened."""
    return _variant(view.variant).view_points(view, view.hand if hand is None else hand)


def going_out_card(view: View) -> Card | None:
    """The card to discard (or set aside) to declare or go out now, or None if it can't.

    Always None where going out lays the cards (``view.allows("meld")``): see
    :func:`suggest_lay`."""
    return _variant(view.variant).view_going_out(view)


def suggest_lay(view: View, *, taking: Card | None = None) -> Lay | None:
    """Lays this seat may make now, going out when it can; None when it can lay nothing or
    the variant lays nothing. With ``taking`` (in the draw decision): the lays it could make
    after taking that card from the discard pile (R51-9, MAR-8: it must be among them)."""
    return _variant(view.variant).view_lay(view, taking=taking)


def deadwood_points(view: View, hand: Sequence[Card] | None = None) -> int:
    """What the cards outside the best split into combinations are worth: the part of the
    hand laying cannot shed (variants that lay combinations only)."""
    return _variant(view.variant).view_deadwood(view, view.hand if hand is None else hand)


@cache
def _variant(version: str) -> type[Game]:
    return find_variant(version)
