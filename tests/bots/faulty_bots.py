"""Small bots for the referee tests: one well-behaved and fast, the others faulty on purpose.

Loaded by file path (``tests/bots/faulty_bots.py:Raiser``), so this folder is not a package.
"""

from __future__ import annotations

import os
import sys
import time

from arena.actions import Draw, Play
from arena.cards import ALL_CARDS
from arena.engine.view import RoundSummary, View


class StockBot:
    """Draws from the stock and discards the card it drew: instant, and never a fault."""

    def draw(self, view: View) -> Draw:
        return Draw("stock")

    def play(self, view: View) -> Play:
        assert view.drawn is not None
        return Play(discard=view.drawn)


class Raiser:
    """Every decision raises (a crash, COM-6)."""

    def draw(self, view: View) -> Draw:
        raise RuntimeError("draw is broken")

    def play(self, view: View) -> Play:
        raise RuntimeError("play is broken")


class Exiter:
    """Every decision calls sys.exit(4): in process, a crash of its seat, not the run's end."""

    def draw(self, view: View) -> Draw:
        sys.exit(4)

    def play(self, view: View) -> Play:
        sys.exit(4)


class GeneratorExiter:
    """Every decision raises GeneratorExit, which ``except Exception`` does not catch."""

    def draw(self, view: View) -> Draw:
        raise GeneratorExit

    def play(self, view: View) -> Play:
        raise GeneratorExit


class Garbage:
    """Answers text that no parser reads (unreadable output, COM-6)."""

    def draw(self, view: View) -> str:
        return "xyzzy plugh"

    def play(self, view: View) -> str:
        return "discard the best one"


class NotAnAction:
    """Answers an object that is neither an action nor text (unreadable output, COM-6)."""

    def draw(self, view: View) -> object:
        return 42

    def play(self, view: View) -> object:
        return {"discard": "KS"}


class NoneDrawer:
    """Returns None from draw() as text, as a Python bot's host sends it (unreadable)."""

    def draw(self, view: View) -> str:
        return "None"

    def play(self, view: View) -> Play:
        return Play(discard=view.drawn)


class IllegalPlay:
    """Draws legally, then discards a card it does not hold (an illegal answer, COM-6)."""

    def draw(self, view: View) -> str:
        return "stock"

    def play(self, view: View) -> Play:
        missing = next(c for c in ALL_CARDS if c not in view.hand)
        return Play(discard=missing)


class IllegalDraw:
    """Draws from a source that is not open (an illegal answer, COM-6)."""

    def draw(self, view: View) -> str:
        return next(s for s in ("tournante", "discard", "stock") if s not in view.legal_draws)

    def play(self, view: View) -> Play:
        raise AssertionError("a faulted draw decision ends the turn with the safe action")


class SlowDrawer:
    """Sleeps ``delay`` seconds in the draw decision, then asks for the discard (too late)."""

    def __init__(self, delay: float = 0.3) -> None:
        self.delay = delay

    def draw(self, view: View) -> str:
        time.sleep(self.delay)
        return "discard" if "discard" in view.legal_draws else "stock"

    def play(self, view: View) -> Play:
        raise AssertionError("a faulted draw decision ends the turn with the safe action")


class OnceSlow(StockBot):
    """Sleeps ``delay`` seconds in its first play decision only (a pause of the machine, a
    garbage collection), then answers at once."""

    def __init__(self, delay: float = 1.0) -> None:
        self.delay = delay

    def play(self, view: View) -> Play:
        delay, self.delay = self.delay, 0.0
        time.sleep(delay)
        return super().play(view)


class SlowPlayer(StockBot):
    """Draws at once, then sleeps ``delay`` seconds in the play decision and answers late
    with a discard other than the drawn card, so an applied late answer would show."""

    def __init__(self, delay: float = 0.3) -> None:
        self.delay = delay

    def play(self, view: View) -> Play:
        time.sleep(self.delay)
        other = next(c for c in view.hand if c != view.drawn)
        return Play(discard=other)


