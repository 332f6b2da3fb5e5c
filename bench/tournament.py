"""Tournament throughput: games per second at 1 and 2 workers, in-process and isolated.

    python bench/tournament.py [--games N] [--bots random|greedy] [--variant indian13]

Plays the same round robin (4 bots at 4-seat tables, duplicate deals) with each setting, in
a fresh temporary results folder, and prints games/s and the 2-worker / 1-worker ratio; the
2 workers once as configs run them (each worker and its bots kept to one CPU) and once with
``affinity: false``, alternately, ``--pairs`` times each (the median is printed).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import _harness  # noqa: F401  (puts the repository on sys.path)
from tabulate import tabulate

from arena.records import read_games
from arena.tournament.config import load_config
from arena.tournament.runner import run_tournament

BOTS = {"random": "bots.random_bot:RandomBot", "greedy": "bots.greedy:GreedyBot"}


def config_text(variant: str, bots: str, games: int, isolation: str,
                affinity: bool = True) -> str:
    """A 4-bot round robin of one bot kind (the bots differ only by name)."""
    entries = "".join(f"  - name: {bots}-{i}\n    module: {BOTS[bots]}\n" for i in range(4))
    return (f"name: bench\nvariant: {variant}\noptions: {{players: 4}}\nbots:\n{entries}"
            f"format: {{games: {games}}}\nisolation: {isolation}\nseed: 7\n"
            f"affinity: {str(affinity).lower()}\n")


def measure(variant: str, bots: str, games: int, isolation: str, workers: int,
            affinity: bool = True) -> float:
    """Games per second for one setting, from start to the last record written."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        path.write_text(config_text(variant, bots, games, isolation, affinity))
        config = load_config(path, overrides={"workers": workers, "output": Path(tmp)})
        start = time.perf_counter()
        played = run_tournament(config, fresh=True, progress=False)
        elapsed = time.perf_counter() - start
        assert len(read_games(config.results_dir / "games.jsonl")) == played
    return played / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=120, help="games per table (x4)")
    parser.add_argument("--bots", choices=sorted(BOTS), default="random")
    parser.add_argument("--variant", default="indian13")
    parser.add_argument("--pairs", type=int, default=3,
                        help="2-worker runs with and without affinity, alternately")
    args = parser.parse_args()
    rows = []
    for isolation in ("inprocess", "process"):
        one = measure(args.variant, args.bots, args.games, isolation, 1)
        pinned, free = [], []
        for _ in range(args.pairs):
            pinned.append(measure(args.variant, args.bots, args.games, isolation, 2))
            free.append(measure(args.variant, args.bots, args.games, isolation, 2, False))
        two, unpinned = statistics.median(pinned), statistics.median(free)
        rows.append([isolation, args.bots, args.games, f"{one:.1f}", f"{two:.1f}",
                     f"{two / one:.2f}", f"{unpinned:.1f}", f"{two / unpinned:.2f}"])
    print(tabulate(rows, ["isolation", "bots", "games", "1 worker g/s", "2 workers g/s",
                          "ratio", "2 workers, affinity: false, g/s", "affinity gain"],
                   tablefmt="github"))


if __name__ == "__main__":
    main()
