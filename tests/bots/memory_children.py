"""A hostile bot that spreads its memory over child processes: each of its ``children``
holds ``mb`` megabytes, all at once, so a per-process limit alone lets it hold many times
its ``memory_mb``. Each child that got its memory appends ``held`` to ``report``, and
``still`` once it has kept it ``hold_s`` seconds: the children that say ``still`` held
their memory at the same time (they all got it within the first of those seconds)."""

from __future__ import annotations

import os
import time

from arena.seats.bot import GameInfo
from bots.random_bot import RandomBot


class MemoryChildren(RandomBot):
    """Plays as the random bot, after starting its hungry children."""

    def __init__(self, report: str, children: int = 5, mb: int = 300,
                 hold_s: float = 10.0) -> None:
        super().__init__()
        self.report, self.children, self.mb, self.hold_s = report, children, mb, hold_s

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        for _ in range(self.children):
            if os.fork() == 0:
                _hold(self.report, self.mb, self.hold_s)


def _hold(report: str, mb: int, seconds: float) -> None:
    """In a child: take the memory, touch every page, say so, keep it, say so again."""
    try:
        block = bytearray(mb << 20)
        for at in range(0, len(block), 4096):
            block[at] = 1
        _note(report, "held")
        time.sleep(seconds)
        _note(report, "still")
    finally:
        os._exit(0)


def _note(report: str, word: str) -> None:
    with open(report, "a", encoding="utf-8") as out:
        out.write(word + "\n")
