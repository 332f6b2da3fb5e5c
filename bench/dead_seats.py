"""How long dead bots hold a tournament: four hostile seats that never give a good answer.

    python bench/dead_seats.py [--games 60] [--workers 2]

One 4-seat Indian Rummy tournament with 200/300 ms clocks, run with ``arena run`` as a user
would: a bot that sleeps past every deadline, one that loops forever on its first play, one
that exits on every decision (each new process too), and a command that answers once, then
writes stale replies without end (``yes '{"id":0}'``). Dead seats forfeit after 5 faults
in a row (the default ``faults.forfeit_after_consecutive``), so a game costs a few
deadlines, not one per turn.
Prints the wall time, the games recorded and the faults by kind.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import _harness  # noqa: F401  (puts the repository on sys.path)
from tabulate import tabulate

from arena.records import read_games

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "bots"

FLOOD = """read start; echo '{"type":"ready"}'
read request; echo '{"id":1,"action":"stock"}'
yes '{"id":0}' &
while read request; do :; done
"""
CONFIG = """\
name: dead
variant: indian13
options: {{players: 4, draw_cap: 20}}
bots:
  - name: sleeper
    module: {hostile}/adversarial.py:Sleeper
  - name: looper
    module: {hostile}/adversarial.py:InfiniteLoop
  - name: crasher
    module: {hostile}/adversarial.py:Crasher
    params: {{at: 1}}
  - name: flood
    command: [/bin/sh, {flood}]
time: {{draw_ms: 200, play_ms: 300}}
format: {{games: {games}}}
workers: {workers}
output: {output}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-dead-") as folder:
        config, flood = Path(folder) / "dead.yaml", Path(folder) / "flood.sh"
        flood.write_text(FLOOD)
        config.write_text(CONFIG.format(hostile=HOSTILE, flood=flood, games=args.games,
                                        workers=args.workers, output=Path(folder) / "results"))
        began = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "arena.cli.app", "run", str(config)],
                              capture_output=True, text=True, check=False)
        took = time.monotonic() - began
        if done.returncode != 0:
            sys.exit(f"arena run exited {done.returncode}: {done.stderr.strip()[-2000:]}")
        records = read_games(Path(folder) / "results" / "dead" / "games.jsonl")
    faults: Counter[str] = Counter()
    for record in records:
        for seat in record.seats:
            faults.update({kind: n for kind, n in seat.faults.items() if n})
    print(tabulate([[args.games, args.workers, len(records), f"{took:.1f}",
                     f"{took / max(len(records), 1):.2f}",
                     ", ".join(f"{k} {n}" for k, n in sorted(faults.items()))]],
                   headers=["games", "workers", "recorded", "wall s", "s per game",
                            "faults"], tablefmt="github"))


if __name__ == "__main__":
    main()
