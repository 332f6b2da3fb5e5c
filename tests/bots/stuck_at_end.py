"""A hostile bot whose game never ends on its side: at ``end_game`` it tries to read the
next game's ``start_game`` from its input, and otherwise sleeps on. A class attribute counts
the games its process has seen (more than one: it remembers). It reports to ``report``."""

from __future__ import annotations

import json
import os
import time

from arena.seats.bot import GameInfo
from bots.random_bot import RandomBot


class StuckAtEnd(RandomBot):
    """Plays as the random bot, then will not let its game go."""

    games = 0  # survives from game to game only if the process does

    def __init__(self, report: str) -> None:
        super().__init__()
        self.report = report

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        StuckAtEnd.games += 1
        self._note(games=StuckAtEnd.games)

    def end_game(self, totals: tuple[int, ...]) -> None:
        try:
            stolen = os.read(0, 1 << 16)  # the referee's next message, if it could
        except OSError as exc:
            stolen = exc.strerror.encode() if exc.strerror else b"error"
        self._note(stolen=stolen.decode(errors="replace")[:200])
        time.sleep(600)

    def _note(self, **fields: object) -> None:
        with open(self.report, "a", encoding="utf-8") as notes:
            notes.write(json.dumps(fields) + "\n")
