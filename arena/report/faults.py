"""What the run's log said of each bot's faults, for the report: the faults column counts
them, and a teacher asked what a broken bot did wrong found the answer only in arena.log."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.engine.results import Fault

LOGS = ("arena.log.1", "arena.log")  # the older first: the first message of each kind
SHOWN_CHARS = 400  # of a message: the log keeps more, and the bot's own log the rest
_LINE = re.compile(r" arena\.referee INFO (\S+) seat \d+ \((.+?)\) (" +
                   "|".join(f.value for f in Fault) + r"): (.*)$")


@dataclass(frozen=True, slots=True)
class Told:
    """One kind of fault of one bot, as the log told it: how often, and the first time."""

    bot: str
    kind: str
    lines: int  # lines of the log: a log cut at its size cap holds fewer than the records
    game: str  # of the first
    first: str
    own_log: str  # logs/<bot>.stderr.log when it holds anything, else ""


def told_faults(folder: Path, bots: Sequence[str]) -> tuple[Told, ...]:
    """Each (bot, kind) the folder's arena.log names, in the bots' order, then the kinds'."""
    names = set(bots)
    lines: Counter[tuple[str, str]] = Counter()
    first: dict[tuple[str, str], tuple[str, str]] = {}
    for line in _lines(folder):
        if (found := _LINE.search(line)) is None or found[2] not in names:
            continue
        key = (found[2], found[3])
        lines[key] += 1
        first.setdefault(key, (found[1], found[4][:SHOWN_CHARS]))
    kinds = [f.value for f in Fault]
    return tuple(Told(bot, kind, lines[(bot, kind)], *first[(bot, kind)],
                      own_log=_own_log(folder, bot))
                 for bot in bots for kind in kinds if (bot, kind) in first)


def _lines(folder: Path) -> Iterable[str]:
    for name in LOGS:
        try:
            with (folder / name).open(encoding="utf-8", errors="replace") as log:
                yield from (line.rstrip("\n") for line in log if " arena.referee " in line)
        except OSError:
            continue


def _own_log(folder: Path, bot: str) -> str:
    path = folder / "logs" / f"{bot}.stderr.log"
    try:
        return f"logs/{bot}.stderr.log" if path.stat().st_size > 0 else ""
    except OSError:
        return ""
