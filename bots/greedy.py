"""A bot that keeps the hand with the lowest penalty, using the engine's own solver."""

from __future__ import annotations

from arena.actions import Draw, Play
from arena.advice import going_out_card, hand_points
from arena.cards import Card
from arena.view import View


class GreedyBot:
    """Takes the discard when it lowers the penalty, declares when it can, else sheds the
    card whose loss leaves the lowest penalty (highest value first on ties)."""

    def draw(self, view: View) -> Draw:
        top = view.discard_top
        if top is None or "discard" not in view.legal_draws:
            return Draw("stock")
        now = hand_points(view)
        with_top = [*view.hand, top]
        best = min(self._after_discard(view, with_top, keep=top))
        return Draw("discard") if best < now else Draw("stock")

    def play(self, view: View) -> Play:
        out = going_out_card(view)
        if out is not None:
            return Play(discard=out, declare=True)
        options = view.discardable or view.hand
        return Play(discard=min(set(options), key=lambda c: self._cost(view, c)))

    def _cost(self, view: View, card: Card) -> tuple[int, int, int]:
        rest = list(view.hand)
        rest.remove(card)
        value = 0 if view.is_wild(card) else min(card.rank, 10) if card.rank > 1 else 10
        return (hand_points(view, rest), -value, -card.rank)

    def _after_discard(self, view: View, hand: list[Card], keep: Card) -> list[int]:
        out = []
        for card in set(hand):
            if card == keep:
                continue
            rest = list(hand)
            rest.remove(card)
            out.append(hand_points(view, rest))
        return out
