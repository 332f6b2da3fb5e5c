"""Cost of isolation: the round trip of one decision to a bot in its own process.

    python bench/isolation.py [--games N]

Plays Indian Rummy games between four copies of a bot that answers at once (draw from the
stock, discard the card drawn), first in-process, then each seat in its own process, and
prints per-decision time as the referee measures it (p50, p99), games per second, and the
CPU time spent per decision by the referee and by the bots (their cgroups; isolated only).
"""

from __future__ import annotations

import argparse
import time

import _harness  # noqa: F401  (puts the repository on sys.path)
from tabulate import tabulate

from arena.referee import Referee
from arena.seats.bot import BotSpec
from arena.seats.make import Seat, make_seat
from arena.seats.process import ProcessSeat
from arena.seats.sandbox import cgroup_cpu_seconds
from arena.variants import find_variant

QUICK = BotSpec("quick", "bench._quick_bot:QuickBot")
RANDOM = BotSpec("random", "bots.random_bot:RandomBot")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    rows = []
    for spec in (QUICK, RANDOM):
        per_mode = {}
        for isolation in ("inprocess", "process"):
            game = find_variant("indian13")
            seats = [make_seat(spec, isolation=isolation) for _ in range(4)]  # type: ignore[arg-type]
            try:
                Referee(game, seats, [spec.name] * 4, seed=0).play()  # warm the processes up
                times: list[float] = []
                bots_before = bot_cpu(seats)
                cpu = time.process_time()
                start = time.perf_counter()
                for seed in range(1, args.games + 1):
                    ref = Referee(game, seats, [spec.name] * 4, seed=seed)
                    ref.play()
                    for tally in ref.tally:
                        times.extend(tally.times)
                elapsed = time.perf_counter() - start
                referee_us = (time.process_time() - cpu) / len(times) * 1e6
                bots_us = (bot_cpu(seats) - bots_before) / len(times) * 1e6
            finally:
                for seat in seats:
                    seat.close()
            times.sort()
            per_mode[isolation] = args.games / elapsed
            rows.append([spec.name, isolation, f"{times[len(times) // 2] * 1000:.0f}",
                         f"{times[int(len(times) * 0.99)] * 1000:.0f}",
                         f"{args.games / elapsed:.1f}", f"{referee_us:.0f}",
                         f"{bots_us:.0f}" if isolation == "process" else "(in referee)"])
        rows[-1].append(f"{per_mode['process'] / per_mode['inprocess']:.2f}")
    print(tabulate(rows, ["bot", "isolation", "decision p50 us", "p99 us", "games/s",
                          "referee CPU us/decision", "bots CPU us/decision",
                          "isolated / in-process"], tablefmt="github"))


def bot_cpu(seats: list[Seat]) -> float:
    """CPU seconds used so far by the isolated seats' processes (0 in process)."""
    return sum(cgroup_cpu_seconds(s.cgroups) or 0.0 for s in seats if isinstance(s, ProcessSeat))


if __name__ == "__main__":
    main()
