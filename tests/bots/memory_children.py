"""A hostile bot that spreads its memory over child processes: each of its ``children``
holds ``mb`` megabytes, all at once, so a per-process limit alone lets it hold many times
its ``memory_mb``. Each child that got its memory appends a line to ``report``."""

from __future__ import annotations

import os
import time

from arena.bot import GameInfo
from bots.random_bot import RandomBot


class MemoryChildren(RandomBot):
    """Plays as the random bot, after starting its hungry children."""

    def __init__(self, report: str, children: int = 5, mb: int = 300) -> None:
        super().__init__()
        self.report, self.children, self.mb = report, children, mb

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        for _ in range(self.children):
            if os.fork() == 0:
                _hold(self.report, self.mb)


def _hold(report: str, mb: int) -> None:
    """In a child: take the memory, touch every page, say so, and keep it a while."""
    try:
        block = bytearray(mb << 20)
        for at in range(0, len(block), 4096):
            block[at] = 1
        with open(report, "a", encoding="utf-8") as out:
            out.write(f"{mb}\n")
        time.sleep(30)
    finally:
        os._exit(0)
