"""Tournament throughput: games per second at 1 and 2 workers, in-process and isolated.

    python bench/tournament.py [--games N] [--bots random|greedy] [--variant indian13]

Plays the same round robin (4 bots at 4-seat tables, duplicate deals) with each setting, in
a fresh temporary results folder, and prints games/s and the 2-worker / 1-worker ratio.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import _harness  # noqa: F401  (puts the repository on sys.path)
from tabulate import tabulate

from arena.records import read_games
from arena.tournament.config import load_config
from arena.tournament.runner import run_tournament

BOTS = {"random": "bots.random_bot:RandomBot", "greedy": "bots.greedy:GreedyBot"}


def config_text(variant: str, bots: str, games: int, isolation: str) -> str:
    """A 4-bot round robin of one bot kind (the bots differ only by name)."""
    entries = "".join(f"  - name: {bots}-{i}\n    module: {BOTS[bots]}\n" for i in range(4))
    return (f"name: bench\nvariant: {variant}\noptions: {{players: 4}}\nbots:\n{entries}"
            f"format: {{games: {games}}}\nisolation: {isolation}\nseed: 7\n")


def measure(variant: str, bots: str, games: int, isolation: str, workers: int) -> float:
    """Games per second for one setting, from start to the last record written."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        path.write_text(config_text(variant, bots, games, isolation))
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
    args = parser.parse_args()
    rows = []
    for isolation in ("inprocess", "process"):
        one = measure(args.variant, args.bots, args.games, isolation, 1)
        two = measure(args.variant, args.bots, args.games, isolation, 2)
        rows.append([isolation, args.bots, args.games, f"{one:.1f}", f"{two:.1f}",
                     f"{two / one:.2f}"])
    print(tabulate(rows, ["isolation", "bots", "games", "1 worker g/s", "2 workers g/s",
                          "ratio"], tablefmt="github"))


if __name__ == "__main__":
    main()
