"""A bot that picks uniformly among the legal choices, and declares only when it is valid.

In the laying variants (R51, MAR) it lays whatever :func:`arena.advice.suggest_lay` offers
(going out when it can), takes a discard only when it can lay it, and discards at random.
"""

from __future__ import annotations

import random

from arena.actions import Draw, Play
from arena.advice import going_out_card, suggest_lay
from arena.bot import GameInfo
from arena.variants.laying import LayingPart
from arena.view import View


class RandomBot:
    """The baseline every other bot should beat."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start_game(self, info: GameInfo) -> None:
        """Seed from the referee, so the same game seed gives the same moves."""
        self.rng = random.Random(info.seed)

    def draw(self, view: View) -> Draw:
        if view.allows("meld"):
            return Draw(self.rng.choice([s for s in view.legal_draws
                                         if s != "discard" or _can_take(view)]))
        return Draw(self.rng.choice(view.legal_draws))

    def play(self, view: View) -> Play:
        if view.allows("meld"):
            lay = suggest_lay(view)
            rest = view.hand if lay is None else lay.rest
            discard = self.rng.choice([c for c in rest if c != view.kept])
            return Play(discard=discard) if lay is None else lay.play(discard)
        out = going_out_card(view)
        if out is not None:
            return Play(discard=out, declare=True)
        return Play(discard=self.rng.choice(view.discardable))


def _can_take(view: View) -> bool:
    """R51-9, MAR-8 (Tallaj): a taken discard must be laid in the same turn."""
    top = view.discard_top
    if top is None or not view.part_as(LayingPart).rules.must_lay_taken:
        return True
    return suggest_lay(view, taking=top) is not None
