"""Rules calculators for bots: what a hand would pay, whether it can go out, what to lay.

Each question is answered by the view's variant (:class:`arena.engine.game.Game`'s ``view_*``
class methods), running the code the engine scores with, so a bot's arithmetic matches the
referee's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from arena.actions import Lay
from arena.cards import Card
from arena.engine.game import Game
from arena.engine.view import View
from arena.variants import find_variant

__all__ = ["Lay", "deadwood_points", "going_out_card", "hand_points", "suggest_lay",
           "unseen_cards"]


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
    """What the cards outside the best split into combinations are worth: in R51 and MAR the
    part of the hand laying cannot shed; in IND the same with no pure sequence asked and no
    cap (a smoother measure than :func:`hand_points` of how far a hand is from declaring);
    in TT the penalty itself."""
    return _variant(view.variant).view_deadwood(view, view.hand if hand is None else hand)


def unseen_cards(view: View, options: Mapping[str, Any]) -> Counter[Card]:
    """The cards this seat has not seen this round, with their copies left: the deck (under
    the game's ``options``, as ``start_game`` told them) less the hand, the table, the
    discard pile and what other seats took from it and still hold. Each of them is in the
    stock or in another hand, and nothing here says which (COM-5)."""
    unseen = Counter(_variant(view.variant).deck_counts(options) or {})
    pile: Counter[Card] = Counter()
    held: Counter[Card] = Counter()  # taken by another seat and not shown since
    for event in view.history:
        cards, other = Counter(event.cards), event.seat != view.seat
        if event.kind == "discard":
            pile += cards
            if other:
                held -= cards
        elif event.kind == "take":
            pile -= cards
            if other:
                held += cards
        elif other and event.kind in ("meld", "lay"):
            held -= cards  # on the table now, which is counted below
    if view.discard_top is not None and not pile[view.discard_top]:
        pile[view.discard_top] += 1  # the card turned up at the deal
    shown = Counter(view.hand)
    for meld in view.table:
        shown += Counter(meld.cards)
    hidden = view.stock_size + sum(view.hand_sizes) - len(view.hand)
    if sum((unseen - shown - pile - held).values()) < hidden:  # the pile became the stock
        pile = Counter([view.discard_top] if view.discard_top else [])  # (COM-12): what
        held = Counter()  # it held and what others took from it is unseen again
    unseen -= shown + pile + held
    return unseen


@cache
def _variant(version: str) -> type[Game]:
    return find_variant(version)
