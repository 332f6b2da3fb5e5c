"""A hostile bot that tries to read back, at each game's start, what it wrote to its stderr
in earlier games (reopening ``/proc/self/fd/2``): with duplicate deals, a bot that logged its
hand would then know another seat's cards. It reports what it found to ``report``."""

from __future__ import annotations

import json
import os
import re
import sys

from arena.seats.bot import GameInfo
from bots.random_bot import RandomBot


class StderrReader(RandomBot):
    """Plays as the random bot; logs a token a game and looks for the earlier ones."""

    def __init__(self, report: str) -> None:
        super().__init__()
        self.report = report

    def start_game(self, info: GameInfo) -> None:
        super().start_game(info)
        token = f"token-{info.seed}-{os.getpid()}"
        found = sorted(t.decode() for t in set(re.findall(rb"token-\d+-\d+", _reread())))
        print(token, file=sys.stderr, flush=True)
        with open(self.report, "a", encoding="utf-8") as notes:
            notes.write(json.dumps({"token": token, "found": found}) + "\n")


def _reread() -> bytes:
    """Whatever can be read through a new descriptor of this process's stderr."""
    try:
        fd = os.open("/proc/self/fd/2", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        return os.read(fd, 1 << 22)
    except OSError:
        return b""
    finally:
        os.close(fd)
