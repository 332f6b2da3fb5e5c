"""What a game's fork costs a Python bot's host: ``python bench/fork.py [--forks 200]``.

The host (``arena.seats.host``) plays each game in a child forked from it, which exits at the
game's end, so that a bot's memory lasts one game. This forks a process that has imported
what a host imports, lets the child exit at once, and prints the wall time and the CPU of
both sides per fork, and what that comes to per decision of a 4-seat Indian Rummy game of
random bots (about 190 decisions, each seat forking once).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import time

import _harness  # noqa: F401  (puts the repository on sys.path)
from tabulate import tabulate

import arena.seats.host  # noqa: F401  (what a host has imported when it forks)
import bots.random_bot  # noqa: F401

DECISIONS_PER_GAME = 190  # bench/engine.py (a): 38,150 decisions in 200 games
SEATS = 4


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--forks", type=int, default=200)
    forks = parser.parse_args().forks
    cpu, child, start = time.process_time(), children_cpu(), time.perf_counter()
    for _ in range(forks):
        gc.freeze()  # as the host does before each game's fork
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    wall_us = (time.perf_counter() - start) / forks * 1e6
    parent_us = (time.process_time() - cpu) / forks * 1e6
    child_us = (children_cpu() - child) / forks * 1e6
    per_decision = (parent_us + child_us) * SEATS / DECISIONS_PER_GAME
    print(tabulate([[forks, f"{wall_us:.0f}", f"{parent_us:.0f}", f"{child_us:.0f}",
                     f"{per_decision:.0f}"]],
                   ["forks", "wall us", "host CPU us", "child CPU us",
                    "CPU us per decision (4 seats, 190 decisions a game)"],
                   tablefmt="github"))


if __name__ == "__main__":
    main()
