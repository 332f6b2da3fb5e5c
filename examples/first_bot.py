"""My first bot: keep low cards, throw the highest, declare as soon as it can."""

from arena.actions import Draw, Play
from arena.advice import going_out_card
from arena.view import View


class FirstBot:
    def draw(self, view: View) -> Draw:
        top = view.discard_top
        if top is not None and "discard" in view.legal_draws and view.is_wild(top):
            return Draw("discard")  # a wild card is always worth taking
        return Draw("stock")

    def play(self, view: View) -> Play:
        out = going_out_card(view)  # the engine's own rules check
        if out is not None:
            return Play(discard=out, declare=True)
        keep = [c for c in view.discardable if not view.is_wild(c)] or list(view.discardable)
        return Play(discard=max(keep, key=lambda c: (min(c.rank, 10) if c.rank > 1 else 10)))
