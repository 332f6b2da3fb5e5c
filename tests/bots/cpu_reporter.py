"""A bot that notes, at the start of each game, which CPUs its process may run on."""

from __future__ import annotations

import json
import os

from arena.bot import GameInfo
from bots.random_bot import RandomBot


class CpuReporter(RandomBot):
    """Plays as the random bot; appends ``{"cpus": [...]}`` to ``report`` each game."""

    def __init__(self, report: str) -> None:
        super().__init__()
        self.report = report

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        with open(self.report, "a", encoding="utf-8") as notes:
            notes.write(json.dumps({"cpus": sorted(os.sched_getaffinity(0))}) + "\n")