class BrokenStart(StockBot):
    """Cannot be built: it plays safe actions all game, one crash per decision."""

    def __init__(self) -> None:
        raise RuntimeError("no luck today")


class BrokenHook(StockBot):
    """Plays well, but its end-of-round hook raises (a crash, COM-6)."""

    def end_round(self, summary: RoundSummary) -> None:
        raise RuntimeError("end_round is broken")


class InvalidDeclarer(StockBot):
    """Declares on its first turn with a hand that is no declaration (IND-20: not a fault)."""

    def play(self, view: View) -> Play:
        assert view.drawn is not None
        return Play(discard=view.drawn, declare=True)


class Flaky(StockBot):
    """Raises on every decision but each ``every``-th: faults, yet never many in a row."""

    def __init__(self, every: int = 4) -> None:
        self.every = every
        self.asked = 0

    def _maybe_raise(self) -> None:
        self.asked += 1
        if self.asked % self.every:
            raise RuntimeError("flaky")

    def draw(self, view: View) -> Draw:
        self._maybe_raise()
        return super().draw(view)

    def play(self, view: View) -> Play:
        self._maybe_raise()
        return super().play(view)


class SlowStart(StockBot):
    """Takes a minute to be built: past any start-up limit of the tests."""

    def __init__(self) -> None:
        time.sleep(60)


class ProcessEnder(StockBot):
    """Ends the process it runs in at its first decision: run in process, a pool worker."""

    def draw(self, view: View) -> Draw:
        os._exit(3)


class Spinner(StockBot):
    """Loops for ever in its draw decision, swallowing any Exception (a student's search
    without an exit), and notes each start in ``path``: it is stopped, then started anew."""

    def __init__(self, path: str = "") -> None:
        self.path = path
        if path:
            with open(path, "a", encoding="utf-8") as notes:
                notes.write("started\n")

    def draw(self, view: View) -> str:
        while True:
            try:  # noqa: SIM105 - the mistake this bot shows
                sum(range(1000))
            except Exception:
                pass


class SpinningHook(StockBot):
    """Plays at once, then loops for ever in its end-of-round hook."""

    def end_round(self, summary: RoundSummary) -> None:
        while True:
            time.sleep(0.01)


class TextDiscarder(StockBot):
    """Discards by the card's text (``Play(discard="QC")``), not a Card: the isolated host
    sends it as text, so it plays; in process it has to play the same."""

    def play(self, view: View) -> Play:
        return Play(discard=str(view.hand[0]))  # type: ignore[arg-type]


class Printer(StockBot):
    """Prints at every draw, as a student debugging does, to stdout and to stderr."""

    def draw(self, view: View) -> str:
        print(f"debug: thinking about {len(view.hand)} cards")
        print("debug: on stderr", file=sys.stderr)
        return "stock"


class BrokenEnd(StockBot):
    """Plays well, but its end-of-game hook raises (a crash, COM-6)."""

    def end_game(self, totals: tuple[int, ...]) -> None:
        raise KeyError("end_game broke")


class Scripted:
    """Answers its ``script`` in order, one text a decision ("RAISE": a crash), and records
    each decision it is asked as (round, kind, cards held); after the script, as StockBot
    (or the first card it may discard, when it drew none from the stock)."""

    def __init__(self, script: list[str] | None = None) -> None:
        self.script = list(script or [])
        self.asked: list[tuple[int, str, int]] = []

    def _next(self, view: View) -> str | Draw | Play:
        self.asked.append((view.round, view.decision, len(view.hand)))
        if self.script:
            answer = self.script.pop(0)
            if answer == "RAISE":
                raise RuntimeError("scripted crash")
            return answer
        if view.decision == "draw":
            return Draw("stock")
        if view.drawn is not None and view.drawn_from == "stock":
            return Play(discard=view.drawn)
        return Play(discard=next(c for c in view.hand if c != view.kept))

    def draw(self, view: View) -> str | Draw | Play:
        return self._next(view)

    def play(self, view: View) -> str | Draw | Play:
        return self._next(view)
