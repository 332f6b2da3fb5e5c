"""A hostile bot whose module leaves a mark when it is imported: which program imported it.

The mark is a file in ``marks/`` beside this file (the test copies it to a folder of its
own), named by process id and holding ``sys.argv[0]``: the path of ``arena/seats/host.py`` when
the bot was started as a tournament starts it, anything else when its code ran in the
arena's own process. Confined without a ``write:`` grant for ``marks/``, no mark can be made.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from bots.random_bot import RandomBot

_MARKS = Path(__file__).resolve().parent / "marks"
with contextlib.suppress(OSError):  # a read-only folder: no mark
    (_MARKS / f"{os.getpid()}-{time.monotonic_ns()}").write_text(sys.argv[0], "utf-8")


class MarkerBot(RandomBot):
    """Plays as the random bot; its module is what the test watches."""
