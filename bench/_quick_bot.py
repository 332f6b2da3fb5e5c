"""A bot that answers at once, so a benchmark measures the referee and the wire, not a bot."""

from __future__ import annotations

from arena.actions import Draw, Play
from arena.engine.view import View


class QuickBot:
    """Draw from the stock, discard the card drawn."""

    def draw(self, view: View) -> Draw:
        return Draw("stock")

    def play(self, view: View) -> Play:
        assert view.drawn is not None
        return Play(discard=view.drawn)
