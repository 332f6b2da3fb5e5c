"""Rules calculators for bots: what a hand would pay, whether it can go out, what to lay.

Each question is answered by the view's variant (:class:`arena.engine.game.Game`'s ``view_*``
class methods), running the code the engine scores with, so a bot's arithmetic matches the
referee's.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from arena.actions import Lay
from arena.cards import Card
from arena.engine.game import Game
from arena.engine.view import View
from arena.variants import find_variant

__all__ = ["Lay", "chance_taken", "deadwood_cards", "deadwood_points", "going_out_card",
           "hand_points", "sample_game", "suggest_lay", "unseen_cards"]


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


def deadwood_cards(view: View, hand: Sequence[Card] | None = None) -> int:
    """How many cards (default: the seat's hand) stay outside the split into combinations
    that leaves the fewest, whatever they are worth: how far a hand is from being laid
    whole (R51-14, MAR-12). R51 and MAR only."""
    return _variant(view.variant).view_deadwood_cards(view, view.hand if hand is None else hand)


def chance_taken(view: View, options: Mapping[str, Any], cards: Sequence[Card],
                 rng: random.Random, *, hands: int = 40, after: Lay | None = None
                 ) -> list[float]:
    """For each of ``cards``, were this seat to discard it, the share of ``hands`` hands the
    next seat might hold with which it could take it and lay it at once (R51-9, MAR-8): how
    likely the discard is to feed that seat. The hands are dealt from the unseen cards with
    what that seat is known to hold, and only hands that could lay nothing now are kept (it
    would have laid). ``after``: the lay this seat makes before discarding, whose
    combinations the next seat may then extend. R51 and MAR, outside R51's first cycle."""
    seen = _public(view, options)
    return _variant(view.variant).view_chance_taken(view, seen.unseen, seen.held, cards, rng,
                                                    hands, after)


def unseen_cards(view: View, options: Mapping[str, Any]) -> Counter[Card]:
    """The cards this seat has not seen this round, with their copies left: the deck (under
    the game's ``options``, as ``start_game`` told them) less the hand, the table, the
    discard pile and what other seats took from it and still hold. Each of them is in the
    stock or in another hand, and nothing here says which (COM-5)."""
    return _public(view, options).unseen


def sample_game(view: View, options: Mapping[str, Any], rng: random.Random) -> Game:
    """A game this seat cannot tell from the real one: its own hand, the table and the pile
    as the view shows them, the cards other seats are known to hold, and the unseen cards
    dealt at random to the other hands and the stock. Play it on with the engine's rules
    (``apply``) to try a move against a possible future; R51 and MAR only."""
    seen = _public(view, options)
    return _variant(view.variant).view_sample(view, options, seen.unseen, seen.held,
                                              seen.pile, rng)


@dataclass(frozen=True, slots=True)
class _Seen:
    """What the public events tell one seat: the unseen cards, what each other seat is known
    to hold, and the discard pile, bottom first."""

    unseen: Counter[Card]
    held: dict[int, Counter[Card]]
    pile: list[Card]


def _public(view: View, options: Mapping[str, Any]) -> _Seen:
    unseen = Counter(_variant(view.variant).deck_counts(options) or {})
    pile: list[Card] = []
    held = {s: Counter[Card]() for s in range(view.players) if s != view.seat}
    for event in view.history:
        hand = held.get(event.seat)
        if event.kind in ("discard", "return"):
            pile += event.cards
        elif event.kind == "take":
            _remove_last(pile, event.cards[0])
        if hand is None:
            continue
        # in place, and never below 0: a card it held from the deal was not known
        if event.kind == "take":
            hand += Counter(event.cards)
        elif event.kind == "take_back":  # its card goes to the table, the joker to the hand
            hand -= Counter(event.cards[:1])
            hand += Counter(event.cards[1:])
        elif event.kind in ("discard", "return", "meld", "lay"):
            hand -= Counter(event.cards)
    top = view.discard_top
    if top is not None and (not pile or pile[-1] != top):
        _remove_last(pile, top)
        pile.append(top)  # the card turned up at the deal, or one under an R51 tournante
    tournante = getattr(view.part, "tournante", None)
    if tournante is not None:
        _remove_last(pile, tournante)  # R51-8: not on the pile while it can be taken
    shown = Counter(view.hand)
    for meld in view.table:
        shown += Counter(meld.cards)
    if tournante is not None:
        shown[tournante] += 1
    hidden = view.stock_size + sum(view.hand_sizes) - len(view.hand)
    if sum((unseen - shown - Counter(pile)).values()) < hidden:  # the pile became
        pile = [top] if top is not None else []  # the stock (COM-12): what it held and
        held = {s: Counter() for s in held}  # what others took from it is unseen again
    unseen -= shown + Counter(pile) + sum(held.values(), Counter[Card]())
    return _Seen(unseen, held, pile)


def _remove_last(cards: list[Card], card: Card) -> None:
    """Take the copy of ``card`` nearest the end (the top of a pile) out of ``cards``."""
    for i in range(len(cards) - 1, -1, -1):
        if cards[i] == card:
            del cards[i]
            return


@cache
def _variant(version: str) -> type[Game]:
    return find_variant(version)
