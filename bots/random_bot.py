"""A bot that picks uniformly among the legal choices, and declares only when it is valid."""

from __future__ import annotations

import random

from arena.actions import Draw, Play
from arena.advice import going_out_card
from arena.bot import GameInfo
from arena.view import View


class RandomBot:
    """The baseline every other bot should beat."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start_game(self, info: GameInfo) -> None:
        """Seed from the referee, so the same game seed gives the same moves."""
        self.rng = random.Random(info.seed)

    def draw(self, view: View) -> Draw:
        return Draw(self.rng.choice(view.legal_draws))

    def play(self, view: View) -> Play:
        out = going_out_card(view)
        if out is not None:
            return Play(discard=out, declare=True)
        return Play(discard=self.rng.choice(view.discardable))
