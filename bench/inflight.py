"""What several games in flight in one worker would buy isolated play.

    python bench/inflight.py [--games 40] [--flights 1,2,3,4] [--pairs 2]

The worker plays one game at a time, so while a seat's process thinks, the referee waits.
This plays the same isolated games (Indian Rummy, four random bots) with K games in flight
in one process, by K threads each with its own four seats, beside one in-process game at a
time, and prints games per second and the isolated / in-process ratio (the `isolation` row
of `python -m bench all`). Threads stand in for any scheme of games in flight: the referee's
Python work still takes turns on the interpreter, as it would in one event loop.
"""

from __future__ import annotations

import argparse
import threading
import time
from statistics import median

import _harness  # (puts the repository on sys.path)

from arena.referee import Referee
from arena.seats.bot import BotSpec
from arena.seats.make import Seat, make_seat
from arena.seats.process import ProcessSeat
from arena.variants import find_variant

RANDOM = BotSpec("random", "bots.random_bot:RandomBot")
GAME = find_variant("indian13")


def games_per_second(flights: int, games: int, isolation: str) -> tuple[float, float]:
    """Play seeds 1..games with ``flights`` games at once, after a warm-up game a flight:
    games/s, and the CPU of this process and the seats' processes together, ms a game."""
    tables = [[make_seat(RANDOM, isolation=isolation) for _ in range(4)]  # type: ignore[arg-type]
              for _ in range(flights)]
    try:
        for seats in tables:
            Referee(GAME, seats, ["random"] * 4, seed=0).play()
        seeds = list(range(1, games + 1))
        lock = threading.Lock()

        def fly(seats: list[Seat]) -> None:
            while True:
                with lock:
                    if not seeds:
                        return
                    seed = seeds.pop()
                Referee(GAME, seats, ["random"] * 4, seed=seed).play()

        threads = [threading.Thread(target=fly, args=(seats,)) for seats in tables]
        cpu = time.process_time() + seats_cpu(tables)
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - start
        used = time.process_time() + seats_cpu(tables) - cpu
        return games / wall, used / games * 1000
    finally:
        for seats in tables:
            for seat in seats:
                seat.close()


def seats_cpu(tables: list[list[Seat]]) -> float:
    """CPU seconds of the isolated seats' processes so far: their cgroups, else /proc."""
    return sum(s.cpu_seconds() for seats in tables for s in seats
               if isinstance(s, ProcessSeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40, help="isolated games a run")
    parser.add_argument("--flights", default="1,2,3,4", help="games in flight, comma-separated")
    parser.add_argument("--pairs", type=int, default=2, help="rounds of every row")
    args = parser.parse_args()
    flights = [int(k) for k in args.flights.split(",")]
    found: dict[int, list[tuple[float, float]]] = {k: [] for k in flights}
    base: list[tuple[float, float]] = []
    for _ in range(args.pairs):
        base.append(games_per_second(1, args.games * 4, "inprocess"))
        for k in flights:
            found[k].append(games_per_second(k, args.games, "process"))
    inprocess = median([g for g, _ in base])
    rows = [[k, " / ".join(f"{g:.1f}" for g, _ in found[k]),
             f"{median([g for g, _ in found[k]]) / inprocess:.3f}",
             " / ".join(f"{c:.1f}" for _, c in found[k])] for k in flights]
    _harness.banner("bench/inflight.py")
    print("in process, one game at a time: "
          + " / ".join(f"{g:.1f} games/s, {c:.1f} ms CPU a game" for g, c in base))
    _harness.show(rows, ["games in flight", "isolated games/s (each round)",
                         "isolated / in-process (median)", "CPU ms a game, all processes"])


if __name__ == "__main__":
    main()
