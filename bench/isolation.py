"""Cost of isolation: the round trip of one decision to a bot in its own process.

    python bench/isolation.py [--games N]

Plays Indian Rummy games between four copies of a bot that answers at once (draw from the
stock, discard the card drawn), first in-process, then each seat in its own process, and
prints per-decision time as the referee measures it (p50, p99), games per second, and the
CPU time spent per decision by the referee and by the bots (their cgroups, else /proc;
isolated only).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import _harness  # noqa: F401  (puts the repository on sys.path)
from tabulate import tabulate

from arena.referee import Referee
from arena.seats.bot import BotSpec
from arena.seats.make import Seat, make_seat
from arena.seats.process import ProcessSeat
from arena.variants import find_variant

QUICK = BotSpec("quick", "bench._quick_bot:QuickBot")
RANDOM = BotSpec("random", "bots.random_bot:RandomBot")


@dataclass(frozen=True, slots=True)
class Run:
    """One bot kind in one isolation mode, four seats, one worker."""

    decision_ms: tuple[float, ...]  # sorted, as the referee clocks each decision
    ask_ns: tuple[int, ...]  # perf_counter_ns around each seat's ask, when asked for
    games_per_s: float
    referee_us: float  # this process's CPU per decision
    bots_us: float  # the seats' CPU per decision (0 in process)


class _Clocked:
    """A seat whose every ``ask`` is timed from outside: encoding the view included."""

    def __init__(self, seat: Seat, ask_ns: list[int]) -> None:
        self.seat = seat
        self.ask_ns = ask_ns

    def ask(self, view: Any, limit_ms: int) -> Any:
        start = time.perf_counter_ns()
        answer = self.seat.ask(view, limit_ms)
        self.ask_ns.append(time.perf_counter_ns() - start)
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.seat, name)


def measure(spec: BotSpec, isolation: str, games: int, *, clock_asks: bool = False,
            between: Callable[[], object] | None = None) -> Run:
    """Play ``games`` games (seeds 1..games) after one warm-up game on the same seats.

    ``between`` runs after each game, off the clocks: another measure taken alongside, so
    that both see the same load on a shared machine.
    """
    game = find_variant("indian13")
    seats = [make_seat(spec, isolation=isolation) for _ in range(4)]  # type: ignore[arg-type]
    ask_ns: list[int] = []
    played = [_Clocked(s, ask_ns) for s in seats] if clock_asks else seats
    try:
        Referee(game, seats, [spec.name] * 4, seed=0).play()  # warm the processes up
        times: list[float] = []
        bots_before = bot_cpu(seats)
        cpu = time.process_time()
        start = time.perf_counter()
        off_wall = off_cpu = 0.0
        for seed in range(1, games + 1):
            ref = Referee(game, played, [spec.name] * 4, seed=seed)  # type: ignore[arg-type]
            ref.play()
            for tally in ref.tally:
                times.extend(tally.times)
            if between is not None:
                wall, used = time.perf_counter(), time.process_time()
                between()
                off_wall += time.perf_counter() - wall
                off_cpu += time.process_time() - used
        elapsed = time.perf_counter() - start - off_wall
        referee_us = (time.process_time() - cpu - off_cpu) / len(times) * 1e6
        bots_us = (bot_cpu(seats) - bots_before) / len(times) * 1e6
    finally:
        for seat in seats:
            seat.close()
    return Run(tuple(sorted(times)), tuple(ask_ns), games / elapsed, referee_us, bots_us)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    rows = []
    for spec in (QUICK, RANDOM):
        per_mode = {}
        for isolation in ("inprocess", "process"):
            run = measure(spec, isolation, args.games)
            times = run.decision_ms
            per_mode[isolation] = run.games_per_s
            rows.append([spec.name, isolation, f"{times[len(times) // 2] * 1000:.0f}",
                         f"{times[int(len(times) * 0.99)] * 1000:.0f}",
                         f"{run.games_per_s:.1f}", f"{run.referee_us:.0f}",
                         f"{run.bots_us:.0f}" if isolation == "process" else "(in referee)"])
        rows[-1].append(f"{per_mode['process'] / per_mode['inprocess']:.2f}")
    print(tabulate(rows, ["bot", "isolation", "decision p50 us", "p99 us", "games/s",
                          "referee CPU us/decision", "bots CPU us/decision",
                          "isolated / in-process"], tablefmt="github"))


def bot_cpu(seats: list[Seat]) -> float:
    """CPU seconds used so far by the isolated seats' processes (0 in process): their
    cgroups, else what /proc says of the processes below each seat's."""
    return sum(s.cpu_seconds() for s in seats if isinstance(s, ProcessSeat))


if __name__ == "__main__":
    main()
