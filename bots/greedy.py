"""A bot that keeps the hand with the lowest penalty, using the engine's own solver."""

from __future__ import annotations

from collections.abc import Sequence

from arena.actions import Draw, Play
from arena.advice import deadwood_points, going_out_card, hand_points, suggest_lay
from arena.cards import Card
from arena.variants.laying import LayingPart
from arena.view import View


class GreedyBot:
    """Takes the discard when it lowers the penalty, declares when it can, else sheds the
    card whose loss leaves the lowest penalty (highest value first on ties).

    In the laying variants (R51, MAR) it lays all it can as soon as it may (going out when it
    can), takes a discard it can lay at once (or a tournante that lowers its deadwood), and
    sheds the card whose loss leaves the least value outside combinations."""

    def draw(self, view: View) -> Draw:
        if view.allows("meld"):
            return self._laying_draw(view)
        top = view.discard_top
        if top is None or "discard" not in view.legal_draws:
            return Draw("stock")
        now = hand_points(view)
        with_top = [*view.hand, top]
        best = min(self._after_discard(view, with_top, keep=top))
        return Draw("discard") if best < now else Draw("stock")

    def play(self, view: View) -> Play:
        if view.allows("meld"):
            return self._laying_play(view)
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

    # ------------------------------------------------------------------ R51, MAR

    def _laying_draw(self, view: View) -> Draw:
        part = view.part_as(LayingPart)
        top = part.tournante if "tournante" in view.legal_draws else view.discard_top
        source = "tournante" if "tournante" in view.legal_draws else "discard"
        if top is None or source not in view.legal_draws:
            return Draw("stock")
        if source == "discard" and part.rules.must_lay_taken:
            lay = suggest_lay(view, taking=top)
            return Draw("discard" if lay is not None else "stock")
        now = deadwood_points(view)
        best = min(deadwood_points(view, without([*view.hand, top], out))
                   for out in set(view.hand))
        return Draw(source) if best < now else Draw("stock")

    def _laying_play(self, view: View) -> Play:
        lay = suggest_lay(view)
        rest = list(view.hand if lay is None else lay.rest)
        costs, cards = self._shed(view, rest, keep=view.kept)
        discard = cards[costs.index(min(costs))]
        return Play(discard=discard) if lay is None else lay.play(discard)

    def _shed(self, view: View, hand: list[Card], keep: Card | None
              ) -> tuple[list[tuple[int, ...]], list[Card]]:
        """For each card but ``keep``, the cost of discarding it (lowest goes): a joker last;
        then the value left outside combinations, or before an R51 opening (where every hand
        pays 100) the value left in them, which the opening needs; then the card's partners
        in hand; then its value (the costlier goes, or before an R51 opening the cheaper)."""
        part = view.part_as(LayingPart)
        rules = part.rules
        opening = rules.never_opened_pays is not None and not part.has_opened(view.seat)
        cards = sorted({c for c in hand if c != keep})
        costs: list[tuple[int, ...]] = []
        for card in cards:
            rest = without(hand, card)
            dead = deadwood_points(view, rest)
            value = rules.hand_value(card)
            melded = sum(map(rules.hand_value, rest)) - dead
            costs.append((card.is_joker, -melded if opening else dead,
                          partners(card, rest), value if opening else -value, -card.rank,
                          card.suit))
        return costs, cards


def partners(card: Card, hand: Sequence[Card]) -> int:
    """Cards that could join ``card`` in a combination: its rank in another suit, or its suit
    within two ranks (the ace beside the king too). The search bot asks it too."""
    def near(a: int, b: int) -> bool:
        return 0 < abs(a - b) <= 2 or {a, b} in ({1, 13}, {1, 12})
    return sum(1 for c in hand if not c.is_joker and (
        (c.rank == card.rank and c.suit != card.suit)
        or (c.suit == card.suit and near(c.rank, card.rank))))


def without(hand: Sequence[Card], card: Card) -> list[Card]:
    """The hand less one copy of ``card``."""
    rest = list(hand)
    rest.remove(card)
    return rest
